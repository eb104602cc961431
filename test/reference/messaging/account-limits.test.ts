/**
 * The reference's account limits on what area A keeps, through its HTTP against real receivers on
 * loopback: max_queues (a new queue, by upsert or by a first enqueue, is a 400 naming the limit and
 * nothing of it is kept; queues held keep working; concurrent creates do not pass it) and
 * max_dlq_size (the dead letter queue keeps the newest entries, dropping the oldest). Each test
 * lowers the limit for its length only, relative to what the reference holds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { callMessaging, publish } from '../../support/messaging-client.ts';
import { type Receiver, startReceiver } from '../../support/receiver.ts';
import { setAccountLimits, startTestRedis, startTestReference } from '../../support/reference-fixture.ts';

let redis: RedisBacking;
let ref: RunningReference;
let sink: Receiver;
let n = 0;
/** A name of its own for each use (a queue name, and a path prefix no other use starts with). */
const fresh = (label: string) => `${label}-${++n}`;
const call = (p: string, options: Parameters<typeof callMessaging>[2] = {}) => callMessaging(ref.target, p, options);
const get = (p: string) => call(p, { method: 'GET' });
const upsertQueue = (queueName: string, parallelism = 1) => call('/v2/queues', { body: { queueName, parallelism } });
const enqueue = (queue: string, dest: string, headers: Record<string, string> = {}) =>
  call(`/v2/enqueue/${queue}/${sink.url}/${dest}/`, { headers, body: `to ${queue}` });
const queueCount = async () => (((await get('/v2/queues')).json as unknown[]) ?? []).length;
const deadLetters = async () => ((await get('/v2/dlq')).json as { messages: { dlqId: string }[] }).messages;

beforeAll(async () => {
  redis = await startTestRedis();
  ref = await startTestReference(redis, {
    areas: ['messaging', 'management'],
    messaging: { retryBackoff: { kind: 'base', ms: 10 } },
  });
  sink = await startReceiver();
});

afterAll(async () => {
  await ref?.stop();
  await sink?.close();
  await redis?.stop();
});

const setAccount = (patch: Record<string, number>) => setAccountLimits(ref, patch);

/** Runs `body` with the account's `field` at `value`, then puts `restore` back. */
async function withLimit<T>(field: string, value: number, restore: number, body: () => Promise<T>): Promise<T> {
  await setAccount({ [field]: value });
  try {
    return await body();
  } finally {
    await setAccount({ [field]: restore });
  }
}

describe('max_queues', () => {
  test('a new queue past it is a 400 naming the limit, by upsert and by a first enqueue; nothing of it is kept, not even its deduplication id', async () => {
    const held = await queueCount();
    const [a, b, c, d] = [fresh('qa'), fresh('qb'), fresh('qc'), fresh('qd')];
    await withLimit('max_queues', held + 2, 1000, async () => {
      expect((await upsertQueue(a)).status).toBe(200);
      expect((await enqueue(b, fresh('dest'))).status).toBe(200);
      const created = await upsertQueue(c);
      expect(created.status).toBe(400);
      expect(created.json).toEqual({ error: `a new queue "${c}" exceeds the plan's max_queues of ${held + 2}` });
      const enqueued = await enqueue(d, fresh('dest'), { 'Svc-Deduplication-Id': `dedup-${d}` });
      expect(enqueued.status).toBe(400);
      expect((enqueued.json as { error: string }).error).toMatch(/max_queues of \d+/);
      expect((await get(`/v2/queues/${c}`)).status).toBe(404);
      expect((await get(`/v2/queues/${d}`)).status).toBe(404);
      expect(await queueCount()).toBe(held + 2);
    });
    // The refused enqueue stored no deduplication id: the same one is a new message once there is room.
    const again = await enqueue(d, fresh('dest'), { 'Svc-Deduplication-Id': `dedup-${d}` });
    expect(again.status).toBe(200);
    expect(again.json).not.toHaveProperty('deduplicated');
  });

  test('queues held keep working at the limit: upsert changes them, enqueue delivers; a deleted queue makes room', async () => {
    const held = await queueCount();
    const [a, b] = [fresh('held'), fresh('next')];
    const dest = fresh('held-dest');
    await withLimit('max_queues', held + 1, 1000, async () => {
      expect((await upsertQueue(a)).status).toBe(200);
      expect((await upsertQueue(b)).status).toBe(400);
      expect((await upsertQueue(a, 3)).status).toBe(200);
      expect((await get(`/v2/queues/${a}`)).json).toMatchObject({ name: a, parallelism: 3 });
      expect((await enqueue(a, dest)).status).toBe(200);
      await sink.waitFor(`/${dest}/`, 1, 10_000);
      expect((await call(`/v2/queues/${a}`, { method: 'DELETE' })).status).toBe(200);
      expect((await upsertQueue(b)).status).toBe(200);
    });
  });

  test('concurrent creates do not pass it: of many new queues at once, by upsert and by enqueue, exactly the room is made', async () => {
    const held = await queueCount();
    const room = 3;
    await withLimit('max_queues', held + room, 1000, async () => {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          i % 2 === 0 ? upsertQueue(fresh('race')) : enqueue(fresh('race'), fresh('race-dest')),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(room);
      expect(statuses.filter((status) => status === 400)).toHaveLength(24 - room);
      expect(await queueCount()).toBe(held + room);
    });
  });
});

describe('max_dlq_size', () => {
  test('the dead letter queue never holds more: past it the oldest dead letters are dropped, the newest kept', async () => {
    const before = await deadLetters();
    const limit = before.length + 2;
    const label = fresh('dlq');
    sink.answer(`/${label}/down`, { status: 500 });
    const dlqIds: string[] = [];
    await withLimit('max_dlq_size', limit, 100_000, async () => {
      for (let i = 1; i <= 4; i++) {
        await publish(ref.target, `${sink.url}/${label}/down/${i}`, {
          'Svc-Retries': '0',
          'Svc-Failure-Callback': `${sink.url}/${label}/failure/${i}/`,
        });
        const [failure] = await sink.waitFor(`/${label}/failure/${i}/`, 1, 10_000);
        dlqIds.push(JSON.parse(failure?.body.toString('utf8') ?? '{}').dlqId);
        expect((await deadLetters()).length).toBe(Math.min(before.length + i, limit));
      }
      // Oldest first: what was held before, then the four; the two oldest of them all are gone.
      const all = [...before.map((entry) => entry.dlqId), ...dlqIds];
      expect((await deadLetters()).map((entry) => entry.dlqId)).toEqual(all.slice(-limit));
      for (const dlqId of all.slice(-limit)) expect((await get(`/v2/dlq/${dlqId}`)).status).toBe(200);
      for (const dlqId of all.slice(0, -limit)) expect((await get(`/v2/dlq/${dlqId}`)).status).toBe(404);
    });
  });

  test('many messages failing at once do not pass it either', async () => {
    const limit = (await deadLetters()).length + 3;
    const label = fresh('dlq-burst');
    sink.answer(`/${label}/down`, { status: 500 });
    await withLimit('max_dlq_size', limit, 100_000, async () => {
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          publish(ref.target, `${sink.url}/${label}/down/${i}`, {
            'Svc-Retries': '0',
            'Svc-Failure-Callback': `${sink.url}/${label}/failure/${i}/`,
          }),
        ),
      );
      await sink.waitFor(`/${label}/failure/`, 12, 10_000);
      expect((await deadLetters()).length).toBe(limit);
      const stats = await fetch(`${ref.target.admin?.url}/messaging/stats`, {
        headers: { authorization: `Bearer ${ref.target.admin?.token}` },
      });
      expect(((await stats.json()) as { deadLetters: number }).deadLetters).toBe(limit);
    });
  });
});
