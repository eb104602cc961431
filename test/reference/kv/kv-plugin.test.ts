/** Area B request forms, bodies, headers, command support and tokens, over real HTTP on a real Redis. */
import { describe, expect, it } from 'vitest';
import { call, uniqueKey, useTestReference } from '../../support/reference-fixture.ts';

const env = useTestReference();

describe('methods and request forms', () => {
  it('accepts GET, POST, PUT and HEAD on command paths', async () => {
    for (const method of ['GET', 'POST', 'PUT'] as const) {
      const res = await call(env.ref, '/ping', { method });
      expect(res.status, method).toBe(200);
      expect(res.json).toEqual({ result: 'PONG' });
    }
    const head = await call(env.ref, '/ping', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('answers 405 with an {error} for other methods', async () => {
    for (const method of ['DELETE', 'PATCH', 'OPTIONS'] as const) {
      const res = await call(env.ref, '/ping', { method });
      expect(res.status, method).toBe(405);
      expect(res.json).toEqual({ error: expect.stringMatching(/^ERR /) });
    }
  });

  it('takes the command and its arguments from path segments, case-insensitively', async () => {
    const key = uniqueKey();
    expect((await call(env.ref, `/SeT/${key}/v1`)).json).toEqual({ result: 'OK' });
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: 'v1' });
  });

  it('percent-decodes each segment to bytes, slashes and spaces included', async () => {
    const key = uniqueKey();
    await call(env.ref, `/set/${encodeURIComponent(key)}/${encodeURIComponent('a/b c%')}`);
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: 'a/b c%' });
    await call(env.ref, `/set/${key}/%FF%00z`);
    expect((await call(env.ref, `/strlen/${key}`)).json).toEqual({ result: 3 });
  });

  it('appends the POST body as last argument, then the query pairs', async () => {
    const key = uniqueKey();
    const res = await call(env.ref, `/set/${key}?EX=100`, { body: 'body, with "quotes"\n' });
    expect(res.json).toEqual({ result: 'OK' });
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: 'body, with "quotes"\n' });
    const ttl = (await call(env.ref, `/ttl/${key}`)).json as { result: number };
    expect(ttl.result).toBeGreaterThan(90);
  });

  it('keeps a binary POST body byte for byte, whatever its content type', async () => {
    const key = uniqueKey();
    const bytes = Uint8Array.from([0xff, 0x00, 0x0d, 0x0a, 0x7b]);
    expect((await call(env.ref, `/set/${key}`, { body: bytes })).json).toEqual({ result: 'OK' });
    const read = await call(env.ref, `/get/${key}`, { headers: { 'Svc-Encoding': 'base64' } });
    expect(read.json).toEqual({ result: Buffer.from(bytes).toString('base64') });
    const typed = await call(env.ref, `/set/${key}`, {
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(typed.json).toEqual({ result: 'OK' });
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: '{"a":1}' });
  });

  it('never treats _token as an argument', async () => {
    const key = uniqueKey();
    const res = await call(env.ref, `/set/${key}/v?_token=${env.ref.target.kv!.token}`, { token: null });
    expect(res.json).toEqual({ result: 'OK' });
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: 'v' });
  });

  it('runs POST / with a JSON array, numbers stringified', async () => {
    const key = uniqueKey();
    expect((await call(env.ref, '/', { body: ['INCRBY', key, 5] })).json).toEqual({ result: 5 });
    expect((await call(env.ref, '/', { body: ['get', key] })).json).toEqual({ result: '5' });
    // Digits as written: a JS number would store 12345678901234567000.
    await call(env.ref, '/', { body: `["set","${key}",12345678901234567890]` });
    expect((await call(env.ref, '/', { body: ['get', key] })).json).toEqual({ result: '12345678901234567890' });
  });

  it('answers 400 {error} for objects, empty arrays and malformed JSON on POST /', async () => {
    for (const body of ['["set", {"a": 1}]', '[]', '{"cmd":"get"}', '[["get"', '']) {
      const res = await call(env.ref, '/', { method: 'POST', body });
      expect(res.status, body).toBe(400);
      expect(res.json, body).toEqual({ error: expect.stringMatching(/^ERR /) });
    }
  });
});

describe('bodies and statuses', () => {
  it('answers {result} with null, integers, strings and arrays', async () => {
    const key = uniqueKey();
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: null });
    await call(env.ref, `/rpush/${key}/a/b`);
    expect((await call(env.ref, `/lrange/${key}/0/-1`)).json).toEqual({ result: ['a', 'b'] });
    expect((await call(env.ref, `/llen/${key}`)).json).toEqual({ result: 2 });
    const res = await call(env.ref, '/ping');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers execution failures 400 with a class token', async () => {
    const key = uniqueKey();
    await call(env.ref, `/set/${key}/text`);
    const wrongType = await call(env.ref, `/lpush/${key}/x`);
    expect(wrongType.status).toBe(400);
    expect(wrongType.json).toEqual({ error: expect.stringMatching(/^WRONGTYPE /) });
    const notInteger = await call(env.ref, `/incr/${key}`);
    expect(notInteger.status).toBe(400);
    expect(notInteger.json).toEqual({ error: 'ERR value is not an integer or out of range' });
    const arity = await call(env.ref, '/get');
    expect(arity.json).toEqual({ error: expect.stringMatching(/^ERR wrong number of arguments/) });
  });

  it('answers unknown commands, an empty path and a bad percent-escape with 400 {error}, and keeps serving', async () => {
    for (const path of ['/nosuchcommand/x', '/', '/get/%zz', '/get/%4']) {
      const res = await call(env.ref, path);
      expect(res.status, path).toBe(400);
      expect(res.json, path).toEqual({ error: expect.stringMatching(/^ERR /) });
    }
    expect((await call(env.ref, '/nosuchcommand')).json).toEqual({
      error: "ERR Command is not available: 'NOSUCHCOMMAND'",
    });
    expect((await call(env.ref, '/ping')).json).toEqual({ result: 'PONG' });
  });
});

describe('Svc-Encoding and Svc-Response-Format', () => {
  const base64 = { 'Svc-Encoding': 'base64' };
  const resp2 = { 'Svc-Response-Format': 'resp2' };

  it('base64-encodes every string but OK, recursively; integers, nulls and errors stay', async () => {
    const key = uniqueKey();
    expect((await call(env.ref, `/set/${key}/v`, { headers: base64 })).json).toEqual({ result: 'OK' });
    expect((await call(env.ref, `/get/${key}`, { headers: base64 })).json).toEqual({ result: 'dg==' });
    expect((await call(env.ref, '/ping', { headers: base64 })).json).toEqual({ result: 'UE9ORw==' });
    expect((await call(env.ref, `/type/${key}`, { headers: base64 })).json).toEqual({ result: 'c3RyaW5n' });
    expect((await call(env.ref, `/strlen/${key}`, { headers: base64 })).json).toEqual({ result: 1 });
    expect((await call(env.ref, `/mget/${key}/${uniqueKey()}`, { headers: base64 })).json).toEqual({
      result: ['dg==', null],
    });
    expect((await call(env.ref, `/incr/${key}`, { headers: base64 })).json).toEqual({
      error: 'ERR value is not an integer or out of range',
    });
  });

  it('replaces invalid UTF-8 by U+FFFD unless base64 is asked for', async () => {
    const key = uniqueKey();
    await call(env.ref, `/set/${key}/a%FFb%C3`);
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: 'a\uFFFDb\uFFFD' });
    expect((await call(env.ref, `/get/${key}`, { headers: base64 })).json).toEqual({
      result: Buffer.from([0x61, 0xff, 0x62, 0xc3]).toString('base64'),
    });
  });

  it('answers raw RESP2 bytes as application/octet-stream, simple and bulk strings kept apart', async () => {
    const key = uniqueKey();
    const set = await call(env.ref, `/set/${key}/bar`, { headers: resp2 });
    expect(set.headers['content-type']).toBe('application/octet-stream');
    expect(set.body.toString()).toBe('+OK\r\n');
    expect((await call(env.ref, `/get/${key}`, { headers: resp2 })).body.toString()).toBe('$3\r\nbar\r\n');
    expect((await call(env.ref, `/type/${key}`, { headers: resp2 })).body.toString()).toBe('+string\r\n');
    expect((await call(env.ref, `/strlen/${key}`, { headers: resp2 })).body.toString()).toBe(':3\r\n');
    expect((await call(env.ref, `/get/${uniqueKey()}`, { headers: resp2 })).body.toString()).toBe('$-1\r\n');
    expect((await call(env.ref, `/mget/${key}/${uniqueKey()}`, { headers: resp2 })).body.toString()).toBe(
      '*2\r\n$3\r\nbar\r\n$-1\r\n',
    );
    // 64-bit integers stay exact: a JS number would answer :9223372036854776000.
    const counter = uniqueKey();
    await call(env.ref, `/set/${counter}/9223372036854775806`);
    expect((await call(env.ref, `/incr/${counter}`, { headers: resp2 })).body.toString()).toBe(
      ':9223372036854775807\r\n',
    );
    expect((await call(env.ref, `/decr/${counter}`)).body.toString()).toBe('{"result":9223372036854775806}');
    const failed = await call(env.ref, `/incr/${key}`, { headers: resp2 });
    expect(failed.status).toBe(400);
    expect(failed.body.toString()).toBe('-ERR value is not an integer or out of range\r\n');
    expect((await call(env.ref, '/ping', { headers: { 'Svc-Response-Format': 'json' } })).json).toEqual({
      result: 'PONG',
    });
  });

  it('answers 400 for an unknown format and for base64 with resp2', async () => {
    for (const format of ['xml', 'JSON', 'RESP2', '']) {
      const unknown = await call(env.ref, '/ping', { headers: { 'Svc-Response-Format': format } });
      expect(unknown.status, format).toBe(400);
      expect(unknown.json).toEqual({ error: expect.stringMatching(/^ERR /) });
    }
    const both = await call(env.ref, '/ping', { headers: { ...base64, ...resp2 } });
    expect(both.status).toBe(400);
    expect(both.json).toEqual({ error: expect.stringMatching(/^ERR /) });
  });
});

describe('command support', () => {
  const refused = [
    '/blpop/l/1',
    '/brpop/l/1',
    '/brpoplpush/a/b/1',
    '/blmove/a/b/left/left/1',
    '/bzpopmin/z/1',
    '/bzpopmax/z/1',
    '/auth/default/x',
    '/select/1',
    '/client/id',
    '/hello/3',
    '/quit',
    '/reset',
    '/cluster/info',
    '/readonly',
    '/watch/k',
    '/unwatch',
    '/discard',
    '/multi',
    '/exec',
    '/xread/block/10/streams/s/0',
    '/xreadgroup/group/g/c/block/10/streams/s/%3E',
  ];
  it.each(refused)('refuses %s with 400 ERR Command is not available', async (path) => {
    const res = await call(env.ref, path);
    expect(res.status).toBe(400);
    const name = decodeURIComponent(path.split('/')[1]!).toUpperCase();
    expect(res.json).toEqual({ error: `ERR Command is not available: '${name}'` });
  });

  it('runs PING, ECHO, non-blocking XREAD and the supported groups', async () => {
    const key = uniqueKey();
    expect((await call(env.ref, '/echo/hi')).json).toEqual({ result: 'hi' });
    expect((await call(env.ref, `/xadd/${key}/1-1/f/v`)).json).toEqual({ result: '1-1' });
    expect((await call(env.ref, `/xread/count/1/streams/${key}/0`)).json).toEqual({
      result: [[key, [['1-1', ['f', 'v']]]]],
    });
    expect((await call(env.ref, `/pfadd/${uniqueKey()}/a/b`)).json).toEqual({ result: 1 });
    expect((await call(env.ref, `/eval/return 7/0`)).json).toEqual({ result: 7 });
  });

  it('runs the JSON group and names its mode in /info', async () => {
    const key = uniqueKey();
    expect((await call(env.ref, `/json.set/${key}/$`, { body: '{"a":1,"b":[1,2]}' })).json).toEqual({ result: 'OK' });
    expect((await call(env.ref, `/json.get/${key}/$.a`)).json).toEqual({ result: '[1]' });
    const info = (await call(env.ref, '/info', { method: 'POST' })).json as { result: string };
    expect(info.result).toMatch(/# Svc\r\nsvc_json_commands:(native|emulated)\r\n/);
    expect(info.result).toMatch(/redis_version:/);
  });
});

describe('tokens', () => {
  it('answers 401 to an ACL token whose user Redis no longer accepts', async () => {
    const user = uniqueKey('user').replace(':', '-');
    await call(env.ref, '/', { body: ['ACL', 'SETUSER', user, 'on', '>pw', '~*', '&*', '+@all'] });
    const token = ((await call(env.ref, `/acl/resttoken/${user}/pw`)).json as { result: string }).result;
    expect((await call(env.ref, '/ping', { token })).json).toEqual({ result: 'PONG' });
    // Deleting the user closes its connections; reconnecting is refused.
    await call(env.ref, `/acl/deluser/${user}`);
    let res = await call(env.ref, '/ping', { token });
    for (let i = 0; i < 40 && res.status !== 401; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      res = await call(env.ref, '/ping', { token });
    }
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: 'WRONGPASS invalid or missing auth token' });
    expect((await call(env.ref, `/subscribe/${uniqueKey('ch')}`, { method: 'POST', token })).status).toBe(401);
  });

  it('authenticates by Bearer header or _token; 401 otherwise', async () => {
    const kv = env.ref.target.kv!;
    expect((await call(env.ref, '/ping', { token: kv.token })).status).toBe(200);
    expect((await call(env.ref, `/ping?_token=${encodeURIComponent(kv.token)}`, { token: null })).status).toBe(200);
    for (const res of [
      await call(env.ref, '/ping', { token: null }),
      await call(env.ref, '/ping', { token: 'wrong' }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: 'WRONGPASS invalid or missing auth token' });
    }
    expect((await call(env.ref, '/ping?_token=wrong', { token: null })).status).toBe(401);
  });

  it('lets the Read Only token run reads, PING and ECHO, and refuses writes, KEYS and SCAN', async () => {
    const readOnly = env.ref.target.kv!.readOnlyToken!;
    const key = uniqueKey();
    await call(env.ref, `/set/${key}/v`);
    expect((await call(env.ref, `/get/${key}`, { token: readOnly })).json).toEqual({ result: 'v' });
    expect((await call(env.ref, `/exists/${key}`, { token: readOnly })).json).toEqual({ result: 1 });
    expect((await call(env.ref, '/ping', { token: readOnly })).json).toEqual({ result: 'PONG' });
    expect((await call(env.ref, '/echo/x', { token: readOnly })).json).toEqual({ result: 'x' });
    for (const path of [`/set/${key}/w`, `/del/${key}`, '/keys/*', '/scan/0', '/flushall', '/config/set/x/y']) {
      const res = await call(env.ref, path, { token: readOnly });
      expect(res.status, path).toBe(400);
      expect(res.json, path).toEqual({
        error: expect.stringMatching(/^NOPERM this user has no permissions to run the '/),
      });
    }
    expect((await call(env.ref, '/config/get/maxmemory', { token: readOnly })).status).toBe(400);
    expect((await call(env.ref, `/object/encoding/${key}`, { token: readOnly })).json).toEqual({ result: 'embstr' });
    expect((await call(env.ref, `/get/${key}`)).json).toEqual({ result: 'v' });
  });

  it('ACL RESTTOKEN returns a token with that user’s permissions, and errors for a bad user or password', async () => {
    const user = uniqueKey('user').replace(':', '-');
    await call(env.ref, '/', { body: ['ACL', 'SETUSER', user, 'on', '>secret-pw', '~allowed:*', '+get', '+set'] });
    const issued = await call(env.ref, `/acl/resttoken/${user}/secret-pw`);
    expect(issued.status).toBe(200);
    const token = (issued.json as { result: string }).result;
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect((await call(env.ref, '/set/allowed:1/v', { token })).json).toEqual({ result: 'OK' });
    const denied = await call(env.ref, '/set/other/v', { token });
    expect(denied.status).toBe(400);
    expect(denied.json).toEqual({ error: expect.stringMatching(/^NOPERM /) });
    expect((await call(env.ref, '/del/allowed:1', { token })).json).toEqual({
      error: expect.stringMatching(/^NOPERM /),
    });
    for (const path of [`/acl/resttoken/${user}/wrong`, '/acl/resttoken/nobody-here/pw']) {
      const res = await call(env.ref, path);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: expect.stringMatching(/^ERR Wrong password or user ".+" does not exist$/) });
    }
  });
});
