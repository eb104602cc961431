/**
 * Load's counting inboxes on a real loopback sink, on the calling thread (0) and on two worker
 * threads sharing one port: each request classified where it arrives (the classifier module is
 * imported in the thread), answered with the classifier's status, handed on in batches with its
 * signature verdict and jti; flush hands on everything that arrived before it; strays and late
 * requests counted; conformance inboxes still served (on the calling thread) beside them; URLs under a
 * base URL with a path prefix, reached with the prefix or through a proxy that strips it.
 */
import { createHash, createSecretKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { SignJWT } from 'jose';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { type CountedArrival, type Sink, type SinkOptions, startSink } from '../../src/sink/sink-server.ts';
import type { TestRecord } from './fixtures/count-classifier.ts';

const classifierModule = new URL('./fixtures/count-classifier.ts', import.meta.url).href;
const keys = { current: 'sig_current_key', next: 'sig_next_key' };

let sink: Sink | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  proxy = undefined;
});

async function start(threads: number, options: Partial<SinkOptions> = {}): Promise<Sink> {
  sink = await startSink({ signatureHeader: 'Svc-Signature', keys: async () => keys, threads, ...options });
  return sink;
}

async function sign(key: string, url: string, body: string, jti?: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const token = new SignJWT({ body: createHash('sha256').update(body).digest('base64url') })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(url)
    .setIssuedAt(now)
    .setExpirationTime(now + 300);
  if (jti !== undefined) token.setJti(jti);
  return token.sign(createSecretKey(Buffer.from(key)));
}

/** One request on its own connection (so the kernel may hand it to any thread). */
async function send(url: string, body = 'hello', headers: Record<string, string> = {}): Promise<number> {
  const agent = new Agent({ pipelining: 0 });
  try {
    const res = await request(url, { method: 'POST', body, headers, dispatcher: agent });
    await res.body.dump();
    return res.statusCode;
  } finally {
    await agent.close();
  }
}

function collect<R>(inbox: { onArrivals(listener: (batch: readonly CountedArrival<R>[]) => void): void }) {
  const arrivals: CountedArrival<R>[] = [];
  inbox.onArrivals((batch) => arrivals.push(...batch));
  return arrivals;
}

describe.each([0, 2])('a counting inbox on %i threads', (threads) => {
  test('classifies each request where it arrives, answers its status, and judges its signature', async () => {
    const s = await start(threads);
    expect(s.threads).toBe(threads);
    const inbox = s.openCounter<TestRecord>('load', { module: classifierModule, data: { tag: 'publish-fanout' } });
    const arrivals = collect(inbox);
    const url = inbox.url('dest', '/e1?x=1');
    const before = performance.timeOrigin + performance.now();
    expect(await send(url, 'one', { 'x-id': 'm1', 'svc-signature': await sign(keys.current, url, 'one', 'j1') })).toBe(
      200,
    );
    expect(
      await send(inbox.url('fail'), 'two', { 'svc-signature': await sign('stranger', inbox.url('fail'), 'two') }),
    ).toBe(500);
    expect(await send(inbox.url('other'), 'three')).toBe(200);
    await inbox.flush();
    expect(arrivals).toHaveLength(3);
    // Batches of different threads come in any order: each arrival is found by its role.
    const byRole = (role: string) => arrivals.find((item) => item.role === role) as CountedArrival<TestRecord>;
    const [signed, failed, none] = [byRole('dest'), byRole('fail'), byRole('other')];
    expect(signed).toMatchObject({
      role: 'dest',
      signature: 'ok',
      jti: 'j1',
      record: { id: 'm1', body: 'one', rest: '/e1?x=1', method: 'POST', tag: 'publish-fanout' },
    });
    expect(signed.at).toBeGreaterThanOrEqual(before - 1);
    expect(signed.at).toBeLessThanOrEqual(performance.timeOrigin + performance.now());
    expect(failed).toMatchObject({
      role: 'fail',
      signature: 'failed',
      problem: expect.stringContaining('neither key'),
    });
    expect(none).toMatchObject({
      role: 'other',
      record: undefined,
      signature: 'failed',
      problem: 'no signature header',
    });
    const unsigned = await start(threads, { scheme: 'none' });
    const plain = unsigned.openCounter<TestRecord>('load', { module: classifierModule, data: { tag: 't' } });
    const got = collect(plain);
    await send(plain.url('dest'), 'x');
    await plain.flush();
    expect(got.map((item) => item.signature)).toEqual(['unchecked']);
    await unsigned.close();
  });

  test('flush hands on everything that arrived before it, each request once', async () => {
    const s = await start(threads);
    const inbox = s.openCounter<TestRecord>('load', { module: classifierModule, data: { tag: 't' } });
    const arrivals = collect(inbox);
    const count = 120;
    const url = inbox.url('dest');
    const agent = new Agent({ connections: 16 });
    const statuses = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const body = `m${index}`;
        const res = await request(url, {
          method: 'POST',
          body,
          headers: { 'x-id': body, 'svc-signature': await sign(keys.current, url, body, `jti-${index}`) },
          dispatcher: agent,
        });
        await res.body.dump();
        return res.statusCode;
      }),
    );
    await agent.close();
    expect(statuses.every((status) => status === 200)).toBe(true);
    await inbox.flush();
    expect(arrivals).toHaveLength(count);
    expect(new Set(arrivals.map((item) => item.record?.id)).size).toBe(count);
    expect(arrivals.every((item) => item.signature === 'ok')).toBe(true);
    expect(new Set(arrivals.map((item) => item.jti)).size).toBe(count);
    if (threads === 0) expect(new Set(arrivals.map((item) => item.record?.thread))).toEqual(new Set([0]));
  });

  test('counts strays and late requests, and keeps conformance inboxes beside the counting ones', async () => {
    const s = await start(threads);
    const counter = s.openCounter<TestRecord>('load', { module: classifierModule, data: { tag: 't' } });
    const arrivals = collect(counter);
    const inbox = s.open('a case');
    inbox.answer('dest', { status: 202, body: 'case answer' });
    const url = inbox.url('dest', '/x');
    expect(await send(url, 'case body', { 'svc-signature': await sign(keys.next, url, 'case body') })).toBe(202);
    expect(inbox.requests('dest')).toMatchObject([
      { body: Buffer.from('case body'), rest: '/x', signature: { ok: true, key: 'next' }, answered: 202 },
    ]);
    expect(await send(`${s.url}/unknowntoken/dest`)).toBe(404);
    expect(await send(counter.url('dest'), 'before close')).toBe(200);
    await counter.flush();
    counter.close();
    expect(await send(counter.url('dest'), 'after close')).toBe(404);
    await counter.flush();
    expect(arrivals.map((item) => item.record?.body)).toEqual(['before close']);
    expect(s.strays().map((item) => item.kind)).toEqual(['stray', 'late']);
    expect(s.lastArrivalAt()).toBeGreaterThan(0);
  });

  test('hands out URLs under a base with a path prefix, taken with the prefix or through a proxy that strips it', async () => {
    // The proxy's port is the public URL's, so it starts first; the sink's address is known after.
    let upstream = '';
    proxy = createServer((req, res) => {
      const path = (req.url ?? '/').replace(/^\/h\/sink/, '');
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        request(`${upstream}${path}`, {
          method: 'POST',
          headers: req.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        }).then(
          async (answer) => {
            res.writeHead(answer.statusCode);
            res.end(Buffer.from(await answer.body.arrayBuffer()));
          },
          () => {
            res.writeHead(502);
            res.end();
          },
        );
      });
    });
    const listening = proxy;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const publicBase = `http://127.0.0.1:${(listening.address() as { port: number }).port}/h/sink/`;
    const s = await start(threads, { publicUrl: publicBase });
    upstream = s.localUrl;
    expect(s.url).toBe(publicBase.slice(0, -1));
    const counter = s.openCounter<TestRecord>('load', { module: classifierModule, data: { tag: 't' } });
    const arrivals = collect(counter);
    const inbox = s.open('a case');
    for (const url of [counter.url('dest', '/e2'), inbox.url('dest', '/e2')]) {
      expect(url.startsWith(`${publicBase}`)).toBe(true);
      const signature = await sign(keys.current, url, 'via proxy', `jti ${url}`);
      // Through the proxy, which strips /h/sink, and straight to the sink with the prefix kept.
      expect(await send(url, 'via proxy', { 'svc-signature': signature })).toBe(200);
      const direct = url.replace(publicBase.slice(0, -'/h/sink/'.length), s.localUrl);
      expect(direct).toContain('/h/sink/');
      expect(await send(direct, 'via proxy', { 'svc-signature': signature })).toBe(200);
    }
    await counter.flush();
    // A counting inbox leaves replays to the receiver of its batches: both carry the same jti.
    expect(arrivals.map((item) => [item.record?.rest, item.signature, item.jti])).toEqual([
      ['/e2', 'ok', `jti ${counter.url('dest', '/e2')}`],
      ['/e2', 'ok', `jti ${counter.url('dest', '/e2')}`],
    ]);
    // The same token presented twice to a conformance inbox verifies both times, the second recorded as
    // presented before (the spec shows no scheme; jti is optional: a re-send is not refused).
    expect(inbox.requests('dest').map((item) => [item.rest, item.signature.ok, item.replayOf])).toEqual([
      ['/e2', true, undefined],
      ['/e2', true, 'dest/e2'],
    ]);
    expect(s.strays()).toEqual([]);
  });
});

test('two threads listen on one port, and the kernel spreads connections over both', async () => {
  const s = await start(2);
  const inbox = s.openCounter<TestRecord>('load', { module: classifierModule, data: { tag: 't' } });
  const arrivals = collect(inbox);
  await Promise.all(Array.from({ length: 32 }, (_, index) => send(inbox.url('dest'), `c${index}`)));
  await inbox.flush();
  expect(arrivals).toHaveLength(32);
  const threadIds = new Set(arrivals.map((item) => item.record?.thread));
  expect(threadIds.size).toBe(2);
  expect(threadIds.has(0)).toBe(false);
});

test('a classifier module that does not load is a problem the sink reports, and requests are still counted', async () => {
  const s = await start(0);
  const inbox = s.openCounter('load', { module: new URL('./fixtures/absent.ts', import.meta.url).href, data: null });
  const arrivals = collect(inbox);
  expect(await send(inbox.url('dest'))).toBe(200);
  await inbox.flush();
  expect(arrivals).toMatchObject([{ role: 'dest', record: undefined }]);
  expect(s.problems()).toEqual([expect.stringContaining('could not load its classifier')]);
});

test('a sink thread that ends is a problem the sink reports, and a flush does not wait for it', async () => {
  const s = await start(1);
  const inbox = s.openCounter<TestRecord>('load', { module: classifierModule, data: { tag: 't' } });
  await send(inbox.url('die')).catch(() => 0);
  const started = Date.now();
  await inbox.flush();
  expect(Date.now() - started).toBeLessThan(5000);
  await expect.poll(() => s.problems()).toEqual([expect.stringContaining('a sink thread ended (exit code 3)')]);
});
