/**
 * The Redis client of areas A and C: one per area, RESP2 (replies as plain strings), no offline queue
 * (while Redis is away a command fails at once, and the caller decides whether to try again).
 * Their state lives in the logical database after area B's, so area B's commands (DBSIZE, SCAN,
 * FLUSHDB) never see or remove the messaging account, its keys or its messages, and area B's
 * /monitor shows only its own database's commands (kv-streams.ts).
 */
import { withTimeout } from '../../shared/with-timeout.ts';
import { newRedisClient } from '../redis/redis-client-class.ts';
import { databaseOf } from '../redis/redis-url.ts';

const connectDeadlineMs = 10_000;

function newClient(url: string) {
  // The database goes in its own option: @redis/client lets a database in the URL's path win over it.
  return newRedisClient({ url: withoutDatabase(url), disableOfflineQueue: true, database: areaDatabase(url) });
}

function withoutDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.pathname = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** Area B's database (the URL's path, else 0) plus one. */
export function areaDatabase(url: string): number {
  return databaseOf(url) + 1;
}

export type AreaRedis = ReturnType<typeof newClient>;

/** A connected client; errors after the connection are the callers' to see on their commands. */
export async function connectAreaRedis(url: string): Promise<AreaRedis> {
  const client = newClient(url);
  client.on('error', () => {});
  try {
    await withTimeout(
      client.connect(),
      connectDeadlineMs,
      `Redis did not accept a connection within ${connectDeadlineMs} ms`,
    );
  } catch (error) {
    client.destroy();
    throw error;
  }
  return client;
}
