import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createKvClient } from '../../../conformance/support/kv-client.ts';
import { createCaseContext } from '../../../src/engines/conformance/case-context.ts';
import { encodeSegment } from '../../../src/protocol/kv/request-forms.ts';
import { listenOnLoopback } from '../../support/loopback.ts';

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let seen: Seen[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => {
    body += chunk.toString('latin1');
  });
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    res.setHeader('content-type', 'application/json');
    res.end('{"result":"OK"}');
  });
});
let url = '';

beforeAll(async () => {
  ({ url } = await listenOnLoopback(server));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function client(dialect: 'svc' | 'upstash' = 'svc') {
  const target = { name: 't', dialect, kv: { url, token: 'std-token', readOnlyToken: 'ro-token' } } as const;
  return createKvClient(createCaseContext({ target, caseId: 'kv.test.client', runId: 'r' }).context);
}

describe('the key-value client', () => {
  test('one percent-encoded segment per argument, any byte', () => {
    expect(encodeSegment('a/b c%')).toBe('a%2Fb%20c%25');
    expect(encodeSegment('é')).toBe('%C3%A9');
    expect(encodeSegment(Uint8Array.from([0xff, 0x41]))).toBe('%FFA');
  });

  test('builds each request form with credentials and the dialect’s header names', async () => {
    seen = [];
    const kv = client('upstash');
    await kv.path('GET', ['get', 'k/1'], { encoding: 'base64', format: 'resp2' });
    await kv.postBody(['set', 'k'], 'body', [['EX', '10']], { credentials: { kind: 'query' } });
    await kv.root(['SET', 'k', 1], { credentials: { kind: 'read-only' } });
    await kv.pipeline([['PING']], { credentials: { kind: 'none' } });
    const [path, body, root, pipeline] = seen;
    expect(path?.url).toBe('/get/k%2F1');
    expect(path?.headers.authorization).toBe('Bearer std-token');
    expect(path?.headers['upstash-encoding']).toBe('base64');
    expect(path?.headers['upstash-response-format']).toBe('resp2');
    expect(body?.url).toBe('/set/k?EX=10&_token=std-token');
    expect(body?.headers.authorization).toBeUndefined();
    expect(body?.body).toBe('body');
    expect(root?.headers.authorization).toBe('Bearer ro-token');
    expect(JSON.parse(root?.body ?? '')).toEqual(['SET', 'k', 1]);
    expect(pipeline?.url).toBe('/pipeline');
    expect(pipeline?.headers.authorization).toBeUndefined();
  });

  test("the target's headers go with every request; readOnlyHeaders only with the Read Only token", async () => {
    seen = [];
    const target = {
      name: 't',
      dialect: 'svc',
      kv: {
        url,
        token: 'std-token',
        readOnlyToken: 'ro-token',
        headers: { 'x-gateway': 'g' },
        readOnlyHeaders: { 'x-redis-user': 'readonly' },
      },
    } as const;
    const kv = createKvClient(createCaseContext({ target, caseId: 'kv.test.headers', runId: 'r' }).context);
    await kv.root(['GET', 'k']);
    await kv.root(['GET', 'k'], { credentials: { kind: 'read-only' } });
    const [standard, readOnly] = seen;
    expect(standard?.headers['x-gateway']).toBe('g');
    expect(standard?.headers['x-redis-user']).toBeUndefined();
    expect(readOnly?.headers['x-gateway']).toBe('g');
    expect(readOnly?.headers['x-redis-user']).toBe('readonly');
    expect(readOnly?.headers.authorization).toBe('Bearer ro-token');
  });
});
