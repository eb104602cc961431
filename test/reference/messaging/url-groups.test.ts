/**
 * The reference's URL groups (topics) and message records, against real receivers on loopback:
 * upsert, get, list, remove endpoints, delete; the plan's max_topics and max_endpoints_per_topic;
 * a publish and an enqueue to a group fanning out with topicName and endpointName in callbacks and
 * failure callbacks; the message record (text body, bodyBase64, callback URLs, the group); the dead
 * letter queue's filters and cursor; groups kept in Redis across a restart.
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
const path = (label: string) => `/${label}-${++n}`;
const group = (label: string) => `${label}-${++n}`;
const call = (p: string, options: Parameters<typeof callMessaging>[2] = {}) => callMessaging(ref.target, p, options);
const get = (p: string) => call(p, { method: 'GET' });
const decode = (body: Buffer | undefined) => JSON.parse(body?.toString('utf8') ?? 'null') as Record<string, unknown>;

const options = {
  areas: ['messaging', 'management'] as const,
  messaging: { retryBackoff: { kind: 'base' as const, ms: 10 } },
};

beforeAll(async () => {
  redis = await startTestRedis();
  ref = await startTestReference(redis, { ...options, areas: [...options.areas] });
  sink = await startReceiver();
});

afterAll(async () => {
  await ref?.stop();
  await sink?.close();
  await redis?.stop();
});

async function upsert(name: string, endpoints: readonly { name?: string; url: string }[]) {
  return call(`/v2/topics/${name}/endpoints`, { body: { endpoints } });
}

const setAccount = (patch: Record<string, number>) => setAccountLimits(ref, patch);

describe('URL groups', () => {
  test('upsert creates the group, get and list give it, remove endpoints by name or url, delete ends it', async () => {
    const name = group('crud');
    expect(await get(`/v2/topics/${name}`)).toMatchObject({ status: 404, json: { error: expect.any(String) } });
    const added = await upsert(name, [{ name: 'a', url: 'https://a.example/x' }, { url: 'https://b.example/y' }]);
    expect(added.status, added.text).toBe(200);
    await upsert(name, [
      { name: 'a', url: 'https://a2.example/x' },
      { name: 'c', url: 'https://c.example/' },
    ]);
    const got = await get(`/v2/topics/${name}`);
    expect(got.json).toEqual({
      name,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      endpoints: [
        { name: 'a', url: 'https://a2.example/x' },
        { url: 'https://b.example/y' },
        { name: 'c', url: 'https://c.example/' },
      ],
    });
    const listed = (await get('/v2/topics')).json as { name: string }[];
    expect(listed.map((item) => item.name)).toContain(name);
    const removed = await call(`/v2/topics/${name}/endpoints`, {
      method: 'DELETE',
      body: { endpoints: [{ name: 'a' }, { url: 'https://b.example/y' }] },
    });
    expect(removed.status, removed.text).toBe(200);
    expect(((await get(`/v2/topics/${name}`)).json as { endpoints: unknown }).endpoints).toEqual([
      { name: 'c', url: 'https://c.example/' },
    ]);
    expect((await call(`/v2/topics/${name}`, { method: 'DELETE' })).status).toBe(200);
    expect((await get(`/v2/topics/${name}`)).status).toBe(404);
    expect((await call(`/v2/topics/${name}`, { method: 'DELETE' })).status).toBe(404);
  });

  test('bad input is a 400 with an error object', async () => {
    for (const body of [{}, { endpoints: [] }, { endpoints: [{ url: 'ftp://x' }] }, { endpoints: [{ name: 'n' }] }]) {
      const answer = await call(`/v2/topics/${group('bad')}/endpoints`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json).toEqual({ error: expect.any(String) });
    }
    expect((await upsert('bad name!', [{ url: 'https://a.example/' }])).status).toBe(400);
  });

  test('max_endpoints_per_topic and max_topics: 400 naming the limit, nothing kept past it', async () => {
    const name = group('limits');
    const topics = ((await get('/v2/topics')).json as unknown[]).length;
    await setAccount({ max_endpoints_per_topic: 2, max_topics: topics + 1 });
    try {
      expect((await upsert(name, [{ url: 'https://a.example/' }, { url: 'https://b.example/' }])).status).toBe(200);
      const third = await upsert(name, [{ url: 'https://c.example/' }]);
      expect(third.status).toBe(400);
      expect((third.json as { error: string }).error).toMatch(/max_endpoints_per_topic/);
      expect(((await get(`/v2/topics/${name}`)).json as { endpoints: unknown[] }).endpoints).toHaveLength(2);
      const next = group('limits-over');
      const over = await upsert(next, [{ url: 'https://a.example/' }]);
      expect(over.status).toBe(400);
      expect((over.json as { error: string }).error).toMatch(/max_topics/);
      expect((await get(`/v2/topics/${next}`)).status).toBe(404);
    } finally {
      await setAccount({ max_endpoints_per_topic: 100, max_topics: 1000 });
    }
  });

  test('a publish to a group: one message per endpoint, callbacks and failure callbacks carry topicName and endpointName', async () => {
    const name = group('fan');
    const [ok, plain, down, cb, fcb] = [path('ok'), path('plain'), path('down'), path('cb'), path('fcb')];
    sink.answer(down, { status: 500 });
    await upsert(name, [
      { name: 'ok', url: `${sink.url}${ok}` },
      { url: `${sink.url}${plain}` },
      { name: 'down', url: `${sink.url}${down}` },
    ]);
    const answer = await call(`/v2/publish/${name}`, {
      headers: { 'Svc-Retries': '0', 'Svc-Callback': `${sink.url}${cb}`, 'Svc-Failure-Callback': `${sink.url}${fcb}` },
      body: 'to all',
    });
    expect(answer.status, answer.text).toBe(200);
    const items = answer.json as { messageId: string; url: string }[];
    expect(items.map((item) => item.url)).toEqual([`${sink.url}${ok}`, `${sink.url}${plain}`, `${sink.url}${down}`]);
    expect(new Set(items.map((item) => item.messageId)).size).toBe(3);
    for (const dest of [ok, plain, down]) expect((await sink.waitFor(dest))[0]?.body.toString()).toBe('to all');
    const callbacks = (await sink.waitFor(cb, 3)).map((got) => decode(got.body));
    const byUrl = new Map(callbacks.map((body) => [body.url, body]));
    expect(byUrl.get(`${sink.url}${ok}`)).toMatchObject({ topicName: name, endpointName: 'ok', status: 200 });
    expect(byUrl.get(`${sink.url}${plain}`)).toMatchObject({ topicName: name });
    expect(byUrl.get(`${sink.url}${plain}`)).not.toHaveProperty('endpointName');
    expect(byUrl.get(`${sink.url}${down}`)).toMatchObject({ topicName: name, endpointName: 'down', status: 500 });
    const [failure] = await sink.waitFor(fcb);
    expect(decode(failure?.body)).toMatchObject({ topicName: name, endpointName: 'down', dlqId: expect.any(String) });
    const record = await get(`/v2/messages/${items[0]?.messageId}`);
    expect(record.json).toMatchObject({ topicName: name, endpointName: 'ok', body: 'to all' });
  });

  test('an enqueue to a group fans out too; an unknown group is a 404', async () => {
    const name = group('enq');
    const [a, b] = [path('qa'), path('qb')];
    await upsert(name, [{ url: `${sink.url}${a}` }, { url: `${sink.url}${b}` }]);
    const answer = await call(`/v2/enqueue/grp-q-${n}/${name}`, { body: 'queued' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toHaveLength(2);
    await sink.waitFor(a);
    await sink.waitFor(b);
    const unknown = await call(`/v2/publish/no-such-group-${n}`, { body: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: expect.any(String) });
  });

  test('a deduplication id holds per endpoint of a group', async () => {
    const name = group('dedup');
    const [a, b] = [path('da'), path('db')];
    await upsert(name, [{ url: `${sink.url}${a}` }, { url: `${sink.url}${b}` }]);
    const headers = { 'Svc-Deduplication-Id': `dedup-${n}` };
    const first = (await call(`/v2/publish/${name}`, { headers, body: 'x' })).json as { messageId: string }[];
    const again = (await call(`/v2/publish/${name}`, { headers, body: 'x' })).json as {
      messageId: string;
      deduplicated?: boolean;
    }[];
    expect(again.map((item) => item.messageId)).toEqual(first.map((item) => item.messageId));
    expect(again.every((item) => item.deduplicated === true)).toBe(true);
  });
});

describe('message records and the dead letter queue', () => {
  test('the record gives the body as text, bodyBase64 for bytes that are not UTF-8, and the callback URLs', async () => {
    const dest = path('rec');
    const id = await publish(
      ref.target,
      `${sink.url}${dest}`,
      {
        'Svc-Delay': '1h',
        'Svc-Callback': `${sink.url}/cb-rec`,
        'Svc-Failure-Callback': `${sink.url}/fcb-rec`,
      },
      'héllo',
    );
    const record = (await get(`/v2/messages/${id}`)).json as Record<string, unknown>;
    expect(record).toMatchObject({
      messageId: id,
      body: 'héllo',
      callback: `${sink.url}/cb-rec`,
      failureCallback: `${sink.url}/fcb-rec`,
    });
    expect(record).not.toHaveProperty('bodyBase64');
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const binaryId = await publish(ref.target, `${sink.url}${dest}`, { 'Svc-Delay': '1h' }, binary);
    const binaryRecord = (await get(`/v2/messages/${binaryId}`)).json as Record<string, unknown>;
    expect(binaryRecord.bodyBase64).toBe(binary.toString('base64'));
    expect(binaryRecord).not.toHaveProperty('body');
  });

  test('GET /v2/dlq filters by messageId, url, topicName, responseStatus and dates, and pages by cursor', async () => {
    const [a, b] = [path('dlq-a'), path('dlq-b')];
    sink.answer(a, { status: 500, body: 'nope' });
    sink.answer(b, { status: 503 });
    const name = group('dlq');
    await upsert(name, [{ name: 'b', url: `${sink.url}${b}` }]);
    const from = Date.now();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await publish(ref.target, `${sink.url}${a}`, { 'Svc-Retries': '0' }, `a${i}`));
    const grouped = (await call(`/v2/publish/${name}`, { headers: { 'Svc-Retries': '0' }, body: 'b' })).json as {
      messageId: string;
    }[];
    await sink.waitFor(a, 3);
    await sink.waitFor(b, 1);
    const list = async (query: string) => {
      const answer = await get(`/v2/dlq?${query}`);
      expect(answer.status, answer.text).toBe(200);
      return answer.json as { messages: Record<string, unknown>[]; cursor?: string };
    };
    // The dead letters are written just after the last attempt's answer: wait for all four.
    for (let i = 0; i < 50; i++) {
      if ((await list(`fromDate=${from}`)).messages.length >= 4) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const byUrl = await list(`url=${encodeURIComponent(`${sink.url}${a}`)}`);
    expect(byUrl.messages.map((item) => item.messageId).sort()).toEqual([...ids].sort());
    expect(byUrl.messages[0]).toMatchObject({ responseStatus: 500, responseBody: 'nope', body: 'a0' });
    const byId = await list(`messageId=${ids[1]}`);
    expect(byId.messages.map((item) => item.messageId)).toEqual([ids[1]]);
    const byTopic = await list(`topicName=${name}`);
    expect(byTopic.messages.map((item) => item.messageId)).toEqual([grouped[0]?.messageId]);
    expect(byTopic.messages[0]).toMatchObject({ topicName: name, endpointName: 'b' });
    expect((await list(`responseStatus=503&fromDate=${from}`)).messages).toHaveLength(1);
    expect((await list(`responseStatus=500&responseStatus=503&fromDate=${from}`)).messages).toHaveLength(4);
    expect((await list(`toDate=${from - 1}&url=${encodeURIComponent(`${sink.url}${a}`)}`)).messages).toHaveLength(0);
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(`fromDate=${from}&count=1${cursor === undefined ? '' : `&cursor=${cursor}`}`);
      expect(page.messages.length).toBeLessThanOrEqual(1);
      pages.push(...page.messages.map((item) => String(item.messageId)));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(pages.sort()).toEqual([...ids, grouped[0]?.messageId].sort());
    expect((await get('/v2/dlq?cursor=not-ours')).status).toBe(400);
    expect((await get('/v2/dlq?count=x')).status).toBe(400);
  });
});

describe('durability', () => {
  test('groups are kept in Redis: a restarted reference on the same Redis still has them', async () => {
    const name = group('durable');
    await upsert(name, [{ name: 'e', url: 'https://e.example/' }]);
    await ref.stop();
    ref = await startTestReference(redis, { ...options, areas: [...options.areas] });
    expect(((await get(`/v2/topics/${name}`)).json as { endpoints: unknown }).endpoints).toEqual([
      { name: 'e', url: 'https://e.example/' },
    ]);
  });
});
