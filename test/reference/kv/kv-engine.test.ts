/** Pipelines, MULTI/EXEC transactions and the per-command limits, over real HTTP on a real Redis. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { admin, call, startTestRedis, startTestReference, uniqueKey } from '../../support/reference-fixture.ts';

let redis: RedisBacking;
let ref: RunningReference;
let limited: RunningReference;

beforeAll(async () => {
  redis = await startTestRedis();
  ref = await startTestReference(redis);
  limited = await startTestReference(redis, { maxRequestBytes: 64, dailyRequestLimit: 5 });
});
afterAll(async () => {
  await ref?.stop();
  await limited?.stop();
  await redis?.stop();
});

describe('/pipeline', () => {
  it('answers one item per command in order; a failure is an item and the rest run', async () => {
    const key = uniqueKey();
    const res = await call(ref, '/pipeline', {
      body: [['set', key, 'a'], ['incr', key], ['append', key, 'b'], ['nosuch'], ['get', key]],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { result: 'OK' },
      { error: 'ERR value is not an integer or out of range' },
      { result: 2 },
      { error: "ERR Command is not available: 'NOSUCH'" },
      { result: 'ab' },
    ]);
  });

  it('applies base64 to items and answers RESP2 as the raw replies concatenated', async () => {
    const key = uniqueKey();
    const b64 = await call(ref, '/pipeline', {
      body: [
        ['set', key, 'v'],
        ['get', key],
      ],
      headers: { 'Svc-Encoding': 'base64' },
    });
    expect(b64.json).toEqual([{ result: 'OK' }, { result: 'dg==' }]);
    const raw = await call(ref, '/pipeline', {
      body: [
        ['set', key, 'v'],
        ['get', key],
        ['incr', key],
      ],
      headers: { 'Svc-Response-Format': 'resp2' },
    });
    expect(raw.headers['content-type']).toBe('application/octet-stream');
    expect(raw.body.toString()).toBe('+OK\r\n$1\r\nv\r\n-ERR value is not an integer or out of range\r\n');
  });

  it('answers 400 {error} for a body that is not an array of command arrays', async () => {
    for (const body of ['[["set","a"],"get"]', '[]', '{}', 'not json', '[[]]', '[["set", null]]']) {
      const res = await call(ref, '/pipeline', { method: 'POST', body });
      expect(res.status, body).toBe(400);
      expect(res.json, body).toEqual({ error: expect.stringMatching(/^ERR /) });
    }
  });
});

describe('/multi-exec', () => {
  it('runs atomically and answers one item per command; run-time errors stay in place', async () => {
    const key = uniqueKey();
    const res = await call(ref, '/multi-exec', {
      body: [
        ['set', key, 'a'],
        ['incr', key],
        ['append', key, 'b'],
        ['get', key],
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { result: 'OK' },
      { error: 'ERR value is not an integer or out of range' },
      { result: 2 },
      { result: 'ab' },
    ]);
  });

  it('is atomic: a concurrent reader never sees half a transaction', async () => {
    const [a, b] = [uniqueKey(), uniqueKey()];
    const writes = Array.from({ length: 20 }, (_, i) =>
      call(ref, '/multi-exec', {
        body: [
          ['set', a, String(i)],
          ['set', b, String(i)],
        ],
      }),
    );
    const reads = Array.from({ length: 20 }, () => call(ref, '/multi-exec', { body: [['mget', a, b]] }));
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) {
      const [item] = read.json as [{ result: (string | null)[] }];
      expect(item.result[0]).toBe(item.result[1]);
    }
  });

  it('discards the whole transaction with one {error} on a syntax error or an unsupported command', async () => {
    for (const bad of [['set', 'x'], ['blpop', 'x', '1'], ['watch', 'x'], ['unwatch'], ['discard'], ['nosuch']]) {
      const key = uniqueKey();
      const res = await call(ref, '/multi-exec', { body: [['set', key, 'v'], bad] });
      expect(res.status, bad.join(' ')).toBe(400);
      expect(res.json, bad.join(' ')).toEqual({ error: expect.stringMatching(/^ERR /) });
      expect((await call(ref, `/exists/${key}`)).json, bad.join(' ')).toEqual({ result: 0 });
    }
    expect((await call(ref, '/multi-exec', { method: 'POST', body: '[["set"' })).status).toBe(400);
  });

  it('answers JSON only, even when resp2 is asked for', async () => {
    const res = await call(ref, '/multi-exec', {
      body: [['ping']],
      headers: { 'Svc-Response-Format': 'resp2' },
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual([{ result: 'PONG' }]);
  });

  it('applies base64 to items', async () => {
    const res = await call(ref, '/multi-exec', {
      body: [
        ['set', uniqueKey(), 'v'],
        ['echo', 'v'],
      ],
      headers: { 'Svc-Encoding': 'base64' },
    });
    expect(res.json).toEqual([{ result: 'OK' }, { result: 'dg==' }]);
  });

  it('refuses writes for the Read Only token with one NOPERM error', async () => {
    const res = await call(ref, '/multi-exec', {
      body: [
        ['get', 'x'],
        ['set', 'x', 'y'],
      ],
      token: ref.target.kv!.readOnlyToken!,
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: expect.stringMatching(/^NOPERM /) });
  });
});

describe('the JSON group in pipelines and transactions', () => {
  it('runs JSON commands in both, and lets the Read Only token read but not write them', async () => {
    const key = uniqueKey();
    expect(
      (
        await call(ref, '/pipeline', {
          body: [
            ['json.set', key, '$', '{"n":1}'],
            ['json.numincrby', key, '$.n', 2],
          ],
        })
      ).json,
    ).toEqual([{ result: 'OK' }, { result: '[3]' }]);
    expect(
      (
        await call(ref, '/multi-exec', {
          body: [
            ['json.get', key, '$.n'],
            ['json.type', key, '$.n'],
          ],
        })
      ).json,
    ).toEqual([{ result: '[3]' }, { result: ['integer'] }]);
    const readOnly = ref.target.kv!.readOnlyToken!;
    expect((await call(ref, `/json.get/${key}/$.n`, { token: readOnly })).json).toEqual({ result: '[3]' });
    expect((await call(ref, `/json.del/${key}/$.n`, { token: readOnly })).json).toEqual({
      error: expect.stringMatching(/^NOPERM /),
    });
  });
});

describe('ACL users in pipelines and transactions', () => {
  async function aclToken(rules: string[]): Promise<string> {
    const user = uniqueKey('user').replace(':', '-');
    await call(ref, '/', { body: ['ACL', 'SETUSER', user, 'on', '>pw', ...rules] });
    return ((await call(ref, `/acl/resttoken/${user}/pw`)).json as { result: string }).result;
  }

  it('runs pipelines and transactions with the user’s permissions', async () => {
    const token = await aclToken(['~acl:*', '+get', '+set', '+multi', '+exec']);
    const key = `acl:${uniqueKey()}`;
    expect(
      (
        await call(ref, '/pipeline', {
          token,
          body: [
            ['set', key, 'v'],
            ['del', key],
          ],
        })
      ).json,
    ).toEqual([{ result: 'OK' }, { error: expect.stringMatching(/^NOPERM /) }]);
    expect(
      (
        await call(ref, '/multi-exec', {
          token,
          body: [
            ['get', key],
            ['set', key, 'w'],
          ],
        })
      ).json,
    ).toEqual([{ result: 'v' }, { result: 'OK' }]);
  });

  it('discards a transaction of a user without MULTI before any command runs', async () => {
    const token = await aclToken(['~acl:*', '+get', '+set']);
    const key = `acl:${uniqueKey()}`;
    const res = await call(ref, '/multi-exec', { token, body: [['set', key, 'v']] });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: expect.stringMatching(/^NOPERM /) });
    expect((await call(ref, `/exists/${key}`)).json).toEqual({ result: 0 });
  });
});

describe('limits, per command', () => {
  beforeEach(async () => {
    await admin(limited, 'POST', '/limits/reset-daily');
  });
  const big = 'x'.repeat(100);

  it('refuses a command over the maximum request size, alone and inside a pipeline', async () => {
    const single = await call(limited, `/set/k/${big}`);
    expect(single.status).toBe(400);
    expect(single.json).toEqual({ error: 'ERR max request size exceeded' });
    const posted = await call(limited, '/set/k', { body: big });
    expect(posted.json).toEqual({ error: 'ERR max request size exceeded' });
    const pipeline = await call(limited, '/pipeline', {
      body: [
        ['echo', 'small'],
        ['echo', big],
      ],
    });
    expect(pipeline.json).toEqual([{ result: 'small' }, { error: 'ERR max request size exceeded' }]);
  });

  it('discards a transaction holding an oversize command', async () => {
    const key = uniqueKey();
    const res = await call(limited, '/multi-exec', {
      body: [
        ['set', key, 'v'],
        ['echo', big],
      ],
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'ERR max request size exceeded' });
    expect((await call(ref, `/exists/${key}`)).json).toEqual({ result: 0 });
  });

  it('counts every command of pipelines and transactions against the daily limit', async () => {
    expect((await call(limited, '/pipeline', { body: [['ping'], ['ping'], ['ping']] })).json).toEqual([
      { result: 'PONG' },
      { result: 'PONG' },
      { result: 'PONG' },
    ]);
    const key = uniqueKey();
    const tx = await call(limited, '/multi-exec', { body: [['set', key, 'v'], ['ping'], ['ping']] });
    expect(tx.status).toBe(400);
    expect(tx.json).toEqual({ error: 'ERR max daily request limit exceeded' });
    expect((await call(ref, `/exists/${key}`)).json).toEqual({ result: 0 });
    expect((await call(limited, '/pipeline', { body: [['ping'], ['ping'], ['ping']] })).json).toEqual([
      { result: 'PONG' },
      { result: 'PONG' },
      { error: 'ERR max daily request limit exceeded' },
    ]);
    const single = await call(limited, '/ping');
    expect(single.status).toBe(400);
    expect(single.json).toEqual({ error: 'ERR max daily request limit exceeded' });
  });

  it('answers a body far over the limit with the limit’s error, and keeps serving', async () => {
    const huge = Buffer.alloc(17 * 1024 * 1024, 0x61);
    const res = await call(limited, '/set/k', { body: huge });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'ERR max request size exceeded' });
    expect((await call(limited, '/ping')).json).toEqual({ result: 'PONG' });
  });
});
