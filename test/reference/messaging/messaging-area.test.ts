/**
 * Area A of the reference without faults, against real receivers on loopback: delivery and its
 * headers and signature, retries, callbacks and failure callbacks field by field, dead letters,
 * queues, waiters and notify, keys, authentication, the plan's limits, regions, and what a restart
 * on the same Redis keeps.
 */
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { checkSignature } from '../../../src/sink/sink-signature.ts';
import { callMessaging, publish } from '../../support/messaging-client.ts';
import { type Receiver, startReceiver } from '../../support/receiver.ts';
import { startTestRedis, startTestReference } from '../../support/reference-fixture.ts';

let redis: RedisBacking;
let ref: RunningReference;
let sink: Receiver;
let n = 0;
/** A path of its own for each use, so no two tests read each other's requests. */
const path = (label: string) => `/${label}-${++n}`;
const target = () => ref.target;
const decode = (body: Buffer) => JSON.parse(body.toString('utf8')) as Record<string, unknown>;

beforeAll(async () => {
  redis = await startTestRedis();
  // Area C too: its admin routes change the account's limits, which area A obeys.
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

describe('publish and delivery', () => {
  test('delivers the body, its content type, forwarded headers, the message id, the retry count and a signature', async () => {
    const dest = path('dest');
    const id = await publish(
      target(),
      `${sink.url}${dest}?q=1`,
      { 'content-type': 'application/json', 'Svc-Forward-X-Trace': 'abc' },
      '{"a":1}',
    );
    expect(id).toMatch(/^msg_/);
    const [got] = await sink.waitFor(dest);
    expect(got?.body.toString()).toBe('{"a":1}');
    expect(got?.path).toBe(`${dest}?q=1`);
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['x-trace']).toBe('abc');
    expect(got?.headers['svc-message-id']).toBe(id);
    expect(got?.headers['svc-retried']).toBe('0');
    const keys = (await callMessaging(target(), '/v2/keys', { method: 'GET' })).json as {
      current: string;
      next: string;
    };
    const check = await checkSignature(
      got?.headers['svc-signature'] as string,
      keys,
      `${sink.url}${dest}?q=1`,
      got?.body as Buffer,
      'Svc',
    );
    expect(check).toEqual({ ok: true, key: 'current' });
  });

  test('a destination that is not http(s) is a 400 with an error object', async () => {
    const answer = await callMessaging(target(), '/v2/publish/ftp://example.invalid/x', { body: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: expect.any(String) });
  });

  // Issue 25: each numeric header is held to its siblings' rules. Not-Before had no bound (400 digits
  // became Infinity, 10^20 was taken, a time years past max_delay too) and a zero timeout was taken.
  test.each<{ name: string; headers: Record<string, string>; error: RegExp }>([
    { name: 'Svc-Not-Before of 400 digits', headers: { 'Svc-Not-Before': '9'.repeat(400) }, error: /not a unix time/ },
    { name: 'Svc-Not-Before of 10^20', headers: { 'Svc-Not-Before': `1${'0'.repeat(20)}` }, error: /not a unix time/ },
    {
      name: 'Svc-Not-Before beyond max_delay (a year)',
      headers: { 'Svc-Not-Before': String(Math.floor(Date.now() / 1000) + 2 * 365 * 24 * 3600) },
      error: /beyond the plan's maximum delay of 31536000s/,
    },
    { name: 'Svc-Timeout: 0', headers: { 'Svc-Timeout': '0' }, error: /a timeout must be above 0/ },
    { name: 'Svc-Timeout: 0s', headers: { 'Svc-Timeout': '0s' }, error: /a timeout must be above 0/ },
    {
      name: 'Svc-Callback-Timeout: 0',
      headers: { 'Svc-Callback': 'http://127.0.0.1:9/cb', 'Svc-Callback-Timeout': '0' },
      error: /Svc-Callback-Timeout.*a timeout must be above 0/,
    },
    {
      name: 'Svc-Failure-Callback-Timeout: 0',
      headers: { 'Svc-Failure-Callback': 'http://127.0.0.1:9/cb', 'Svc-Failure-Callback-Timeout': '0ms' },
      error: /Svc-Failure-Callback-Timeout.*a timeout must be above 0/,
    },
  ])('$name is a 400 with an error object', async ({ headers, error }) => {
    const answer = await callMessaging(target(), `/v2/publish/${sink.url}${path('never')}`, { headers, body: 'x' });
    expect(answer.status).toBe(400);
    expect((answer.json as { error: string }).error).toMatch(error);
  });

  test('Svc-Not-Before within max_delay, or already past, is taken', async () => {
    const soon = String(Math.floor(Date.now() / 1000) + 3600);
    const later = await callMessaging(target(), `/v2/publish/${sink.url}${path('later')}`, {
      headers: { 'Svc-Not-Before': soon },
      body: 'x',
    });
    expect(later.status).toBe(200);
    const dest = path('past');
    const past = await callMessaging(target(), `/v2/publish/${sink.url}${dest}`, {
      headers: { 'Svc-Not-Before': '1000' },
      body: 'x',
    });
    expect(past.status).toBe(200);
    expect(await sink.waitFor(dest)).toHaveLength(1);
  });

  test('Svc-Method, Svc-Delay and the deduplication id', async () => {
    const dest = path('method');
    const started = Date.now();
    const first = await publish(target(), `${sink.url}${dest}`, {
      'Svc-Method': 'PUT',
      'Svc-Delay': '300ms',
      'Svc-Deduplication-Id': dest,
    });
    const again = await callMessaging(target(), `/v2/publish/${sink.url}${dest}`, {
      headers: { 'Svc-Deduplication-Id': dest },
      body: 'x',
    });
    expect(again.json).toEqual({ messageId: first, deduplicated: true });
    const [got] = await sink.waitFor(dest);
    expect(got?.method).toBe('PUT');
    expect((got?.at ?? 0) - started).toBeGreaterThanOrEqual(280);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.on(dest)).toHaveLength(1);
  });

  test('a failed attempt is retried with Svc-Retried counting up, and the callback follows every answer', async () => {
    const dest = path('flaky');
    const cb = path('cb');
    sink.answer(dest, { failFirst: 1, body: 'second time lucky' });
    const id = await publish(
      target(),
      `${sink.url}${dest}`,
      { 'Svc-Callback': `${sink.url}${cb}`, 'Svc-Retries': '2' },
      'b',
    );
    const attempts = await sink.waitFor(dest, 2);
    expect(attempts.map((item) => item.headers['svc-retried'])).toEqual(['0', '1']);
    const callbacks = await sink.waitFor(cb, 2);
    const bodies = callbacks.map((item) => decode(item.body)).sort((a, b) => Number(a.retried) - Number(b.retried));
    expect(bodies.map((body) => body.status)).toEqual([500, 200]);
    const last = bodies[1] as Record<string, unknown>;
    expect(last).toMatchObject({
      status: 200,
      body: Buffer.from('second time lucky').toString('base64'),
      retried: 1,
      maxRetries: 2,
      sourceMessageId: id,
      url: `${sink.url}${dest}`,
      method: 'POST',
      sourceBody: Buffer.from('b').toString('base64'),
    });
    expect(last.header).toEqual(expect.objectContaining({ date: [expect.any(String)] }));
    expect(typeof last.sourceHeader).toBe('object');
    expect(String(last.notBefore)).toMatch(/^\d+$/);
    expect(String(last.createdAt)).toMatch(/^\d+$/);
    expect(typeof last.notBefore).toBe('string');
    expect(typeof last.callerIP).toBe('string');
    expect(last).not.toHaveProperty('dlqId');
    expect(JSON.stringify(last.sourceHeader)).not.toContain(ref.target.messaging?.token ?? '-');
  });

  test('exhausted retries: one failure callback with a dlqId naming the dead letter, after every attempt', async () => {
    const dest = path('down');
    const cb = path('cb');
    const fcb = path('fcb');
    sink.answer(dest, { status: 503, body: 'down' });
    const id = await publish(target(), `${sink.url}${dest}`, {
      'Svc-Retries': '2',
      'Svc-Callback': `${sink.url}${cb}`,
      'Svc-Failure-Callback': `${sink.url}${fcb}`,
      'Svc-Failure-Callback-Method': 'PUT',
      'Svc-Failure-Callback-Forward-X-Why': 'because',
      'Svc-Callback-Forward-X-Cb': 'yes',
    });
    await sink.waitFor(dest, 3);
    const [failure] = await sink.waitFor(fcb, 1);
    const callbacks = await sink.waitFor(cb, 3);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sink.on(fcb)).toHaveLength(1);
    expect(sink.on(dest)).toHaveLength(3);
    expect(failure?.method).toBe('PUT');
    expect(failure?.headers['x-why']).toBe('because');
    expect(callbacks.every((item) => item.headers['x-cb'] === 'yes')).toBe(true);
    const body = decode(failure?.body as Buffer);
    expect(body).toMatchObject({ status: 503, retried: 2, maxRetries: 2, sourceMessageId: id });
    expect(body.dlqId).toEqual(expect.any(String));
    const entry = await callMessaging(target(), `/v2/dlq/${String(body.dlqId)}`, { method: 'GET' });
    expect(entry.status).toBe(200);
    expect(entry.json).toMatchObject({ messageId: id, responseStatus: 503 });
    const message = await callMessaging(target(), `/v2/messages/${id}`, { method: 'GET' });
    expect(message.json).toMatchObject({ state: 'failed', dlqId: body.dlqId });
  });

  test('the callback configuration headers: method, delay, retries', async () => {
    const dest = path('dest');
    const cb = path('cb');
    sink.answer(cb, { status: 500 });
    const started = Date.now();
    await publish(target(), `${sink.url}${dest}`, {
      'Svc-Callback': `${sink.url}${cb}`,
      'Svc-Callback-Method': 'PATCH',
      'Svc-Callback-Delay': '200ms',
      'Svc-Callback-Retries': '1',
      'Svc-Callback-Timeout': '5s',
    });
    const callbacks = await sink.waitFor(cb, 2);
    expect(callbacks.map((item) => item.method)).toEqual(['PATCH', 'PATCH']);
    expect((callbacks[0]?.at ?? 0) - started).toBeGreaterThanOrEqual(190);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sink.on(cb)).toHaveLength(2);
  });

  test('an unreachable destination is retried, and its failure callback has status 0', async () => {
    const fcb = path('fcb');
    await publish(target(), 'http://127.0.0.1:9/refused', {
      'Svc-Retries': '1',
      'Svc-Failure-Callback': `${sink.url}${fcb}`,
    });
    const [failure] = await sink.waitFor(fcb);
    expect(decode(failure?.body as Buffer)).toMatchObject({ status: 0, retried: 1, maxRetries: 1, body: '' });
  });
});

describe('authentication, errors and limits', () => {
  test('no token, a wrong token: 401 with an error object; the svc_token query parameter works', async () => {
    for (const token of [null, 'wrong']) {
      const answer = await callMessaging(target(), '/v2/keys', { method: 'GET', token });
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ error: expect.any(String) });
    }
    const query = await callMessaging(
      target(),
      `/v2/keys?svc_token=${encodeURIComponent(target().messaging?.token ?? '')}`,
      {
        method: 'GET',
        token: null,
      },
    );
    expect(query.status).toBe(200);
  });

  test('every operation refuses missing, wrong and malformed credentials with 401 and an error object, and does nothing', async () => {
    const token = target().messaging?.token ?? '';
    const queue = `auth-queue-${++n}`;
    expect((await callMessaging(target(), '/v2/queues', { body: { queueName: queue, parallelism: 1 } })).status).toBe(
      200,
    );
    const keysBefore = (await callMessaging(target(), '/v2/keys', { method: 'GET' })).json;
    const dest = path('refused');
    const operations = [
      `/v2/publish/${sink.url}${dest}`,
      `/v2/enqueue/${queue}/${sink.url}${dest}`,
      '/v2/keys/rotate',
      `/v2/queues/${queue}/pause`,
      `/v2/notify/auth-event-${n}`,
      `/v2/notify/auth-run-${n}/auth-event-${n}`,
    ];
    const credentials: { token: string | null; headers?: Record<string, string>; query?: string }[] = [
      { token: null },
      { token: 'wrong' },
      { token: null, headers: { authorization: 'Bearer' } },
      { token: null, headers: { authorization: `Token ${token}` } },
      { token: null, query: 'svc_token=wrong' },
    ];
    for (const operation of operations) {
      for (const credential of credentials) {
        const url = credential.query === undefined ? operation : `${operation}?${credential.query}`;
        const answer = await callMessaging(target(), url, {
          token: credential.token,
          ...(credential.headers && { headers: credential.headers }),
          body: 'refused',
        });
        expect(answer.status, `${url} ${JSON.stringify(credential.headers ?? credential.token)}`).toBe(401);
        expect(answer.json).toEqual({ error: expect.any(String) });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.on(dest)).toHaveLength(0);
    expect((await callMessaging(target(), '/v2/keys', { method: 'GET' })).json).toEqual(keysBefore);
    expect((await callMessaging(target(), `/v2/queues/${queue}`, { method: 'GET' })).json).toMatchObject({
      paused: false,
    });
  });

  test('a notify armed through the admin hook fails inside the service: 500 with an error object, once, for that event id', async () => {
    const admin = ref.target.admin;
    const arm = await fetch(`${admin?.url}/messaging/fail-notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin?.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventId: 'armed-event' }),
    });
    expect(arm.status).toBe(200);
    expect((await callMessaging(target(), '/v2/notify/other-event', { body: 'x' })).status).toBe(201);
    const failed = await callMessaging(target(), '/v2/notify/armed-event', { body: 'x' });
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({ error: expect.any(String) });
    expect((await callMessaging(target(), '/v2/notify/armed-event', { body: 'x' })).status).toBe(201);
    const refused = await fetch(`${admin?.url}/messaging/fail-notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin?.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(refused.status).toBe(400);
  });

  test('a message above the plan’s maximum message size is refused with an error object', async () => {
    const answer = await callMessaging(target(), `/v2/publish/${sink.url}${path('big')}`, {
      body: Buffer.alloc(52_428_801, 1),
    });
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({ error: expect.stringContaining('52428800') });
  });

  test('beyond the plan’s requests per second: 429 with an error object', async () => {
    await setAccount({ max_requests_per_second: 5 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => callMessaging(target(), '/v2/keys', { method: 'GET' })),
      );
      const limited = answers.filter((answer) => answer.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      expect(limited[0]?.json).toEqual({ error: expect.any(String) });
    } finally {
      await setAccount({ max_requests_per_second: 500 });
    }
  });
});

/** Changes the account's limits through the admin endpoint, then waits out area A's cache of them. */
async function setAccount(patch: Record<string, number>): Promise<void> {
  const admin = ref.target.admin;
  const res = await fetch(`${admin?.url}/account`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${admin?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(patch),
  });
  expect(res.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 600));
}

describe('keys', () => {
  test('rotation makes next current and issues a fresh next; GET /v2/keys follows', async () => {
    const before = (await callMessaging(target(), '/v2/keys', { method: 'GET' })).json as {
      current: string;
      next: string;
    };
    const rotated = await callMessaging(target(), '/v2/keys/rotate');
    expect(rotated.status).toBe(200);
    const after = rotated.json as { current: string; next: string };
    expect(after.current).toBe(before.next);
    expect(after.next).not.toBe(before.next);
    expect(after.next).not.toBe(before.current);
    expect((await callMessaging(target(), '/v2/keys', { method: 'GET' })).json).toEqual(after);
  });
});

describe('queues', () => {
  test('a paused queue accepts and holds messages, pausing again changes nothing, and resume delivers them in order', async () => {
    const queue = `q${++n}`;
    const dest = path('queued');
    expect((await callMessaging(target(), '/v2/queues', { body: { queueName: queue, parallelism: 1 } })).status).toBe(
      200,
    );
    expect((await callMessaging(target(), `/v2/queues/${queue}/pause`)).status).toBe(200);
    for (const i of [1, 2, 3]) {
      const answer = await callMessaging(target(), `/v2/enqueue/${queue}/${sink.url}${dest}`, { body: `m${i}` });
      expect(answer.status).toBe(200);
    }
    const again = await callMessaging(target(), `/v2/queues/${queue}/pause`);
    expect(again.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.on(dest)).toHaveLength(0);
    const held = (await callMessaging(target(), `/v2/queues/${queue}`, { method: 'GET' })).json;
    expect(held).toMatchObject({ name: queue, paused: true, lag: 3, parallelism: 1 });
    expect((await callMessaging(target(), `/v2/queues/${queue}/resume`)).status).toBe(200);
    const got = await sink.waitFor(dest, 3);
    expect(got.map((item) => item.body.toString())).toEqual(['m1', 'm2', 'm3']);
  });

  test('callbacks are accepted on enqueue', async () => {
    const queue = `q${++n}`;
    const cb = path('cb');
    await callMessaging(target(), `/v2/enqueue/${queue}/${sink.url}${path('dest')}`, {
      headers: { 'Svc-Callback': `${sink.url}${cb}` },
      body: 'x',
    });
    const [callback] = await sink.waitFor(cb);
    expect(decode(callback?.body as Buffer).status).toBe(200);
  });

  test('pausing an unknown queue is a 404 with an error object', async () => {
    const answer = await callMessaging(target(), '/v2/queues/no-such-queue/pause');
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: expect.any(String) });
  });
});

describe('waiters and notify', () => {
  const wait = (eventId: string, runId: string, body: Record<string, unknown>) =>
    callMessaging(target(), `/v2/wait/${eventId}`, { headers: { 'Svc-Workflow-Runid': runId }, body });

  test('notify answers 201 with one item per waiter, every field typed, and each waiter gets the event data', async () => {
    const event = `ev-${++n}`;
    const a = path('waiter-a');
    const b = path('waiter-b');
    expect((await wait(event, 'run-a', { url: `${sink.url}${a}`, headers: { 'X-Step': 'one' } })).status).toBe(201);
    expect((await wait(event, 'run-b', { url: `${sink.url}${b}`, timeoutUrl: `${sink.url}/never` })).status).toBe(201);
    const listed = (await callMessaging(target(), `/v2/waiters/${event}`, { method: 'GET' })).json as unknown[];
    expect(listed).toHaveLength(2);
    const answer = await callMessaging(target(), `/v2/notify/${event}`, {
      headers: { 'content-type': 'text/plain' },
      body: 'the event',
    });
    expect(answer.status).toBe(201);
    const items = answer.json as Record<string, unknown>[];
    expect(items).toHaveLength(2);
    for (const item of items) {
      expect(item).toMatchObject({
        messageId: expect.any(String),
        deduplicated: false,
        workflowRunId: expect.any(String),
        workflowCreatedAt: expect.any(Number),
      });
      const waiter = item.waiter as Record<string, unknown>;
      expect(waiter).toMatchObject({
        url: expect.any(String),
        deadline: expect.any(Number),
        timeoutBody: expect.any(String),
        timeoutUrl: expect.any(String),
        timeoutHeaders: expect.any(Object),
      });
      const headers = waiter.headers as Record<string, unknown>;
      expect(headers['Svc-Workflow-Runid']).toEqual([item.workflowRunId]);
      expect(headers['Svc-Workflow-Url']).toEqual([expect.any(String)]);
      expect(Number.isInteger(waiter.deadline)).toBe(true);
      expect(Number(waiter.deadline)).toBeLessThan(1e11);
    }
    const [gotA] = await sink.waitFor(a);
    const [gotB] = await sink.waitFor(b);
    expect(gotA?.body.toString()).toBe('the event');
    expect(gotB?.body.toString()).toBe('the event');
    expect(gotA?.headers['x-step']).toBe('one');
    expect((await callMessaging(target(), `/v2/waiters/${event}`, { method: 'GET' })).json).toEqual([]);
  });

  test('with nobody waiting the event is lost: an empty array, and a later waiter never gets it', async () => {
    const event = `ev-${++n}`;
    const answer = await callMessaging(target(), `/v2/notify/${event}`, { body: 'lost' });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual([]);
    const late = path('late');
    await wait(event, 'run-late', { url: `${sink.url}${late}` });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.on(late)).toHaveLength(0);
  });

  test('notify by run keeps the event until that run waits', async () => {
    const event = `ev-${++n}`;
    const run = `run-${n}`;
    const answer = await callMessaging(target(), `/v2/notify/${run}/${event}`, { body: 'for the run' });
    expect(answer.status).toBe(201);
    const step = path('step');
    const waited = await wait(event, run, { url: `${sink.url}${step}` });
    expect(waited.json).toMatchObject({ notified: true });
    const [got] = await sink.waitFor(step);
    expect(got?.body.toString()).toBe('for the run');
  });

  test('an invalid event id is a 400 with an error object', async () => {
    for (const id of ['has%20space', 'x'.repeat(257)]) {
      const answer = await callMessaging(target(), `/v2/notify/${id}`, { body: 'x' });
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({ error: expect.any(String) });
    }
  });

  test('at its deadline a waiter ends with the timeout request to its timeoutUrl', async () => {
    const event = `ev-${++n}`;
    const timeout = path('timeout');
    await wait(event, 'run-t', {
      url: `${sink.url}${path('never')}`,
      timeout: '300ms',
      timeoutUrl: `${sink.url}${timeout}`,
      timeoutBody: Buffer.from('timed out').toString('base64'),
      timeoutHeaders: { 'X-Timeout': ['yes'] },
    });
    const [got] = await sink.waitFor(timeout, 1, 5000);
    expect(got?.body.toString()).toBe('timed out');
    expect(got?.headers['x-timeout']).toBe('yes');
    expect((await callMessaging(target(), `/v2/waiters/${event}`, { method: 'GET' })).json).toEqual([]);
  });
});

describe('where the state lives', () => {
  test('in the Redis database after area B’s: area B’s commands never see the account or the messages', async () => {
    await publish(target(), `${sink.url}${path('db')}`);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      expect(await client.keys('svc:ref:*')).toEqual([]);
      await client.select(1);
      expect((await client.keys('svc:ref:*')).length).toBeGreaterThan(0);
    } finally {
      client.destroy();
    }
  });
});

describe('where the state lives, with a database in the Redis URL', () => {
  test('area B on database 3: areas A and C on database 4', async () => {
    const on3 = await startTestReference(redis, { redisUrl: `${redis.url}/3`, areas: ['kv', 'messaging'] });
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await callMessaging(on3.target, '/v2/keys', { method: 'GET' });
      await client.select(3);
      expect(await client.keys('svc:ref:*')).toEqual([]);
      await client.select(4);
      expect((await client.keys('svc:ref:*')).length).toBeGreaterThan(0);
    } finally {
      client.destroy();
      await on3.stop();
    }
  });
});

describe('the account without area C', () => {
  test('a reference serving area A alone offers the account’s admin routes, and A obeys them', async () => {
    const alone = await startTestReference(redis, { redisUrl: `${redis.url}/8`, areas: ['messaging'] });
    try {
      const admin = alone.target.admin;
      const put = await fetch(`${admin?.url}/account`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin?.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ max_message_size: 10 }),
      });
      expect(put.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const big = await callMessaging(alone.target, `/v2/publish/${sink.url}${path('alone')}`, {
        body: 'x'.repeat(11),
      });
      expect(big.status).toBe(413);
    } finally {
      await alone.stop();
    }
  });
});

describe('regions and restarts', () => {
  test('each region has its own base URL, and a region latency delays only that region', async () => {
    const regional = await startTestReference(redis, {
      areas: ['messaging'],
      messaging: { regions: ['eu-central-1', 'us-east-1'], regionLatencyMs: { 'us-east-1': 150 } },
    });
    try {
      const regions = regional.target.messaging?.regions ?? {};
      expect(Object.keys(regions).sort()).toEqual(['eu-central-1', 'us-east-1']);
      expect(regional.target.messaging?.url).toBe(regions['eu-central-1']);
      const timed = async (baseUrl: string | undefined) => {
        const started = performance.now();
        const answer = await callMessaging(regional.target, '/v2/keys', { method: 'GET', ...(baseUrl && { baseUrl }) });
        expect(answer.status).toBe(200);
        return performance.now() - started;
      };
      expect(await timed(regions['us-east-1'])).toBeGreaterThanOrEqual(145);
      // The fastest of three: a busy machine (CI runs the suites two at a time on two cores) may hold one
      // request past 145 ms; the delay of the other region holds every request, so it shows in all three.
      const others = [];
      for (let i = 0; i < 3; i++) others.push(await timed(regions['eu-central-1']));
      expect(Math.min(...others)).toBeLessThan(145);
    } finally {
      await regional.stop();
    }
  });

  test('a reference started again on the same Redis keeps the token, keys, queues and waiters', async () => {
    const queue = `kept-${++n}`;
    const event = `kept-${n}`;
    await callMessaging(target(), '/v2/queues', { body: { queueName: queue, parallelism: 2, paused: true } });
    await callMessaging(target(), `/v2/wait/${event}`, { body: { url: `${sink.url}/kept` } });
    const keys = (await callMessaging(target(), '/v2/keys', { method: 'GET' })).json;
    const again = await startTestReference(redis, { areas: ['messaging'] });
    try {
      expect(again.target.messaging?.token).toBe(target().messaging?.token);
      expect((await callMessaging(again.target, '/v2/keys', { method: 'GET' })).json).toEqual(keys);
      expect((await callMessaging(again.target, `/v2/queues/${queue}`, { method: 'GET' })).json).toMatchObject({
        parallelism: 2,
        paused: true,
      });
      expect((await callMessaging(again.target, `/v2/waiters/${event}`, { method: 'GET' })).json).toHaveLength(1);
    } finally {
      await again.stop();
    }
  });
});
