/**
 * The official messaging SDKs as real clients of the reference in the upstash dialect: `@upstash/qstash`
 * (publish, publishJSON, queues, enqueue, and its Receiver verifying real deliveries and callbacks)
 * and `@upstash/workflow` (notify and waiters, which the qstash SDK left to it). Every call the SDKs
 * make that the reference answers differently from the real service is a bug in the reference.
 * The qstash SDK 2.12 has no signing-key API, so the keys are read with a plain GET /v2/keys.
 */
import { Client, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient } from '@upstash/workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../src/reference/reference-service.ts';
import { callMessaging } from '../support/messaging-client.ts';
import { type Received, type Receiver as Sink, startReceiver } from '../support/receiver.ts';
import { startTestRedis, startTestReference } from '../support/reference-fixture.ts';

let redis: RedisBacking;
let ref: RunningReference;
let sink: Sink;
let client: Client;
let n = 0;
const path = (label: string) => `/${label}-${++n}`;

beforeAll(async () => {
  redis = await startTestRedis();
  ref = await startTestReference(redis, {
    areas: ['messaging'],
    dialect: 'upstash',
    messaging: { retryBackoff: { kind: 'base', ms: 10 } },
  });
  sink = await startReceiver();
  const messaging = ref.target.messaging;
  client = new Client({ baseUrl: messaging?.url, token: messaging?.token, retry: false });
});

afterAll(async () => {
  await ref?.stop();
  await sink?.close();
  await redis?.stop();
});

async function receiver(): Promise<Receiver> {
  const keys = (await callMessaging(ref.target, '/v2/keys', { method: 'GET' })).json as {
    current: string;
    next: string;
  };
  return new Receiver({ currentSigningKey: keys.current, nextSigningKey: keys.next });
}

/** The SDK's Receiver on one request the reference sent. */
async function verify(got: Received | undefined): Promise<boolean> {
  if (got === undefined) throw new Error('nothing arrived');
  return (await receiver()).verify({
    signature: String(got.headers['upstash-signature']),
    body: got.body.toString('utf8'),
    url: `${sink.url}${got.path}`,
  });
}

describe('@upstash/qstash against the reference', () => {
  test('publish: the message arrives with its forwarded header, and the Receiver verifies it', async () => {
    const dest = path('publish');
    const answer = await client.publish({ url: `${sink.url}${dest}`, body: 'hello', headers: { 'X-Custom': 'v' } });
    expect(answer.messageId).toMatch(/^msg_/);
    const [got] = await sink.waitFor(dest);
    expect(got?.body.toString()).toBe('hello');
    expect(got?.headers['x-custom']).toBe('v');
    expect(got?.headers['upstash-message-id']).toBe(answer.messageId);
    expect(await verify(got)).toBe(true);
  });

  test('publishJSON with a callback and a failure callback: the Receiver verifies both callbacks', async () => {
    const dest = path('json');
    const cb = path('cb');
    const fcb = path('fcb');
    sink.answer(dest, { status: 500 });
    await client.publishJSON({
      url: `${sink.url}${dest}`,
      body: { hello: 'world' },
      retries: 1,
      callback: `${sink.url}${cb}`,
      failureCallback: `${sink.url}${fcb}`,
    });
    const attempts = await sink.waitFor(dest, 2);
    expect(JSON.parse(attempts[0]?.body.toString() ?? '')).toEqual({ hello: 'world' });
    expect(attempts[0]?.headers['content-type']).toBe('application/json');
    const callbacks = await sink.waitFor(cb, 2);
    const [failure] = await sink.waitFor(fcb);
    for (const got of [...callbacks, failure]) expect(await verify(got)).toBe(true);
    expect(JSON.parse(failure?.body.toString() ?? '')).toMatchObject({ status: 500, retried: 1, maxRetries: 1 });
  });

  test('a signature of another body is refused by the Receiver', async () => {
    const dest = path('tamper');
    await client.publish({ url: `${sink.url}${dest}`, body: 'original' });
    const [got] = await sink.waitFor(dest);
    const tampered = { ...(got as Received), body: Buffer.from('changed') };
    await expect(verify(tampered)).rejects.toThrow(/body hash/);
  });

  test('queues: upsert, pause, enqueue and enqueueJSON held, get, resume delivers in order', async () => {
    const queue = client.queue({ queueName: `sdk-q-${++n}` });
    const dest = path('queued');
    await queue.upsert({ parallelism: 1 });
    await queue.pause();
    await queue.pause();
    await queue.enqueue({ url: `${sink.url}${dest}`, body: 'first' });
    await queue.enqueueJSON({ url: `${sink.url}${dest}`, body: { n: 2 } });
    const held = await queue.get();
    expect(held).toMatchObject({ paused: true, lag: 2, parallelism: 1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.on(dest)).toHaveLength(0);
    await queue.resume();
    const got = await sink.waitFor(dest, 2);
    expect(got.map((item) => item.body.toString())).toEqual(['first', '{"n":2}']);
    expect((await queue.get()).paused).toBe(false);
  });
});

describe('@upstash/workflow against the reference', () => {
  test('notify answers one item per waiter with its workflow headers; getWaiters lists them; the waiter gets the event', async () => {
    const workflow = new WorkflowClient({
      baseUrl: ref.target.messaging?.url,
      token: ref.target.messaging?.token ?? '',
    });
    const event = `sdk-event-${++n}`;
    const step = path('step');
    const waited = await callMessaging(ref.target, `/v2/wait/${event}`, {
      headers: { 'Upstash-Workflow-Runid': 'wfr_sdk' },
      body: { url: `${sink.url}${step}`, timeout: '1h' },
    });
    expect(waited.status).toBe(201);
    const waiters = await workflow.getWaiters({ eventId: event });
    expect(waiters).toHaveLength(1);
    const notified = await workflow.notify({ eventId: event, eventData: { ok: true } });
    expect(notified).toHaveLength(1);
    const [item] = notified;
    expect(item?.waiter.headers['Upstash-Workflow-Runid']).toEqual(['wfr_sdk']);
    expect(item?.messageId).toEqual(expect.any(String));
    const [got] = await sink.waitFor(step);
    expect(JSON.parse(got?.body.toString() ?? '')).toEqual({ ok: true });
    expect(await verify(got)).toBe(true);
    expect(await workflow.notify({ eventId: event, eventData: 'nobody waits now' })).toEqual([]);
  });
});
