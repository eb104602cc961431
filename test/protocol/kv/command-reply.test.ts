import { createClient, RESP_TYPES } from '@redis/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseCommandReply } from '../../../src/protocol/kv/command-reply.ts';
import { acquireRedis } from '../../../src/reference/redis/acquire-redis.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';

let redis: RedisBacking;
let asBuffers: unknown;
let asJson: unknown;

beforeAll(async () => {
  redis = await acquireRedis({});
  const client = createClient({ url: redis.url, RESP: 2 });
  await client.connect();
  // The two forms the reply reaches us in: Buffers from a Redis client, strings from JSON over REST.
  asBuffers = await client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }).sendCommand(['COMMAND']);
  asJson = JSON.parse(JSON.stringify(await client.sendCommand(['COMMAND'])));
  await client.quit();
});

afterAll(async () => {
  await redis?.stop();
});

describe('parseCommandReply', () => {
  test('reads names, arity, flags and key positions from a real reply, in either form', () => {
    for (const reply of [asBuffers, asJson]) {
      const set = parseCommandReply(reply).find((info) => info.name === 'set');
      expect(set).toMatchObject({ arity: -3, firstKey: 1, lastKey: 1, step: 1, subcommands: [] });
      expect(set?.flags.has('write')).toBe(true);
    }
  });

  test('keeps subcommands as parent|sub with their own flags', () => {
    const xinfo = parseCommandReply(asJson).find((info) => info.name === 'xinfo');
    const stream = xinfo?.subcommands.find((sub) => sub.name === 'xinfo|stream');
    expect(stream?.flags.has('readonly')).toBe(true);
  });

  test('drops what is not a command entry', () => {
    expect(parseCommandReply({ error: 'no' })).toEqual([]);
    expect(parseCommandReply([['get', 'two', ['readonly'], 1, 1, 1], ['short'], 'text'])).toEqual([]);
  });
});
