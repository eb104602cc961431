/** Assembly of the reference service: the target it describes, fault validation, and a clean stop. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import { allFaults, referenceAreas } from '../../src/reference/reference-areas.ts';
import { type RunningReference, startReference } from '../../src/reference/reference-service.ts';
import { isHarnessError } from '../../src/shared/errors.ts';
import { parseTarget } from '../../src/target/read-target.ts';
import { portAnswers } from '../support/loopback.ts';
import { call, startTestRedis, startTestReference } from '../support/reference-fixture.ts';

let redis: RedisBacking;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('startReference', () => {
  it('describes itself as a valid svc target with kv and admin, on loopback ports', async () => {
    const ref = await startTestReference(redis);
    try {
      const target = parseTarget(JSON.parse(JSON.stringify(ref.target)), 'test');
      expect(target).toMatchObject({ name: 'reference', dialect: 'svc' });
      expect(target.kv?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(target.admin?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(target.kv?.token).not.toBe(target.kv?.readOnlyToken);
      expect(ref.redis.origin).toBe('url');
      expect((await call(ref, '/ping')).json).toEqual({ result: 'PONG' });
    } finally {
      await ref.stop();
    }
  });

  it('closes its servers on stop and leaves a given Redis running', async () => {
    const ref = await startTestReference(redis);
    await ref.stop();
    expect(await portAnswers(ref.target.kv!.url)).toBe(false);
    expect(await portAnswers(ref.target.admin!.url)).toBe(false);
    expect(await portAnswers(redis.url.replace('redis:', 'http:'))).toBe(true);
    await ref.stop();
  });

  // With REDIS_URL set (a CI choice) the reference uses that Redis instead of starting one.
  it.skipIf(Boolean(process.env.REDIS_URL))(
    'starts its own redis-server without a URL and stops it with the service',
    async () => {
      const ref = await startReference({ redisUrl: undefined });
      expect(['redis-server', 'container']).toContain(ref.redis.origin);
      expect((await call(ref, '/ping')).json).toEqual({ result: 'PONG' });
      await ref.stop();
      expect(await portAnswers(ref.redis.url.replace('redis:', 'http:'))).toBe(false);
    },
  );

  it('answers 500 {error} at once, for commands and transactions, while its Redis is gone', async () => {
    const own = await startTestRedis();
    const ref = await startTestReference(own);
    try {
      await own.stop();
      const started = Date.now();
      const res = await call(ref, '/ping');
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ error: expect.stringMatching(/^ERR backing store unavailable/) });
      const tx = await call(ref, '/multi-exec', { body: [['ping']] });
      expect(tx.status).toBe(500);
      expect(tx.json).toEqual({ error: expect.stringMatching(/^ERR backing store unavailable/) });
      // One failing command of a pipeline does not fail the rest: ACL RESTTOKEN asks Redis too.
      const pipeline = await call(ref, '/pipeline', { body: [['ping'], ['acl', 'resttoken', 'someone', 'pw']] });
      expect(pipeline.status).toBe(200);
      expect(pipeline.json).toEqual([
        { error: expect.stringMatching(/^ERR backing store unavailable/) },
        { error: expect.stringMatching(/^ERR backing store unavailable/) },
      ]);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await ref.stop();
    }
  });

  it('answers 500 within its reply deadline while its Redis stops answering, and recovers', async () => {
    const own = await startTestRedis();
    const ref = await startTestReference(own, { replyDeadlineMs: 300 });
    try {
      await answersWhilePaused(ref);
      expect((await call(ref, '/ping')).json).toEqual({ result: 'PONG' });
      // The transaction was written before the pause, so Redis ran it once it resumed.
      expect((await call(ref, '/multi-exec', { body: [['get', 'k']] })).json).toEqual([{ result: 'v' }]);
    } finally {
      await ref.stop();
      await own.stop();
    }
  });

  async function answersWhilePaused(ref: RunningReference): Promise<void> {
    const info = (await call(ref, '/info/server')).json as { result: string };
    const pid = Number(/process_id:(\d+)/.exec(info.result)?.[1]);
    expect(pid).toBeGreaterThan(0);
    // A paused Redis keeps its connections open: commands are written, their replies never come.
    process.kill(pid, 'SIGSTOP');
    try {
      const noReply = { error: expect.stringMatching(/^ERR backing store unavailable: no reply/) };
      const single = await call(ref, '/get/k');
      expect(single.status).toBe(500);
      expect(single.json).toEqual(noReply);
      const pipeline = await call(ref, '/pipeline', { body: [['get', 'k'], ['ping']] });
      expect(pipeline.status).toBe(200);
      expect(pipeline.json).toEqual([noReply, noReply]);
      const tx = await call(ref, '/multi-exec', {
        body: [
          ['set', 'k', 'v'],
          ['get', 'k'],
        ],
      });
      expect(tx.status).toBe(500);
      expect(tx.json).toEqual(noReply);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  }

  it('refuses an unknown fault with a usage error naming --list-faults', async () => {
    const error = await startTestReference(redis, { faults: ['no-such-fault'] }).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.code).toBe('SVC_USAGE');
    expect((error as Error).message).toMatch(/--list-faults/);
  });

  it('fails with one coded line when the Redis URL does not answer', async () => {
    const error = await startReference({ redisUrl: 'redis://127.0.0.1:1' }).catch((e: unknown) => e);
    expect(isHarnessError(error)).toBe(true);
    expect((error as Error).message.split('\n')).toHaveLength(1);
  });

  it('registers switches of the areas it serves, each naming a rule', () => {
    expect(allFaults.length).toBeGreaterThan(0);
    const areas = new Set(referenceAreas.map((area) => area.name));
    for (const fault of allFaults) expect(areas.has(fault.area), fault.name).toBe(true);
  });
});
