import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  answerCapBytes,
  defaultMaxAnswerBytes,
  dispatcherFor,
  headerValue,
  httpRequest,
  isLongAnswer,
  jsonBody,
  noAnswerOf,
  safeOrigin,
  setAnswerCap,
} from '../../src/http/http-client.ts';
import {
  type BadServer,
  refusedUrl,
  startGarbageServer,
  startStallingServer,
} from '../engines/conformance/fixtures/bad-servers.ts';
import { listenOnLoopback } from '../support/loopback.ts';
import { startSelfSignedServer, type TlsServer } from '../support/tls-server.ts';

let server: Server;
let url: string;
let garbage: BadServer;
let stalling: BadServer;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.method === 'HEAD') {
        // The length a GET's body would have (RFC 9110 §9.3.2), and no body.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' }).end();
        return;
      }
      if (req.url === '/chunked') {
        // No Content-Length: the body is sent in chunks, its length unknown until it ends.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"result":"');
        res.end('x'.repeat(64), () => undefined);
        return;
      }
      res.setHeader('x-multi', ['a', 'b']);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, path: req.url, auth: req.headers.authorization ?? null, body }));
    });
  });
  ({ url } = await listenOnLoopback(server));
  [garbage, stalling] = await Promise.all([startGarbageServer(), startStallingServer()]);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([garbage.close(), stalling.close()]);
});

describe('httpRequest', () => {
  test('sends method, headers and body; returns status, lower-case headers, body and time', async () => {
    const res = await httpRequest({
      url: `${url}/set/a`,
      method: 'POST',
      headers: { Authorization: 'Bearer t' },
      body: 'v',
    });
    expect(res.status).toBe(200);
    expect(jsonBody(res)).toEqual({ method: 'POST', path: '/set/a', auth: 'Bearer t', body: 'v' });
    expect(headerValue(res, 'X-Multi')).toBe('a, b');
    expect(headerValue(res, 'content-type')).toBe('application/json');
    expect(res.elapsedMs).toBeGreaterThan(0);
  });

  test('a body of many chunks arrives whole: with its length declared, chunked, and none for HEAD', async () => {
    // 3 MB written in 1,000 pieces, each piece's bytes distinct from its neighbours'.
    const piece = (index: number) => Buffer.alloc(3_000, index % 251);
    const expected = Buffer.concat(Array.from({ length: 1_000 }, (_, index) => piece(index)));
    const chunky = createServer(async (req, res) => {
      if (req.url === '/declared') res.setHeader('content-length', expected.length);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      if (req.method === 'HEAD') return void res.end();
      for (let index = 0; index < 1_000; index++) {
        if (!res.write(piece(index))) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    });
    const { url: base } = await listenOnLoopback(chunky);
    try {
      for (const path of ['/declared', '/chunked']) {
        const res = await httpRequest({ url: `${base}${path}` });
        expect(res.body.equals(expected), path).toBe(true);
      }
      const head = await httpRequest({ url: `${base}/declared`, method: 'HEAD' });
      expect(head.body.length).toBe(0);
      expect(headerValue(head, 'content-length')).toBe(String(expected.length));
    } finally {
      chunky.closeAllConnections();
      await new Promise<void>((resolve) => chunky.close(() => resolve()));
    }
  });

  test('jsonBody is undefined for a body that is not JSON', () => {
    expect(jsonBody({ status: 200, headers: {}, body: Buffer.from('<html>'), elapsedMs: 1 })).toBeUndefined();
  });

  test('refused, garbage, stalled and invalid URLs become one coded line', async () => {
    const refused = await refusedUrl();
    await expect(httpRequest({ url: refused })).rejects.toMatchObject({
      code: 'SVC_TARGET_UNREACHABLE',
      message: `${refused} refused the connection`,
    });
    await expect(httpRequest({ url: garbage.url })).rejects.toMatchObject({ code: 'SVC_TARGET_GARBAGE' });
    await expect(httpRequest({ url: stalling.url, timeoutMs: 200 })).rejects.toMatchObject({
      code: 'SVC_TARGET_UNREACHABLE',
      message: `${stalling.url} did not answer within 200 ms`,
    });
    await expect(httpRequest({ url: 'not a url' })).rejects.toMatchObject({ code: 'SVC_CONFIG' });
  });

  test('only refused, reset, timed-out and endless (past the cap) requests are "no answer"; garbage is an answer', async () => {
    const reason = (promise: Promise<unknown>) => promise.then(() => 'answered', noAnswerOf);
    expect(await reason(httpRequest({ url: await refusedUrl() }))).toBe('refused');
    expect(await reason(httpRequest({ url: stalling.url, timeoutMs: 200 }))).toBe('timeout');
    expect(await reason(httpRequest({ url: garbage.url }))).toBeUndefined();
    // Past the cap, a body sent in chunks may never end; one whose Content-Length passes the cap is an
    // answer that ends, only longer than the request reads: not read at all, and no "no answer".
    const chunked = await httpRequest({ url: `${url}/chunked`, maxAnswerBytes: 10 }).catch((error: unknown) => error);
    expect(noAnswerOf(chunked)).toBe('endless');
    expect(isLongAnswer(chunked)).toBe(true);
    const declared = await httpRequest({ url: `${url}/big`, maxAnswerBytes: 10 }).catch((error: unknown) => error);
    expect(noAnswerOf(declared)).toBeUndefined();
    expect(isLongAnswer(declared)).toBe(true);
    expect(declared).toMatchObject({
      code: 'SVC_TARGET_GARBAGE',
      message: expect.stringMatching(/answered \d+ bytes \(its Content-Length\), more than the 10 this request reads/),
    });
    // A HEAD answer has no body, whatever length it declares.
    const head = await httpRequest({ url: `${url}/big`, method: 'HEAD', maxAnswerBytes: 10 });
    expect([head.status, head.body.length, Number(head.headers['content-length'])]).toEqual([
      200,
      0,
      expect.any(Number),
    ]);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(10);
    // A request that names no cap reads within its thread's (the conformance worker sets the suites').
    setAnswerCap(10);
    try {
      expect(isLongAnswer(await httpRequest({ url: `${url}/big` }).catch((error: unknown) => error))).toBe(true);
      expect((await httpRequest({ url: `${url}/big`, maxAnswerBytes: 1000 })).status).toBe(200);
    } finally {
      setAnswerCap(defaultMaxAnswerBytes);
    }
    expect(answerCapBytes()).toBe(defaultMaxAnswerBytes);
    expect(noAnswerOf(new Error('ECONNREFUSED'))).toBeUndefined();
    const resetting = createTcpServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.resetAndDestroy());
    });
    const closing = createTcpServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end());
    });
    const [{ url: resetUrl }, { url: closeUrl }] = await Promise.all([
      listenOnLoopback(resetting),
      listenOnLoopback(closing),
    ]);
    try {
      const reset = await httpRequest({ url: resetUrl, timeoutMs: 2_000 }).catch((error: unknown) => error);
      expect(noAnswerOf(reset)).toBe('reset');
      expect(reset).toMatchObject({ code: 'SVC_TARGET_UNREACHABLE' });
      const closed = await httpRequest({ url: closeUrl, timeoutMs: 2_000 }).catch((error: unknown) => error);
      expect(noAnswerOf(closed)).toBe('reset');
      expect(closed).toMatchObject({
        message: expect.stringMatching(/ closed the connection without an answer \((ECONNRESET|UND_ERR_SOCKET)\)$/),
      });
    } finally {
      await Promise.all([
        new Promise<void>((resolve) => resetting.close(() => resolve())),
        new Promise<void>((resolve) => closing.close(() => resolve())),
      ]);
    }
  });

  test('a response broken past its status line (a header with a space in its name) is garbage too', async () => {
    // undici 7's parser error carries no HPE_ code (its name says it); either way it is not HTTP.
    const badHeader = createTcpServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nBad Header: x\r\nContent-Length: 0\r\n\r\n'));
    });
    const { url: badUrl } = await listenOnLoopback(badHeader);
    try {
      await expect(httpRequest({ url: badUrl, timeoutMs: 2_000 })).rejects.toMatchObject({
        code: 'SVC_TARGET_GARBAGE',
        message: expect.stringMatching(/ did not answer with HTTP \((HTTPParserError|HPE_[A-Z_]+)\)$/),
      });
    } finally {
      await new Promise<void>((resolve) => badHeader.close(() => resolve()));
    }
  });

  test('error lines never hold the query string (tokens travel there)', async () => {
    const refused = await refusedUrl();
    const error = await httpRequest({ url: `${refused}/get/k?_token=secret-token-1` }).catch((caught: Error) => caught);
    expect((error as Error).message).not.toContain('secret-token-1');
    expect(safeOrigin('http://user:pw@host:1/p?_token=x')).toBe('http://host:1');
    expect(safeOrigin('::')).toBe('the target');
  });
});

describe('TLS trust from the target', () => {
  let tls: TlsServer;
  let tlsUrl: string;
  beforeAll(async () => {
    tls = await startSelfSignedServer((_req, res) => res.end('ok'));
    tlsUrl = tls.url;
  });
  afterAll(() => tls.close());

  test('a self-signed certificate is refused with a line naming tls.ca and tls.insecure', async () => {
    await expect(httpRequest({ url: tlsUrl, timeoutMs: 3_000 })).rejects.toMatchObject({
      code: 'SVC_TARGET_UNREACHABLE',
      message: expect.stringMatching(/TLS certificate is not trusted .*tls\.ca.*tls\.insecure/),
    });
  });

  test('trusted with its CA file, or with insecure', async () => {
    const withCa = await httpRequest({ url: tlsUrl, dispatcher: dispatcherFor({ ca: tls.caFile }) });
    expect(withCa.body.toString()).toBe('ok');
    const insecure = await httpRequest({ url: tlsUrl, dispatcher: dispatcherFor({ insecure: true }) });
    expect(insecure.status).toBe(200);
  });
});
