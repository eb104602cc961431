/**
 * The one @redis/client class of the reference's plain connections (areas A, B and C, pings). Each
 * `createClient` builds a class of the client's ~500 command methods for its options, and @redis/client
 * caches one such class, keyed by the options' JSON: the areas' clients (each with its own database),
 * a ping and area B's users alternated in it, and each start paid about 25 ms of CPU per client for
 * the build. A class built once from the protocol alone serves every options object.
 */
import { RedisClient } from '@redis/client';

/** RESP2 on every connection: the areas read replies as RESP2's plain types. */
export const newRedisClient = RedisClient.factory({ RESP: 2 });
