/**
 * The reference's one client class: every client speaks RESP2 on the wire, as the class's reply
 * transforms expect. @redis/client 6 opens with HELLO 3 unless the options say RESP 2, and a client
 * of a class built for RESP2 that spoke RESP3 gave the messaging areas replies of the wrong shapes:
 * the queue limit stopped counting (caught by messaging.limits.queues against the reference).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAreaRedis } from '../../../src/reference/account/area-redis.ts';
import { RedisConnections } from '../../../src/reference/kv/redis-connections.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import { newRedisClient } from '../../../src/reference/redis/redis-client-class.ts';
import { startTestRedis } from '../../support/reference-fixture.ts';

let redis: RedisBacking;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(() => redis.stop());

/** The protocol of the connection as Redis sees it (CLIENT INFO's `resp=`). */
async function protocolOf(send: (args: string[]) => Promise<unknown>): Promise<string | undefined> {
  const info = String(await send(['CLIENT', 'INFO']));
  return /\bresp=(\d)/.exec(info)?.[1];
}

describe('the reference’s Redis clients', () => {
  it('speak RESP2: a plain client, an area’s client and area B’s shared client', async () => {
    const plain = newRedisClient({ url: redis.url });
    await plain.connect();
    const area = await connectAreaRedis(redis.url);
    const connections = await RedisConnections.open(redis.url);
    try {
      expect(await protocolOf((args) => plain.sendCommand(args))).toBe('2');
      expect(await protocolOf((args) => area.sendCommand(args))).toBe('2');
      const { client } = await connections.user(undefined);
      expect(await protocolOf((args) => client.sendCommand(args))).toBe('2');
      // RESP2's shapes: a hash reads back as a flat list, not a map.
      await plain.sendCommand(['HSET', 'class-test:h', 'f', 'v']);
      expect(await plain.sendCommand(['HGETALL', 'class-test:h'])).toEqual(['f', 'v']);
    } finally {
      plain.destroy();
      area.destroy();
      await connections.close();
    }
  });
});
