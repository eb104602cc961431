/**
 * Checking that a Redis URL answers, and naming it in messages without its password.
 */
import { oneLine } from '../../shared/errors.ts';
import { withTimeout } from '../../shared/with-timeout.ts';
import { newRedisClient } from './redis-client-class.ts';

/** `redis://user:secret@host:6379/0` → `redis://user:***@host:6379/0`; unparseable text is not echoed back. */
/** The logical database a Redis URL names in its path (`redis://host:6379/3`), else 0. */
export function databaseOf(url: string): number {
  try {
    return Number(new URL(url).pathname.slice(1)) || 0;
  } catch {
    return 0;
  }
}

export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable Redis URL>';
  }
}

/**
 * Resolves when the Redis at `url` answers PING within `timeoutMs`; rejects with a one-line reason
 * otherwise. A fresh client per call, never reconnecting, so a dead URL fails fast instead of retrying.
 */
export async function pingRedis(url: string, timeoutMs: number): Promise<void> {
  const client = newRedisClient({ url, socket: { connectTimeout: timeoutMs, reconnectStrategy: false } });
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
  });
  const answered = (async () => {
    await client.connect();
    const reply = await client.ping();
    if (reply !== 'PONG') throw new Error(`PING answered ${JSON.stringify(reply)}`);
  })();
  try {
    await withTimeout(answered, timeoutMs, `no PING answer within ${timeoutMs} ms`);
  } catch (error) {
    throw new Error(oneLine(lastError ?? error));
  } finally {
    // A connect still in flight when the deadline fired is torn down too.
    if (client.isOpen) client.destroy();
  }
}

/** Polls `pingRedis` until it succeeds or `totalMs` has passed (a freshly started server needs a moment). */
export async function waitForRedis(url: string, totalMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const started = Date.now();
  let lastReason = 'not tried';
  while (Date.now() - started < totalMs) {
    if (!isAlive()) throw new Error(`it exited before answering PING (${lastReason})`);
    try {
      await pingRedis(url, Math.min(1000, totalMs));
      return;
    } catch (error) {
      lastReason = oneLine(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no PING answer within ${totalMs} ms (${lastReason})`);
}
