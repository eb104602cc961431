/**
 * The shared write deadline: the module on its own, then for real on a redis-server frozen with
 * SIGSTOP, so the connection stops draining and commands queued behind a full socket stay unwritten.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { AbortError, createClient } from '@redis/client';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpRequest } from '../../../src/http/http-client.ts';
import { type KvArea, startKvArea } from '../../../src/reference/kv/kv-area.ts';
import type { KvEngine } from '../../../src/reference/kv/kv-engine.ts';
import type { Outcome } from '../../../src/reference/kv/kv-outcome.ts';
import { kvPlugin } from '../../../src/reference/kv/kv-plugin.ts';
import {
  defaultWriteDeadlineMs,
  missedWriteDeadline,
  type WriteDeadline,
  withWriteDeadline,
} from '../../../src/reference/kv/write-deadline.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import { startTestRedis, uniqueKey } from '../../support/reference-fixture.ts';

describe('withWriteDeadline', () => {
  it('hands the client one signal and turns its own timer off', async () => {
    const seen: WriteDeadline[] = [];
    const result = await withWriteDeadline(1_000, async (deadline) => {
      seen.push(deadline);
      return 'sent';
    });
    expect(result).toBe('sent');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.timeout).toBe(0);
    expect(seen[0]!.abortSignal).toBeInstanceOf(AbortSignal);
  });

  it('aborts the signal once the deadline passes while the commands are pending', async () => {
    const started = performance.now();
    const abortedAfter = await withWriteDeadline(
      50,
      (deadline) =>
        new Promise<number>((resolve) =>
          deadline.abortSignal.addEventListener('abort', () => resolve(performance.now() - started)),
        ),
    );
    expect(abortedAfter).toBeGreaterThanOrEqual(49);
  });

  it('ends its timer when the commands settle: the signal never aborts afterwards', async () => {
    let signal: AbortSignal | undefined;
    await withWriteDeadline(30, async (deadline) => {
      signal = deadline.abortSignal;
    });
    await expect(
      withWriteDeadline(30, async (deadline) => {
        signal = deadline.abortSignal;
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await sleep(80);
    expect(signal?.aborted).toBe(false);
  });
});

describe('missedWriteDeadline', () => {
  it('names the deadline for a command the client dropped, and nothing for other failures', () => {
    expect(missedWriteDeadline(new AbortError(), 250)).toBe('not written to Redis within 250 ms');
    expect(missedWriteDeadline(new AbortError(), defaultWriteDeadlineMs)).toBe('not written to Redis within 5000 ms');
    expect(missedWriteDeadline(new Error('Socket closed unexpectedly'), 250)).toBeUndefined();
    expect(missedWriteDeadline('text', 250)).toBeUndefined();
  });

  it('keeps the client default of 5 s as the default deadline', () => {
    expect(defaultWriteDeadlineMs).toBe(5_000);
  });
});

/** Short, so a test waits little; far below the 5 s default, so the answer shows which one applied. */
const deadlineMs = 300;
const standard = { kind: 'standard' } as const;
const args = (...parts: (string | Buffer)[]) => parts.map((part) => (Buffer.isBuffer(part) ? part : Buffer.from(part)));
/** Far more than the socket buffers hold (~4 MB on loopback), so a frozen Redis leaves most unwritten. */
const clog = Buffer.alloc(2 << 20, 0x61);
const clogCount = 16;
const missed = `ERR backing store unavailable: not written to Redis within ${deadlineMs} ms`;

interface KvService {
  readonly engine: KvEngine;
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

/** Area B as reference-service.ts assembles it, but with a short write deadline. */
async function startKvService(redisUrl: string): Promise<KvService> {
  const kv: KvArea = await startKvArea({ redisUrl, maxRequestBytes: 10 << 20, writeDeadlineMs: deadlineMs });
  let app: FastifyInstance | undefined;
  try {
    app = Fastify({ rewriteUrl: () => '/', logger: false, forceCloseConnections: true });
    await app.register(kvPlugin, kv.plugin);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('the test server has no TCP address');
    const running = app;
    return {
      engine: kv.engine,
      url: `http://127.0.0.1:${address.port}`,
      token: kv.tokens.database.token,
      close: async () => {
        await running.close();
        await kv.close();
      },
    };
  } catch (error) {
    await app?.close();
    await kv.close();
    throw error;
  }
}

describe('the write deadline on a frozen Redis', () => {
  let redis: RedisBacking | undefined;
  let service: KvService | undefined;
  /** The test's own connection, to look at what Redis holds after it thaws. */
  let probe: ReturnType<typeof createClient> | undefined;
  let redisPid: number | undefined;
  const thaw = () => {
    if (redisPid !== undefined) process.kill(redisPid, 'SIGCONT');
  };
  const freeze = () => {
    if (redisPid === undefined) throw new Error('no redis-server pid');
    process.kill(redisPid, 'SIGSTOP');
  };
  const exists = async (keys: readonly string[]) =>
    Promise.all(keys.map(async (key) => Number(await probe!.sendCommand(['EXISTS', key]))));

  beforeAll(async () => {
    redis = await startTestRedis();
    probe = createClient({ url: redis.url, RESP: 2 });
    probe.on('error', () => {});
    await probe.connect();
    const info = String(await probe.sendCommand(['INFO', 'server']));
    redisPid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
    expect(redisPid).toBeGreaterThan(0);
    service = await startKvService(redis.url);
  });
  // A failed check must never leave the server stopped: it could not be stopped itself, nor answer others.
  afterEach(thaw);
  afterAll(async () => {
    thaw();
    await service?.close();
    probe?.destroy();
    await redis?.stop();
  });

  it('gives the commands of a request no per-command timers of their own', async () => {
    const timers = vi.spyOn(AbortSignal, 'timeout');
    try {
      const { engine } = service!;
      const key = uniqueKey('timers');
      const commands = Array.from({ length: 100 }, (_, i) => args('SET', `${key}:${i}`, 'v'));
      expect((await engine.runOne(args('SET', key, 'v'), standard)).kind).toBe('reply');
      const pipeline = await engine.runPipeline(commands, standard);
      expect(pipeline.every((outcome) => outcome.kind === 'reply')).toBe(true);
      const transaction = await engine.runTransaction(commands, standard);
      expect(transaction.kind).toBe('results');
      // Without the shared deadline the client makes one AbortSignal.timeout per command (201 here).
      expect(timers).not.toHaveBeenCalled();
    } finally {
      timers.mockRestore();
    }
  });

  it('drops what is unwritten at the deadline, answers 500 while Redis is frozen, and never runs it', async () => {
    const { engine } = service!;
    await probe!.sendCommand(['FLUSHALL']);
    const prefix = uniqueKey('pipe');
    const keys = Array.from({ length: clogCount }, (_, i) => `${prefix}:${i}`);
    const single = uniqueKey('single');

    freeze();
    // One pipeline fills the shared connection; its commands are queued together, so share one deadline.
    const pipeline = engine.runPipeline(
      keys.map((key) => args('SET', key, clog)),
      standard,
    );
    await nextTurn();
    await nextTurn();
    // A request queued behind it cannot be written while Redis is frozen: it must answer, not hang.
    const started = performance.now();
    const res = await httpRequest({
      url: `${service!.url}/set/${single}/v`,
      headers: { authorization: `Bearer ${service!.token}` },
      timeoutMs: 10_000,
    });
    const waited = performance.now() - started;
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ error: missed });
    expect(waited).toBeGreaterThanOrEqual(deadlineMs);
    expect(waited).toBeLessThan(defaultWriteDeadlineMs);

    thaw();
    const outcomes = await pipeline;
    const ran = outcomes.filter((outcome) => outcome.kind === 'reply');
    const dropped = outcomes.filter(
      (outcome): outcome is Extract<Outcome, { kind: 'error' }> => outcome.kind === 'error',
    );
    // The frozen Redis must have left some written and some not, or this test showed nothing.
    expect(ran.length).toBeGreaterThan(0);
    expect(dropped.length).toBeGreaterThan(0);
    expect(ran.every((outcome) => outcome.kind === 'reply' && outcome.reply === 'OK')).toBe(true);
    expect(new Set(dropped.map((outcome) => outcome.error))).toEqual(new Set([missed]));
    // One deadline drops everything still unwritten at once: always the tail of what was sent.
    expect(outcomes.map((outcome) => outcome.kind)).toEqual([...ran.map(() => 'reply'), ...dropped.map(() => 'error')]);

    expect(await exists(keys)).toEqual(outcomes.map((outcome) => (outcome.kind === 'reply' ? 1 : 0)));
    expect(await exists([single])).toEqual([0]);
    expect(Number(await probe!.sendCommand(['DBSIZE']))).toBe(ran.length);
  });

  it('discards a transaction whose commands missed the deadline, and leaves its connection clean', async () => {
    const { engine } = service!;
    await probe!.sendCommand(['FLUSHALL']);
    const prefix = uniqueKey('tx');
    const keys = Array.from({ length: clogCount }, (_, i) => `${prefix}:${i}`);

    freeze();
    const transaction = engine.runTransaction(
      keys.map((key) => args('SET', key, clog)),
      standard,
    );
    // Well past the deadline (its timer starts once a pooled connection is taken, at once here).
    await sleep(deadlineMs * 3);
    thaw();
    expect(await transaction).toEqual({ kind: 'discarded', errorKind: 'unavailable', error: missed });
    // MULTI and the first commands were written and queued, but EXEC was not: none of them ran.
    expect(await exists(keys)).toEqual(keys.map(() => 0));
    expect(Number(await probe!.sendCommand(['DBSIZE']))).toBe(0);

    // Each pooled connection answers a new transaction with its own results only (no MULTI left open).
    for (let i = 0; i < 4; i++) {
      const key = `${prefix}:after:${i}`;
      const res = await httpRequest({
        url: `${service!.url}/multi-exec`,
        method: 'POST',
        headers: { authorization: `Bearer ${service!.token}` },
        body: JSON.stringify([
          ['SET', key, 'v'],
          ['GET', key],
        ]),
        timeoutMs: 10_000,
      });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.toString('utf8'))).toEqual([{ result: 'OK' }, { result: 'v' }]);
    }
    expect(Number(await probe!.sendCommand(['DBSIZE']))).toBe(4);
  });
});
