/**
 * The mutating proxy and its operators on real exchanges: a real upstream on loopback (an "area" that
 * answers JSON, errors, SSE and echoes credentials, and a receiver behind a delivery proxy), the
 * proxy in front, requests through undici. Each operator changes what it names, only on its route
 * class, and the proxy counts each change.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { jwtVerify, SignJWT } from 'jose';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listenOnLoopback } from '../support/loopback.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { type Exchange, routeClassOf } from './exchange.ts';
import { type MutatingProxy, startMutatingProxy } from './mutating-proxy.ts';
import { appliesTo, type MutationContext, type TargetCredentials } from './operator.ts';
import { operatorById } from './operators/catalog.ts';
import { bodyClaim } from './operators/signature.ts';

const credentials: TargetCredentials = {
  kv: { token: 'standard-token', readOnlyToken: 'read-only-token' },
  messaging: { token: 'messaging-token' },
};
const signingKey = 'sig_test_current_key';

/** The fake area: fixed answers by path, and /echo returns what arrived (path and authorization). */
function upstreamServer(): Server {
  return createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/echo')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: { path, authorization: req.headers.authorization ?? null } }));
      return;
    }
    if (path === '/pipeline') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-extra': 'kept' });
      res.end('[{"result":"OK"},{"result":["a","b",1]},{"result":9007199254740993},{"error":"WRONGTYPE bad kind"}]');
      return;
    }
    if (path === '/info') {
      // INFO's text holds 16-digit numbers (server_time_usec) inside a JSON string.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: 'server_time_usec:1795000000000001\r\nx "9007199254740993"' }));
      return;
    }
    if (path === '/bad') {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":"ERR syntax error"}');
      return;
    }
    if (path === '/encoded') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: Buffer.from('hello world').toString('base64') }));
      return;
    }
    if (path.startsWith('/subscribe')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: subscribe,ch,1\n\n');
      res.write('data: message,ch,one\n\n');
      setTimeout(() => res.end('data: message,ch,two\n\n'), 20);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"ERR unknown"}');
  });
}

let upstream: Server;
let upstreamUrl = '';
let proxy: MutatingProxy;
let receiver: Receiver;
let delivery: MutatingProxy;
const recorded: Exchange[] = [];

beforeAll(async () => {
  upstream = upstreamServer();
  upstreamUrl = (await listenOnLoopback(upstream)).url;
  proxy = await startMutatingProxy({
    upstream: upstreamUrl,
    side: 'front',
    area: 'kv',
    credentials,
    signingKeys: async () => [signingKey],
    onExchange: (exchange) => recorded.push(exchange),
  });
  receiver = await startReceiver();
  delivery = await startMutatingProxy({
    upstream: receiver.url,
    side: 'delivery',
    area: 'messaging',
    credentials,
    signingKeys: async () => ['sig_other_key', signingKey],
  });
});

afterAll(async () => {
  await proxy?.close();
  await delivery?.close();
  await receiver?.close();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

function use(id: string, routeClass: string, on: MutatingProxy = proxy): void {
  const operator = operatorById(id);
  if (!operator) throw new Error(`no operator ${id}`);
  on.setMutant({ operator, routeClass });
}

async function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const answer = await request(`${proxy.url}${path}`, {
    method: (init.method ?? 'POST') as 'POST',
    headers: init.headers,
    body: init.body,
  });
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}

describe('route classes', () => {
  const req = (method: string, path: string, body = '', headers: Record<string, string> = {}) => ({
    method,
    path,
    headers,
    body: Buffer.from(body),
  });
  test.each([
    ['kv', 'POST', '/', 'kv POST /'],
    ['kv', 'POST', '/pipeline', 'kv POST /pipeline'],
    ['kv', 'GET', '/subscribe/news', 'kv GET /subscribe/*'],
    ['kv', 'GET', '/get/svch%3Akey?_token=x', 'kv GET /{command}/*'],
    ['kv', 'PROPFIND', '/get/key', 'kv OTHER /{command}/*'],
    ['messaging', 'POST', '/v2/publish/http://127.0.0.1:1/a/b?x=1', 'messaging POST /v2/publish/*'],
    ['messaging', 'POST', '/v2/queues/q1/pause', 'messaging POST /v2/queues/*/pause'],
    ['messaging', 'POST', '/v2/keys/rotate', 'messaging POST /v2/keys/rotate'],
    ['management', 'GET', '/v2/search/abc-123', 'management GET /v2/search/*'],
  ] as const)('%s %s %s → %s', (area, method, path, expected) => {
    expect(routeClassOf('front', area, req(method, path))).toBe(expected);
  });

  test('the delivery side by what is sent: callback, failure callback, message, waiter call', () => {
    expect(routeClassOf('delivery', 'messaging', req('POST', '/t/c1', '{"sourceMessageId":"m","status":200}'))).toBe(
      'delivery callback',
    );
    expect(routeClassOf('delivery', 'messaging', req('POST', '/t/f1', '{"sourceMessageId":"m","dlqId":"d"}'))).toBe(
      'delivery failure-callback',
    );
    expect(routeClassOf('delivery', 'messaging', req('POST', '/t/d', 'hi', { 'svc-message-id': 'm' }))).toBe(
      'delivery message',
    );
    expect(routeClassOf('delivery', 'messaging', req('POST', '/t/w', '{"x":1}'))).toBe('delivery waiter-call');
  });
});

describe('without a mutant', () => {
  test('forwards status, headers and body unchanged, and records the exchange with its class', async () => {
    proxy.setMutant(undefined);
    const answer = await send('/pipeline', { body: '[["PING"]]', headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-extra']).toBe('kept');
    expect(answer.text).toBe(
      '[{"result":"OK"},{"result":["a","b",1]},{"result":9007199254740993},{"error":"WRONGTYPE bad kind"}]',
    );
    const last = recorded.at(-1) as Exchange;
    expect(last.routeClass).toBe('kv POST /pipeline');
    expect(last.request.body.toString()).toBe('[["PING"]]');
    expect(proxy.fired()).toBe(0);
  });
});

describe('status', () => {
  test('2xx → 500 on its class only, counted once per exchange changed', async () => {
    use('status.2xx-to-500', 'kv POST /pipeline');
    expect((await send('/pipeline')).status).toBe(500);
    expect((await send('/echo/x')).status).toBe(200);
    expect(proxy.fired()).toBe(1);
    expect(proxy.changed()).toEqual(['POST /pipeline → 500']);
  });

  test('400 → 401 keeps the body; a 200 is left alone and not counted', async () => {
    use('status.400-to-401', 'kv POST /{command}/*');
    const bad = await send('/bad');
    expect([bad.status, bad.text]).toEqual([401, '{"error":"ERR syntax error"}']);
    expect((await send('/echo/y')).status).toBe(200);
    expect(proxy.fired()).toBe(1);
  });
});

describe('outcomes moved between the whole answer and its items', () => {
  test('an error item lifted to the whole 400; a whole error put into a 200 array; an error made a result', async () => {
    use('outcome.error-item-as-whole', 'kv POST /pipeline');
    const lifted = await send('/pipeline');
    expect([lifted.status, lifted.text]).toEqual([400, '{"error":"WRONGTYPE bad kind"}']);
    use('outcome.whole-error-as-item', 'kv POST /{command}/*');
    const bad = await send('/bad');
    expect([bad.status, bad.text]).toEqual([200, '[{"error":"ERR syntax error"}]']);
    expect((await send('/echo/z')).status).toBe(200);
    use('outcome.error-as-result', 'kv POST /pipeline');
    expect((await send('/pipeline')).text).toContain('{"result":"WRONGTYPE bad kind"}');
  });
});

describe('headers', () => {
  test('the content type swapped, and a header dropped', async () => {
    use('headers.content-type:json-to-octet-stream', 'kv POST /pipeline');
    expect((await send('/pipeline')).headers['content-type']).toBe('application/octet-stream');
    use('headers.dropped:x-extra', 'kv POST /pipeline');
    const dropped = await send('/pipeline');
    expect(dropped.headers['x-extra']).toBeUndefined();
    expect(proxy.fired()).toBe(1);
  });

  test('a request header the target should read is taken away before it arrives', async () => {
    use('headers.request-ignored:svc-encoding', 'kv POST /{command}/*');
    await send('/echo/z', { headers: { 'svc-encoding': 'base64' } });
    const last = recorded.at(-1) as Exchange;
    // The record keeps what the client sent; the upstream saw the request without it (fired).
    expect(last.request.headers['svc-encoding']).toBe('base64');
    expect(proxy.fired()).toBe(1);
  });
});

describe('JSON at every depth', () => {
  test.each([
    [
      'json.item-dropped@2',
      '[{"result":"OK"},{"result":["a","b"]},{"result":9007199254740992},{"error":"WRONGTYPE bad kind"}]',
    ],
    [
      'json.items-reversed@0',
      '[{"error":"WRONGTYPE bad kind"},{"result":9007199254740992},{"result":["a","b",1]},{"result":"OK"}]',
    ],
    [
      'json.error-class-stripped',
      '[{"result":"OK"},{"result":["a","b",1]},{"result":9007199254740992},{"error":"bad kind"}]',
    ],
    [
      'json.field-renamed:error',
      '[{"result":"OK"},{"result":["a","b",1]},{"result":9007199254740992},{"x_error":"WRONGTYPE bad kind"}]',
    ],
    [
      'json.number-as-string',
      '[{"result":"OK"},{"result":["a","b","1"]},{"result":"9007199254740992"},{"error":"WRONGTYPE bad kind"}]',
    ],
  ])('%s', async (id, expected) => {
    use(id, 'kv POST /pipeline');
    expect((await send('/pipeline')).text).toBe(expected);
    expect(proxy.fired()).toBe(1);
  });

  test('integers through a double: 1 written 1.0, and a big integer rounded in the text', async () => {
    use('json.integer-as-double', 'kv POST /pipeline');
    expect((await send('/pipeline')).text).toContain('["a","b",1.0]');
    use('json.big-integer-rounded', 'kv POST /pipeline');
    expect((await send('/pipeline')).text).toContain('{"result":9007199254740992}');
    // Digits inside a string are no integer: nothing to round, the mutant does not fire there.
    use('json.big-integer-rounded', 'kv POST /{command}/*');
    const before = proxy.fired();
    expect(JSON.parse((await send('/info')).text).result).toBe(
      'server_time_usec:1795000000000001\r\nx "9007199254740993"',
    );
    expect(proxy.fired()).toBe(before);
  });

  test('base64: a plain string encoded, an encoded one decoded', async () => {
    use('json.string-base64-encoded', 'kv POST /{command}/*');
    expect(JSON.parse((await send('/bad')).text)).toEqual({
      error: Buffer.from('ERR syntax error').toString('base64'),
    });
    use('json.string-base64-decoded', 'kv POST /{command}/*');
    expect(JSON.parse((await send('/encoded')).text)).toEqual({ result: 'hello world' });
  });
});

describe('SSE, event by event', () => {
  const events = (text: string) => text.split('\n\n').filter((event) => event !== '');
  test.each([
    [undefined, ['data: subscribe,ch,1', 'data: message,ch,one', 'data: message,ch,two']],
    ['sse.event-dropped', ['data: subscribe,ch,1', 'data: message,ch,two']],
    [
      'sse.event-duplicated',
      ['data: subscribe,ch,1', 'data: message,ch,one', 'data: message,ch,one', 'data: message,ch,two'],
    ],
    ['sse.events-swapped', ['data: subscribe,ch,1', 'data: message,ch,two', 'data: message,ch,one']],
    ['sse.data-reprefixed', ['event: subscribe,ch,1', 'event: message,ch,one', 'event: message,ch,two']],
  ] as const)('%s', async (id, expected) => {
    if (id) use(id, 'kv GET /subscribe/*');
    else proxy.setMutant(undefined);
    const answer = await send('/subscribe/ch', { method: 'GET' });
    expect(events(answer.text)).toEqual(expected);
    expect(proxy.fired()).toBe(id ? 1 : 0);
    const last = recorded.at(-1) as Exchange;
    expect(last.events).toEqual(['data: subscribe,ch,1', 'data: message,ch,one', 'data: message,ch,two']);
  });
});

describe('auth relaxed', () => {
  const echoed = async (path: string, headers: Record<string, string> = {}) =>
    (JSON.parse((await send(path, { headers })).text) as { result: { path: string; authorization: string | null } })
      .result;

  test('missing credentials get the standard token; standard ones are left alone', async () => {
    use('auth.missing-accepted', 'kv POST /{command}/*');
    expect((await echoed('/echo/a')).authorization).toBe('Bearer standard-token');
    expect((await echoed('/echo/b', { authorization: 'Bearer standard-token' })).authorization).toBe(
      'Bearer standard-token',
    );
    expect(proxy.fired()).toBe(1);
  });

  test('a wrong token, in the header or the query, becomes the standard one; the read-only token does not', async () => {
    use('auth.wrong-accepted', 'kv POST /{command}/*');
    expect((await echoed('/echo/c', { authorization: 'Bearer nope' })).authorization).toBe('Bearer standard-token');
    expect((await echoed('/echo/d?_token=nope&x=1')).path).toBe('/echo/d?_token=standard-token&x=1');
    expect((await echoed('/echo/e', { authorization: 'Bearer read-only-token' })).authorization).toBe(
      'Bearer read-only-token',
    );
    expect(proxy.fired()).toBe(2);
  });

  test('the read-only token treated as standard', async () => {
    use('auth.read-only-as-standard', 'kv POST /{command}/*');
    expect((await echoed('/echo/f', { authorization: 'Bearer read-only-token' })).authorization).toBe(
      'Bearer standard-token',
    );
    expect(proxy.fired()).toBe(1);
  });
});

describe('the delivery side, between a target and its receiver', () => {
  async function signed(path: string, body: string, extra: Record<string, string> = {}) {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      iss: 'svc',
      sub: `${receiver.url}${path}`,
      iat: now,
      nbf: now,
      exp: now + 300,
      body: bodyClaim(Buffer.from(body)),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(signingKey));
    const answer = await request(`${delivery.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-signature': token, 'svc-message-id': 'msg_1', ...extra },
      body,
    });
    await answer.body.dump();
    return answer.statusCode;
  }
  const verify = (token: string) => jwtVerify(token, new TextEncoder().encode(signingKey));
  const lastOn = (path: string) => receiver.on(path).at(-1);

  test('dropped: the target is told 200, the receiver sees nothing; duplicated: it sees two', async () => {
    use('delivery.dropped', 'delivery message', delivery);
    expect(await signed('/t1/dest', 'hello')).toBe(200);
    expect(receiver.on('/t1/')).toHaveLength(0);
    use('delivery.duplicated', 'delivery message', delivery);
    await signed('/t2/dest', 'hello');
    expect(receiver.on('/t2/')).toHaveLength(2);
    expect(delivery.fired()).toBe(1);
  });

  test('signature claims changed and re-signed with the key that signed: it verifies, its claims are wrong', async () => {
    use('signature.sub-changed', 'delivery message', delivery);
    await signed('/t3/dest', 'hello');
    const sub = (await verify(lastOn('/t3/')?.headers['svc-signature'] as string)).payload.sub;
    expect(sub).toBe(`${receiver.url}/t3/dest/other`);
    use('signature.exp-past', 'delivery message', delivery);
    await signed('/t4/dest', 'hello');
    await expect(verify(lastOn('/t4/')?.headers['svc-signature'] as string)).rejects.toThrow(/exp/);
    use('signature.bytes-changed', 'delivery message', delivery);
    await signed('/t5/dest', 'hello');
    await expect(verify(lastOn('/t5/')?.headers['svc-signature'] as string)).rejects.toThrow(/signature/);
  });

  test('a callback field off by one: the body changes and its signature still matches it', async () => {
    use('json.field-off-by-one:retried', 'delivery callback', delivery);
    await signed('/t6/callback', '{"sourceMessageId":"msg_1","retried":0,"status":200}');
    const got = lastOn('/t6/');
    expect(JSON.parse(got?.body.toString() ?? '')).toEqual({ sourceMessageId: 'msg_1', retried: 1, status: 200 });
    const { payload } = await verify(got?.headers['svc-signature'] as string);
    expect(payload.body).toBe(bodyClaim(got?.body as Buffer));
  });

  test('a retry carries the first attempt signature, expired', async () => {
    use('signature.stale-on-retry', 'delivery message', delivery);
    await signed('/t7/dest', 'again', { 'svc-retried': '0' });
    const first = lastOn('/t7/')?.headers['svc-signature'];
    await signed('/t7/dest', 'again', { 'svc-retried': '1' });
    const second = lastOn('/t7/')?.headers['svc-signature'] as string;
    expect(second).not.toBe(first);
    await expect(verify(second)).rejects.toThrow(/exp/);
    expect(delivery.fired()).toBe(1);
  });
});

describe('applicability on recorded exchanges', () => {
  const context: MutationContext = {
    area: 'kv',
    side: 'front',
    credentials,
    signingKeys: async () => [signingKey],
    memory: new Map(),
  };
  test('an operator applies where it would change the exchange, and not elsewhere', async () => {
    const pipeline = recorded.find((exchange) => exchange.routeClass === 'kv POST /pipeline') as Exchange;
    const stream = recorded.find((exchange) => exchange.events !== undefined) as Exchange;
    const applies = (id: string, exchange: Exchange) =>
      appliesTo(operatorById(id) as NonNullable<ReturnType<typeof operatorById>>, exchange, context);
    expect(await applies('json.error-class-stripped', pipeline)).toBe(true);
    expect(await applies('status.400-to-401', pipeline)).toBe(false);
    expect(await applies('sse.events-swapped', stream)).toBe(true);
    expect(await applies('sse.events-swapped', pipeline)).toBe(false);
    expect(await applies('json.item-dropped@0', stream)).toBe(false);
    expect(await applies('delivery.dropped', pipeline)).toBe(false);
  });
});
