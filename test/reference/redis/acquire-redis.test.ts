import { existsSync } from 'node:fs';
import { createClient } from '@redis/client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acquireRedis } from '../../../src/reference/redis/acquire-redis.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import { pingRedis } from '../../../src/reference/redis/redis-url.ts';
import { isHarnessError } from '../../../src/shared/errors.ts';
import { findFreePort } from '../../../src/shared/free-port.ts';
import { ensureContainerEngine } from './container-engine.ts';

const started: RedisBacking[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((backing) => backing.stop()));
});

async function acquire(options: Parameters<typeof acquireRedis>[0]): Promise<RedisBacking> {
  const backing = await acquireRedis(options);
  started.push(backing);
  return backing;
}

async function roundTrip(url: string): Promise<{ value: string | null; config: Record<string, string> }> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.set('probe', 'value');
    const config = await client.configGet('*');
    return { value: await client.get('probe'), config };
  } finally {
    client.destroy();
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected a rejection');
}

describe('path 1: a given URL', () => {
  it('uses --redis-url when it answers PING, and stop() leaves that Redis running', async () => {
    const server = await acquire({ prefer: 'redis-server' });
    const backing = await acquire({ redisUrl: server.url, env: {} });
    expect(backing).toMatchObject({ url: server.url, origin: 'url' });
    await backing.stop();
    await pingRedis(server.url, 2000);
  });

  it('takes REDIS_URL from the environment, with --redis-url winning over it', async () => {
    const server = await acquire({ prefer: 'redis-server' });
    expect(await acquire({ env: { REDIS_URL: server.url } })).toMatchObject({ url: server.url, origin: 'url' });
    const closedPort = await findFreePort();
    const fromFlag = await acquire({ redisUrl: server.url, env: { REDIS_URL: `redis://127.0.0.1:${closedPort}` } });
    expect(fromFlag.url).toBe(server.url);
  });

  it('fails with one line naming the URL without its password when nothing answers', async () => {
    const closedPort = await findFreePort();
    const error = await rejection(
      acquireRedis({ redisUrl: `redis://admin:hunter2@127.0.0.1:${closedPort}`, env: {}, pingTimeoutMs: 1000 }),
    );
    expect(isHarnessError(error) && error.code).toBe('SVC_REDIS_UNAVAILABLE');
    expect(error.message).toContain(`redis://admin:***@127.0.0.1:${closedPort}`);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('\n');
  });
});

describe('path 2: redis-server from PATH', () => {
  it('is the default without a URL, on loopback, without persistence, and stop() ends it and its directory', async () => {
    const backing = await acquire({ env: { PATH: process.env.PATH } });
    expect(backing.origin).toBe('redis-server');
    expect(backing.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    const { value, config } = await roundTrip(backing.url);
    expect(value).toBe('value');
    expect(config).toMatchObject({ save: '', appendonly: 'no', bind: '127.0.0.1' });
    expect(existsSync(config.dir!)).toBe(true);

    await backing.stop();
    await expect(pingRedis(backing.url, 1000)).rejects.toThrow();
    expect(existsSync(config.dir!)).toBe(false);
    await backing.stop(); // idempotent
  });

  it('starts servers side by side on distinct ports', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => acquire({ prefer: 'redis-server' })));
    expect(new Set([a!.url, b!.url, c!.url]).size).toBe(3);
  });

  it('reports a missing redis-server when that path is forced', async () => {
    const error = await rejection(acquireRedis({ prefer: 'redis-server', env: { PATH: '/nonexistent' } }));
    expect(isHarnessError(error) && error.code).toBe('SVC_REDIS_UNAVAILABLE');
    expect(error.message).toMatch(/no redis-server on PATH/);
  });
});

describe('path 3: a container through a Docker-compatible engine', () => {
  let noEngine: string | undefined;
  beforeAll(() => {
    noEngine = ensureContainerEngine();
  });

  it('starts the Redis image, reachable on loopback, and stop() removes it', async ({ skip }) => {
    if (noEngine !== undefined) skip(`no container engine answers: ${noEngine}`);
    const before = performance.now();
    const backing = await acquire({ prefer: 'container', env: { ...process.env, PATH: '/nonexistent' } });
    const startMs = performance.now() - before;
    console.info(`container start (until PING answers): ${Math.round(startMs)} ms`);
    expect(backing.origin).toBe('container');
    expect(backing.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect((await roundTrip(backing.url)).value).toBe('value');

    await backing.stop();
    await expect(pingRedis(backing.url, 1000)).rejects.toThrow();
  });

  it('is chosen when there is no redis-server on PATH', async ({ skip }) => {
    if (noEngine !== undefined) skip(`no container engine answers: ${noEngine}`);
    const backing = await acquire({ env: { ...process.env, PATH: '/nonexistent', REDIS_URL: '' } });
    expect(backing.origin).toBe('container');
  });

  it('names a missing image instead of trying to pull it', async ({ skip }) => {
    if (noEngine !== undefined) skip(`no container engine answers: ${noEngine}`);
    const env = { ...process.env, SVC_REDIS_IMAGE: 'localhost/svc-no-such-image:none' };
    const error = await rejection(acquireRedis({ prefer: 'container', env }));
    expect(error.message).toMatch(/image localhost\/svc-no-such-image:none is not on the engine/);
  });
});

describe('path 4: nothing available', () => {
  it('fails with one line naming the three ways', async () => {
    const env = { PATH: '/nonexistent', DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
    const error = await rejection(acquireRedis({ env }));
    expect(isHarnessError(error) && error.code).toBe('SVC_REDIS_UNAVAILABLE');
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/--redis-url/);
    expect(error.message).toMatch(/REDIS_URL/);
    expect(error.message).toMatch(/redis-server on PATH/);
    expect(error.message).toMatch(/Docker-compatible engine/);
    expect(error.message).toMatch(/DOCKER_HOST socket \/nonexistent\/docker\.sock does not exist/);
  });
});
