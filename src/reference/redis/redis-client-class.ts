/**
 * The one @redis/client class of the reference's plain connections (areas A, B and C, pings). Each
 * `createClient` builds a class of the client's ~500 command methods for its options, and @redis/client
 * caches one such class, keyed by the options' JSON: the areas' clients (each with its own database),
 * a ping and area B's users alternated in it, and each start paid about 25 ms of CPU per client for
 * the build. A class built once from the protocol alone serves every options object.
 */
import { RedisClient } from '@redis/client';

/** RESP2: the areas read replies as RESP2's plain types, and the class's reply transforms are RESP2's. */
const classOf = RedisClient.factory({ RESP: 2 });

export type PlainClientOptions = Parameters<typeof classOf>[0];

/**
 * A client of the one class, speaking RESP2 on the wire too: @redis/client 6 opens with HELLO 3 unless
 * its options say RESP 2, and the class's config does not reach the connection's handshake. (The option
 * is not in the factory's type, which leaves out the class's own config; the connection reads it.)
 */
export function newRedisClient(options: PlainClientOptions) {
  const onTheWire = { ...options, RESP: 2 as const };
  return classOf(onTheWire);
}
