import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openSse } from '../../src/http/sse-client.ts';
import { refusedUrl } from '../engines/conformance/fixtures/bad-servers.ts';
import { listenOnLoopback } from '../support/loopback.ts';

const streams = new Set<ServerResponse>();
const server = createServer((req, res) => {
  if (req.url === '/stall') return;
  if (req.url === '/json') {
    // 8 MB of JSON where an event stream was asked for: one line, never an event.
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"result":"${'x'.repeat(8 * 1024 * 1024)}"}`);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  streams.add(res);
  res.on('close', () => streams.delete(res));
  res.write('data: OK\n\n');
  if (req.url === '/two') res.write('data: subscribe,ch,1\n\ndata: message,ch,hi\n\n');
  if (req.url === '/end') res.end('data: last\n\n');
  if (req.url === '/one-long-line') res.write(`data: ${'y'.repeat(200_000)}`);
  if (req.url === '/flood') for (let index = 0; index < 200; index++) res.write(`data: ${'x'.repeat(1000)}\n\n`);
});
let url: string;

beforeAll(async () => {
  ({ url } = await listenOnLoopback(server));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('openSse', () => {
  test('delivers data items in order', async () => {
    const stream = await openSse({ url: `${url}/two` });
    expect(stream.status).toBe(200);
    expect(await stream.next()).toBe('OK');
    expect(await stream.next()).toBe('subscribe,ch,1');
    expect(await stream.next()).toBe('message,ch,hi');
    stream.close();
  });

  test('waiting for an event that never comes times out', async () => {
    const stream = await openSse({ url: `${url}/one` });
    expect(await stream.next()).toBe('OK');
    await expect(stream.next(100)).rejects.toThrow('no event within 100 ms');
    stream.close();
  });

  test('a stream that ends rejects the next wait', async () => {
    const stream = await openSse({ url: `${url}/end` });
    expect(await stream.next()).toBe('OK');
    expect(await stream.next()).toBe('last');
    await expect(stream.next(1_000)).rejects.toThrow('event stream ended');
  });

  test('opening a stalled or refused stream is one coded line', async () => {
    await expect(openSse({ url: `${url}/stall`, openTimeoutMs: 200 })).rejects.toMatchObject({
      code: 'SVC_TARGET_UNREACHABLE',
    });
    await expect(openSse({ url: await refusedUrl() })).rejects.toMatchObject({ code: 'SVC_TARGET_UNREACHABLE' });
  });

  test('close ends waiting and the server sees the stream go', async () => {
    const stream = await openSse({ url: `${url}/one` });
    expect(await stream.next()).toBe('OK');
    stream.close();
    await expect(stream.next(500)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(streams.size).toBe(0);
  });

  test('a stream that floods its reader ends as garbage past the buffer bound', async () => {
    const stream = await openSse({ url: `${url}/flood`, maxBufferedBytes: 50_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const taken: string[] = [];
    let error: unknown;
    try {
      for (;;) taken.push(await stream.next(500));
    } catch (thrown) {
      error = thrown;
    }
    expect(taken.length).toBeLessThan(200);
    expect(error).toMatchObject({ code: 'SVC_TARGET_GARBAGE', message: expect.stringContaining('not yet read') });
    stream.close();
  });

  test('an answer that is not an event stream is judged by its status and type, its body never parsed', async () => {
    const stream = await openSse({ url: `${url}/json` });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('application/json');
    await expect(stream.next(1_000)).rejects.toThrow('not an event stream (status 200, content type application/json)');
    expect(stream.pending()).toEqual([]);
    stream.close();
  });

  test('one event longer than the buffer bound ends the stream as garbage', async () => {
    const stream = await openSse({ url: `${url}/one-long-line`, maxBufferedBytes: 100_000 });
    expect(await stream.next()).toBe('OK');
    await expect(stream.next(2_000)).rejects.toThrow('event stream sent more than 100000 bytes of one event');
    stream.close();
  });
});
