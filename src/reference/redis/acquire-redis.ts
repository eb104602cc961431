/**
 * The Redis behind the reference service, found in the order of issue 2 ("Redis backing"):
 * (1) `--redis-url` / `REDIS_URL`; (2) a `redis-server` on PATH; (3) a container through a
 * Docker-compatible engine (testcontainers); (4) a one-line error naming these three ways.
 */
import { harnessError, oneLine } from '../../shared/errors.ts';
import type { RedisBacking } from './redis-backing.ts';
import { findRedisServer, startRedisServer } from './redis-server-process.ts';
import { pingRedis, redactRedisUrl } from './redis-url.ts';

export interface AcquireRedisOptions {
  /** `--redis-url`; wins over `env.REDIS_URL`. */
  redisUrl?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * Skip the earlier ways and use only this one (tests exercise paths 2 and 3 for real with it).
   * A given URL is still honoured first.
   */
  prefer?: 'redis-server' | 'container';
  /** @default 3000 — how long a given URL has to answer PING. */
  pingTimeoutMs?: number;
}

export async function acquireRedis(options: AcquireRedisOptions): Promise<RedisBacking> {
  const env = options.env ?? process.env;
  const givenUrl = nonEmpty(options.redisUrl) ?? nonEmpty(env.REDIS_URL);
  if (givenUrl !== undefined) return useGivenUrl(givenUrl, options.pingTimeoutMs ?? 3000);

  if (options.prefer !== 'container') {
    const binary = findRedisServer(env);
    if (binary !== undefined) return startRedisServer(binary);
    if (options.prefer === 'redis-server') {
      throw harnessError('SVC_REDIS_UNAVAILABLE', 'no redis-server on PATH (install the Debian package redis-server)');
    }
  }

  // Loaded on use: testcontainers (dockerode, ssh2 and its WebAssembly) cost every reference start a
  // quarter of a second of CPU and 54 MB of resident memory, though most find redis-server on PATH.
  const { startRedisContainer } = await import('./redis-container.ts');
  const container = await startRedisContainer(env);
  if (container.kind === 'started') return container.backing;
  if (options.prefer === 'container') {
    throw harnessError('SVC_REDIS_UNAVAILABLE', `no Redis container: ${container.reason}`);
  }
  throw harnessError(
    'SVC_REDIS_UNAVAILABLE',
    'no Redis for the reference: pass --redis-url (or set REDIS_URL), install redis-server on PATH, ' +
      `or run a Docker-compatible engine (Docker, or Podman via container-engine.sh start) [${container.reason}]`,
  );
}

async function useGivenUrl(url: string, timeoutMs: number): Promise<RedisBacking> {
  try {
    await pingRedis(url, timeoutMs);
  } catch (error) {
    throw harnessError('SVC_REDIS_UNAVAILABLE', `Redis at ${redactRedisUrl(url)} does not answer: ${oneLine(error)}`);
  }
  return { url, origin: 'url', stop: async () => {} };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
