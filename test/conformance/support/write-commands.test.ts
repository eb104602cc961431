import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fallbackWrites, writeCatalog } from '../../../conformance/support/write-commands.ts';
import { acquireRedis } from '../../../src/reference/redis/acquire-redis.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';

let redis: RedisBacking;
let reply: unknown;

beforeAll(async () => {
  redis = await acquireRedis({});
  const client = createClient({ url: redis.url });
  await client.connect();
  // The same shape a target's `COMMAND` has once answered as JSON: strings, integers, nested arrays.
  reply = JSON.parse(JSON.stringify(await client.sendCommand(['COMMAND'])));
  await client.quit();
});

afterAll(async () => {
  await redis?.stop();
});

describe('the write commands of a real COMMAND reply', () => {
  test('include the common writes, subcommands too, with their keys placed', () => {
    const { invocations } = writeCatalog(reply);
    const byName = new Map(invocations.map((write) => [write.name, write]));
    const key = (index: number) => `k${index}`;
    expect(byName.get('SET')?.build(key)).toEqual(['SET', 'k0', '1']);
    expect(byName.get('MSET')?.build(key)).toEqual(['MSET', 'k0', '1']);
    expect(byName.get('RENAME')?.build(key)).toEqual(['RENAME', 'k0', 'k1']);
    expect(byName.get('XGROUP CREATE')?.build(key).slice(0, 3)).toEqual(['XGROUP', 'CREATE', 'k0']);
    expect(byName.has('GET')).toBe(false);
  });

  test('never send keyless or external writes (FLUSHALL, FLUSHDB, SWAPDB, MIGRATE, MOVE)', () => {
    const { invocations, skipped } = writeCatalog(reply);
    const names = invocations.map((write) => write.name);
    for (const name of ['FLUSHALL', 'FLUSHDB', 'SWAPDB', 'MIGRATE', 'MOVE']) expect(names).not.toContain(name);
    expect(skipped.some((line) => line.startsWith('flushall'))).toBe(true);
  });

  test('every invocation names a key, and all its keys come from the namer', () => {
    for (const write of writeCatalog(reply).invocations) {
      const args = write.build((index) => `prefix:${index}`);
      expect(
        args.some((arg) => arg.startsWith('prefix:')),
        write.name,
      ).toBe(true);
    }
  });

  test('search-module writes (FT.*) are never sent: their "keys" are index names, not keys', () => {
    const ftCreate = ['FT.CREATE', -2, ['write', 'denyoom'], 1, 1, 1, [], [], [], []];
    const { invocations, skipped } = writeCatalog([ftCreate]);
    expect(invocations).toEqual([]);
    expect(skipped).toEqual(['ft.create (names a search index, not a key)']);
  });

  test('a reply that is not a command list gives nothing, and the fallback list has keys', () => {
    expect(writeCatalog({ error: 'no' }).invocations).toEqual([]);
    expect(fallbackWrites.every((command) => command.includes('{k}'))).toBe(true);
  });
});
