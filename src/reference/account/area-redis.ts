/**
 * The Redis client of areas A and C: one per area, RESP2 (replies as plain strings), no offline queue
 * (while Redis is away a command fails at once, and the caller decides whether to try again).
 */
import { createClient } from '@redis/client';
import { withTimeout } from '../../shared/with-timeout.ts';

const connectDeadlineMs = 10_000;

function newClient(url: string) {
  return createClient({ url, RESP: 2, disableOfflineQueue: true });
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
