/**
 * The official `@upstash/redis` SDK as a real client of the reference in the upstash dialect: a tour
 * of every command group, booleans as arguments, pipelines, auto-pipelining and transactions, with the
 * SDK's own defaults (base64 answers, its headers). Every call the SDK makes that the reference
 * answered differently from the real service would be a reference bug.
 */
import { Redis } from '@upstash/redis';
import { describe, expect, it } from 'vitest';
import { uniqueKey, useTestReference } from '../support/reference-fixture.ts';

const env = useTestReference({ dialect: 'upstash' });

function client(options: { enableAutoPipelining?: boolean } = {}): Redis {
  const kv = env.ref.target.kv!;
  return new Redis({ url: kv.url, token: kv.token, enableTelemetry: false, ...options });
}

describe('@upstash/redis against serve --dialect upstash', () => {
  it('strings, counters and expiry', async () => {
    const redis = client();
    const key = uniqueKey('str');
    expect(await redis.set(key, 'hello', { ex: 60 })).toBe('OK');
    expect(await redis.get(key)).toBe('hello');
    expect(await redis.append(key, ' world')).toBe(11);
    expect(await redis.ttl(key)).toBeGreaterThan(0);
    expect(await redis.incrby(`${key}:n`, 5)).toBe(5);
    expect(await redis.incrbyfloat(`${key}:n`, 0.5)).toBe(5.5);
    expect(await redis.mget(key, `${key}:none`)).toEqual(['hello world', null]);
    expect(await redis.del(key, `${key}:n`)).toBe(2);
  });

  it('objects are stored as JSON and read back as objects', async () => {
    const redis = client();
    const key = uniqueKey('obj');
    await redis.set(key, { a: 1, b: [true, null, 'x'] });
    expect(await redis.get(key)).toEqual({ a: 1, b: [true, null, 'x'] });
    await redis.del(key);
  });

  it('hashes, with booleans as field values', async () => {
    const redis = client();
    const key = uniqueKey('hash');
    expect(await redis.hset(key, { name: 'svc', flag: false, on: true, count: 3 })).toBe(4);
    expect(await redis.hgetall(key)).toEqual({ name: 'svc', flag: false, on: true, count: 3 });
    expect(await redis.hincrby(key, 'count', 2)).toBe(5);
    expect(await redis.hkeys(key)).toEqual(expect.arrayContaining(['name', 'flag', 'on', 'count']));
    await redis.del(key);
  });

  it('lists and sets', async () => {
    const redis = client();
    const [list, set] = [uniqueKey('list'), uniqueKey('set')];
    expect(await redis.rpush(list, 'a', 'b', 'c')).toBe(3);
    expect(await redis.lrange(list, 0, -1)).toEqual(['a', 'b', 'c']);
    expect(await redis.lpop(list)).toBe('a');
    expect(await redis.sadd(set, 'x', 'y')).toBe(2);
    expect((await redis.smembers(set)).sort()).toEqual(['x', 'y']);
    expect(await redis.sismember(set, 'x')).toBe(1);
    await redis.del(list, set);
  });

  it('sorted sets with scores', async () => {
    const redis = client();
    const key = uniqueKey('zset');
    expect(await redis.zadd(key, { score: 1.5, member: 'one' }, { score: 3, member: 'three' })).toBe(2);
    expect(await redis.zrange(key, 0, -1, { withScores: true })).toEqual(['one', 1.5, 'three', 3]);
    expect(await redis.zscore(key, 'three')).toBe(3);
    expect(await redis.zincrby(key, 2, 'one')).toBe(3.5);
    await redis.del(key);
  });

  it('geo and streams', async () => {
    const redis = client();
    const [geo, stream] = [uniqueKey('geo'), uniqueKey('stream')];
    expect(
      await redis.geoadd(
        geo,
        { longitude: 13.361389, latitude: 38.115556, member: 'Palermo' },
        { longitude: 15.087269, latitude: 37.502669, member: 'Catania' },
      ),
    ).toBe(2);
    const km = await redis.geodist(geo, 'Palermo', 'Catania', 'KM');
    expect(km).toBeCloseTo(166.27, 1);
    const id = await redis.xadd(stream, '*', { field: 'value' });
    expect(typeof id).toBe('string');
    const entries = await redis.xrange(stream, '-', '+');
    expect(Object.values(entries)).toEqual([{ field: 'value' }]);
    await redis.del(geo, stream);
  });

  it('scripts and scan', async () => {
    const redis = client();
    const key = uniqueKey('script');
    expect(await redis.eval('return redis.call("SET", KEYS[1], ARGV[1])', [key], ['v'])).toBe('OK');
    expect(await redis.get(key)).toBe('v');
    const [, keys] = await redis.scan(0, { match: `${key}*`, count: 1000 });
    expect(Array.isArray(keys)).toBe(true);
    await redis.del(key);
  });

  it('JSON commands', async () => {
    const redis = client();
    const key = uniqueKey('json');
    expect(await redis.json.set(key, '$', { a: 1, list: [1, 2] })).toBe('OK');
    expect(await redis.json.get(key, '$.a')).toEqual([1]);
    expect(await redis.json.numincrby(key, '$.a', 2)).toEqual([3]);
    expect(await redis.json.arrappend(key, '$.list', 3)).toEqual([3]);
    expect(await redis.json.type(key, '$.list')).toEqual(['array']);
    expect(await redis.json.merge(key, '$', { b: true, a: null })).toBe('OK');
    expect(await redis.json.get(key)).toEqual({ list: [1, 2, 3], b: true });
    expect(await redis.json.toggle(key, '$.b')).toEqual([0]);
    expect(await redis.json.arrpop(key, '$.list')).toEqual([3]);
    expect(await redis.json.strappend(key, '$.none', '"x"')).toEqual([]);
    await redis.del(key);
  });

  it('pipelines keep order and put errors in place', async () => {
    const redis = client();
    const key = uniqueKey('pipe');
    const pipeline = redis.pipeline();
    pipeline.set(key, 'text');
    pipeline.incr(key);
    pipeline.get(key);
    const results = await pipeline.exec({ keepErrors: true });
    expect(results[0]).toEqual({ result: 'OK', error: undefined });
    expect(results[1]?.error).toMatch(/^ERR /);
    expect(results[2]).toEqual({ result: 'text', error: undefined });
    await redis.del(key);
  });

  it('auto-pipelining batches concurrent commands', async () => {
    const redis = client({ enableAutoPipelining: true });
    const key = uniqueKey('auto');
    const [set, incr, get] = await Promise.all([redis.set(key, 1), redis.incr(key), redis.get(key)]);
    expect([set, incr, get]).toEqual(['OK', 2, 2]);
    await redis.del(key);
  });

  it('transactions run atomically', async () => {
    const redis = client();
    const key = uniqueKey('tx');
    const tx = redis.multi();
    tx.set(key, 1);
    tx.incr(key);
    tx.get(key);
    expect(await tx.exec()).toEqual(['OK', 2, 2]);
    await redis.del(key);
  });
});
