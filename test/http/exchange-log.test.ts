import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  bodyChars,
  ExchangeLog,
  judgedExchange,
  logExchanges,
  textExcerpt,
  unjudged,
  wholeText,
} from '../../src/http/exchange-log.ts';
import { httpRequest } from '../../src/http/http-client.ts';
import { openSse } from '../../src/http/sse-client.ts';
import { refusedUrl } from '../engines/conformance/fixtures/bad-servers.ts';
import { listenOnLoopback } from '../support/loopback.ts';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
      } else if (req.url === '/binary') {
        res.setHeader('content-type', 'application/octet-stream');
        res.end(Buffer.from([0xff, 0xfe, 0x00, 0x01]));
      } else if (req.url === '/big') res.end('x'.repeat(10 * bodyChars));
      else {
        res.setHeader('content-type', 'application/json');
        res.end('{"result":"OK"}');
      }
    });
  });
  ({ url } = await listenOnLoopback(server));
});
afterAll(() => {
  server.close();
});

describe('the exchange log', () => {
  test('every request sent inside a log lands in it, with the start of its answer; outside, nothing is kept', async () => {
    const logged = new ExchangeLog();
    const log = logged.exchanges;
    await httpRequest({ url: `${url}/outside` });
    await logExchanges(logged, async () => {
      await httpRequest({
        url: `${url}/a`,
        method: 'POST',
        headers: { authorization: 'Bearer t' },
        body: '["SET","k","v"]',
      });
      await Promise.all([httpRequest({ url: `${url}/binary` }), httpRequest({ url: `${url}/big` })]);
      await httpRequest({ url: await refusedUrl() }).catch(() => undefined);
    });
    expect(log.map((item) => new URL(item.url).pathname)).toEqual(['/a', expect.any(String), expect.any(String), '/']);
    expect(log[0]).toMatchObject({
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: '["SET","k","v"]',
      bodyBytes: 15,
      status: 200,
      contentType: 'application/json',
      answer: '{"result":"OK"}',
      answerBytes: 15,
    });
    const binary = log.find((item) => item.url.endsWith('/binary'));
    expect(binary?.answer).toBeUndefined();
    expect(binary?.answerBytes).toBe(4);
    const big = log.find((item) => item.url.endsWith('/big'));
    expect(big?.answer).toHaveLength(bodyChars + 1);
    expect(big?.answerBytes).toBe(10 * bodyChars);
    expect(log[3]?.status).toBeUndefined();
    expect(log[3]?.error).toMatch(/refused/);
  });

  test('a log keeps the last 20 exchanges', async () => {
    const logged = new ExchangeLog();
    const log = logged.exchanges;
    await logExchanges(logged, async () => {
      for (let n = 0; n < 25; n += 1) await httpRequest({ url: `${url}/n${n}` });
    });
    expect(log).toHaveLength(20);
    expect(log[0]?.url).toBe(`${url}/n5`);
  });

  test('the exchange judged is the one whose answer was read last, not the last one sent', async () => {
    const log = new ExchangeLog();
    const judged = await logExchanges(log, async () => {
      const [first, second] = await Promise.all([
        httpRequest({ url: `${url}/first` }),
        httpRequest({ url: `${url}/second` }),
      ]);
      const third = await httpRequest({ url: `${url}/third` });
      expect(judgedExchange()).toBeUndefined();
      const seen = [second?.status, first?.body.length];
      expect(seen).toEqual([200, 15]);
      const afterFirst = judgedExchange();
      expect(third.status).toBe(200);
      return [afterFirst, judgedExchange()];
    });
    expect(judged.map((item) => item && new URL(item.url).pathname)).toEqual(['/first', '/third']);
    expect(log.judged?.url).toBe(`${url}/third`);
  });

  test('answers read inside unjudged (a means, not a check) are logged but leave the judged exchange as it was', async () => {
    const log = new ExchangeLog();
    await logExchanges(log, async () => {
      expect((await httpRequest({ url: `${url}/checked` })).status).toBe(200);
      const keys = await unjudged(async () => (await httpRequest({ url: `${url}/keys` })).body.length);
      expect(keys).toBe(15);
    });
    expect(log.exchanges.map((item) => new URL(item.url).pathname)).toEqual(['/checked', '/keys']);
    expect(log.judged?.url).toBe(`${url}/checked`);
  });

  test('an answer keeps its fields (spread, compared, serialised), marked or not', async () => {
    const outside = await httpRequest({ url: `${url}/plain` });
    const inside = await logExchanges(new ExchangeLog(), () => httpRequest({ url: `${url}/plain` }));
    expect(Object.keys(inside)).toEqual(Object.keys(outside));
    expect({ ...inside, elapsedMs: 0, headers: {} }).toEqual({ ...outside, elapsedMs: 0, headers: {} });
    expect(JSON.parse(JSON.stringify(inside)).status).toBe(200);
  });

  test('a request with no answer is judged at once, and the log says since when nothing answered', async () => {
    const log = new ExchangeLog();
    const before = Date.now();
    await logExchanges(log, async () => {
      const answered = await httpRequest({ url: `${url}/a` });
      expect(answered.status).toBe(200);
      expect(log.silentSince).toBeUndefined();
      await httpRequest({ url: await refusedUrl() }).catch(() => undefined);
    });
    expect(log.judged?.error).toMatch(/refused/);
    expect(log.lastAnswerAt).toBeGreaterThanOrEqual(before);
    expect(log.silentSince).toBeGreaterThanOrEqual(log.lastAnswerAt ?? Number.POSITIVE_INFINITY);
  });

  test('the opening of a stream is an exchange too (no size: its events are not kept), judged when the stream is read', async () => {
    const log = new ExchangeLog();
    await logExchanges(log, async () => {
      const stream = await openSse({ url: `${url}/events`, headers: { authorization: 'Bearer t' } });
      expect((await httpRequest({ url: `${url}/after` })).status).toBe(200);
      expect(await stream.next()).toBe('one');
      expect(judgedExchange()?.url).toBe(`${url}/events`);
      stream.close();
      await openSse({ url: await refusedUrl() }).catch(() => undefined);
    });
    expect(log.exchanges[0]).toEqual({
      method: 'POST',
      url: `${url}/events`,
      headers: { accept: 'text/event-stream', authorization: 'Bearer t' },
      bodyBytes: 0,
      status: 200,
      contentType: 'text/event-stream',
    });
    expect(log.exchanges[2]?.error).toMatch(/refused/);
  });

  test('excerpts: text up to the limit, a UTF-8 character cut by the limit is not garbage, bytes that are not UTF-8 are none', () => {
    expect(textExcerpt('short')).toBe('short');
    expect(textExcerpt(Buffer.from('é'.repeat(3 * bodyChars)))).toBe(`${'é'.repeat(bodyChars)}…`);
    expect(textExcerpt(Buffer.from([0xc3, 0x28]))).toBeUndefined();
  });
});

describe('a request body in the log', () => {
  test('is kept whole or not at all, so a curl line is never cut inside its JSON (issue 36)', () => {
    const short = JSON.stringify({ a: 'x'.repeat(100) });
    expect(wholeText(short)).toBe(short);
    expect(wholeText(Buffer.from(short))).toBe(short);
    expect(wholeText('y'.repeat(bodyChars + 1))).toBeUndefined();
    expect(wholeText(Buffer.from([0xff, 0xfe]))).toBeUndefined();
  });
});
