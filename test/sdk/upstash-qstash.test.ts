/**
 * The official messaging SDKs as real clients of the reference in the upstash dialect: `@upstash/qstash`
 * (publish, publishJSON, queues, enqueue, URL groups, messages.get, the dead letter queue's filters
 * and cursor, and its Receiver verifying real deliveries and callbacks)
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

describe('@upstash/qstash URL groups, message records and the dead letter queue', () => {
  test('urlGroups: addEndpoints, get, list, publish to the group (one message per endpoint), removeEndpoints, delete', async () => {
    const name = `sdk-group-${++n}`;
    const [a, b, cb] = [path('group-a'), path('group-b'), path('group-cb')];
    await client.urlGroups.addEndpoints({
      name,
      endpoints: [{ name: 'alpha', url: `${sink.url}${a}` }, { url: `${sink.url}${b}` }],
    });
    const group = await client.urlGroups.get(name);
    expect(group).toMatchObject({
      name,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      endpoints: [{ name: 'alpha', url: `${sink.url}${a}` }, { url: `${sink.url}${b}` }],
    });
    expect((await client.urlGroups.list()).map((item) => item.name)).toContain(name);
    const answer = await client.publishJSON({ urlGroup: name, body: { to: 'all' }, callback: `${sink.url}${cb}` });
    expect(answer).toEqual([
      { messageId: expect.stringMatching(/^msg_/), url: `${sink.url}${a}` },
      { messageId: expect.stringMatching(/^msg_/), url: `${sink.url}${b}` },
    ]);
    for (const dest of [a, b]) {
      const [got] = await sink.waitFor(dest);
      expect(JSON.parse(got?.body.toString() ?? '')).toEqual({ to: 'all' });
      expect(await verify(got)).toBe(true);
    }
    const callbacks = (await sink.waitFor(cb, 2)).map(
      (got) => JSON.parse(got.body.toString()) as Record<string, unknown>,
    );
    expect(callbacks.find((body) => body.url === `${sink.url}${a}`)).toMatchObject({
      topicName: name,
      endpointName: 'alpha',
    });
    expect(callbacks.find((body) => body.url === `${sink.url}${b}`)).toMatchObject({ topicName: name });
    const first = Array.isArray(answer) ? answer[0] : undefined;
    expect(await client.messages.get(first?.messageId ?? '')).toMatchObject({ urlGroup: name, endpointName: 'alpha' });
    await client.urlGroups.removeEndpoints({ name, endpoints: [{ name: 'alpha' }] });
    expect((await client.urlGroups.get(name)).endpoints).toEqual([{ url: `${sink.url}${b}` }]);
    await client.urlGroups.delete(name);
    await expect(client.urlGroups.get(name)).rejects.toThrow(/not found/);
  });

  test('messages.get: the body as text (bodyBase64 only for bytes that are not UTF-8), callback and failureCallback', async () => {
    const dest = path('record');
    const { messageId } = await client.publish({
      url: `${sink.url}${dest}`,
      body: 'héllo ✓',
      delay: 3600,
      callback: `${sink.url}/record-cb`,
      failureCallback: `${sink.url}/record-fcb`,
    });
    const message = await client.messages.get(messageId);
    expect(message).toMatchObject({
      messageId,
      url: `${sink.url}${dest}`,
      body: 'héllo ✓',
      callback: `${sink.url}/record-cb`,
      failureCallback: `${sink.url}/record-fcb`,
    });
    expect(message.bodyBase64).toBeUndefined();
    const binary = new Uint8Array([0xff, 0xfe, 0x41]);
    const other = await client.publish({ url: `${sink.url}${dest}`, body: new Blob([binary]), delay: 3600 });
    const binaryMessage = await client.messages.get(other.messageId);
    expect(binaryMessage.bodyBase64).toBe(Buffer.from(binary).toString('base64'));
    expect(binaryMessage.body).toBeUndefined();
  });

  test('dlq.listMessages: the messageId, url and urlGroup filters, count and the cursor', async () => {
    const dest = path('dlq');
    sink.answer(dest, { status: 500, body: 'failed ✓' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await client.publish({ url: `${sink.url}${dest}`, body: `dead ${i}`, retries: 0 })).messageId);
    }
    await sink.waitFor(dest, 3);
    const byUrl = async () => client.dlq.listMessages({ filter: { url: `${sink.url}${dest}` } });
    for (let i = 0; i < 50 && (await byUrl()).messages.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const all = await byUrl();
    expect(all.messages.map((item) => item.messageId).sort()).toEqual([...ids].sort());
    expect(all.cursor).toBeUndefined();
    expect(all.messages[0]).toMatchObject({ responseStatus: 500, responseBody: 'failed ✓', dlqId: expect.any(String) });
    expect(all.messages.map((item) => item.body).sort()).toEqual(['dead 0', 'dead 1', 'dead 2']);
    const one = await client.dlq.listMessages({ filter: { messageId: ids[1] } });
    expect(one.messages.map((item) => item.messageId)).toEqual([ids[1]]);
    expect((await client.dlq.listMessages({ filter: { urlGroup: 'no-such-group' } })).messages).toEqual([]);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.dlq.listMessages({ filter: { url: `${sink.url}${dest}` }, count: 2, cursor });
      expect(page.messages.length).toBeLessThanOrEqual(2);
      paged.push(...page.messages.map((item) => item.messageId));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(paged.sort()).toEqual([...ids].sort());
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
