import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bodyChars, type Exchange, logExchanges, textExcerpt } from '../../src/http/exchange-log.ts';
import { httpRequest } from '../../src/http/http-client.ts';
import { refusedUrl } from '../engines/conformance/fixtures/bad-servers.ts';
import { listenOnLoopback } from '../support/loopback.ts';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/binary') {
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
    const log: Exchange[] = [];
    await httpRequest({ url: `${url}/outside` });
    await logExchanges(log, async () => {
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
    const log: Exchange[] = [];
    await logExchanges(log, async () => {
      for (let n = 0; n < 25; n += 1) await httpRequest({ url: `${url}/n${n}` });
    });
    expect(log).toHaveLength(20);
    expect(log[0]?.url).toBe(`${url}/n5`);
  });

  test('excerpts: text up to the limit, a UTF-8 character cut by the limit is not garbage, bytes that are not UTF-8 are none', () => {
    expect(textExcerpt('short')).toBe('short');
    expect(textExcerpt(Buffer.from('é'.repeat(3 * bodyChars)))).toBe(`${'é'.repeat(bodyChars)}…`);
    expect(textExcerpt(Buffer.from([0xc3, 0x28]))).toBeUndefined();
  });
});
