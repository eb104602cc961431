import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { headerValue, httpRequest, jsonBody, safeOrigin } from '../../src/http/http-client.ts';
import {
  type BadServer,
  refusedUrl,
  startGarbageServer,
  startStallingServer,
} from '../conformance-engine/fixtures/bad-servers.ts';

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
      res.setHeader('x-multi', ['a', 'b']);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, path: req.url, auth: req.headers.authorization ?? null, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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

  test('error lines never hold the query string (tokens travel there)', async () => {
    const refused = await refusedUrl();
    const error = await httpRequest({ url: `${refused}/get/k?_token=secret-token-1` }).catch((caught: Error) => caught);
    expect((error as Error).message).not.toContain('secret-token-1');
    expect(safeOrigin('http://user:pw@host:1/p?_token=x')).toBe('http://host:1');
    expect(safeOrigin('::')).toBe('the target');
  });
});
