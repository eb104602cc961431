import { createClient } from '@redis/client';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseCommandReply } from '../../../../src/protocol/kv/command-reply.ts';
import {
  type EmulatedJsonSupport,
  emulatedJsonSupport,
  jsonSupportFrom,
} from '../../../../src/reference/kv/json/json-emulation.ts';
import { acquireRedis } from '../../../../src/reference/redis/acquire-redis.ts';
import type { RedisBacking } from '../../../../src/reference/redis/redis-backing.ts';

type Client = ReturnType<typeof createClient>;
let backing: RedisBacking;
let client: Client;
let json: EmulatedJsonSupport;

beforeAll(async () => {
  backing = await acquireRedis({ prefer: 'redis-server' });
  client = createClient({ url: backing.url });
  client.on('error', () => {});
  await client.connect();
  json = emulatedJsonSupport(true);
});

afterAll(async () => {
  client?.destroy();
  await backing?.stop();
});

beforeEach(async () => {
  await client.flushAll();
});

const toBuffers = (args: readonly string[]): Buffer[] => args.map((arg) => Buffer.from(arg));

/** Sends one JSON command the way the reference does: translated when emulated. */
function send(...args: string[]): Promise<unknown> {
  const translated = json.translate(toBuffers(args));
  if (translated === undefined) throw new Error(`${args[0]} was not translated`);
  return client.sendCommand(translated);
}

async function errorOf(...args: string[]): Promise<string> {
  try {
    await send(...args);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error(`${args.join(' ')} did not fail`);
}

const doc = '{"a":1,"b":{"c":"x","d":[1,2,{"c":"y"}]},"e":[],"f":{},"n":null,"t":true}';

describe('detection', () => {
  it('finds no JSON module in Debian Redis 7.0 and emulates the required commands', async () => {
    const support = jsonSupportFrom(parseCommandReply(await client.sendCommand(['COMMAND'])));
    const moduleList = (await client.sendCommand(['MODULE', 'LIST'])) as unknown[];
    expect(support.mode).toBe(moduleList.length === 0 ? 'emulated' : 'native');
    if (support.mode === 'native') return;
    for (const name of ['SET', 'GET', 'DEL', 'TYPE', 'MGET', 'NUMINCRBY', 'STRLEN', 'ARRAPPEND', 'ARRLEN', 'OBJKEYS']) {
      expect(support.commands).toContain(`JSON.${name}`);
    }
    expect([...support.readOnlyCommands].sort()).toEqual(
      ['JSON.ARRLEN', 'JSON.GET', 'JSON.MGET', 'JSON.OBJKEYS', 'JSON.OBJLEN', 'JSON.STRLEN', 'JSON.TYPE'].sort(),
    );
    expect(support.translate(toBuffers(['GET', 'k']))).toBeUndefined();
    expect(support.translate(toBuffers(['json.get', 'k']))?.[0]?.toString()).toBe('EVAL_RO');
    expect(support.translate(toBuffers(['JSON.SET', 'k', '$', '1']))?.[0]?.toString()).toBe('EVAL');
  });
});

describe('JSON.SET and JSON.GET', () => {
  it('round-trips documents exactly, where cjson would not', async () => {
    const exact =
      '{"empty_array":[],"empty_object":{},"big":12345678901234567890,"neg":-9223372036854775808,' +
      '"float":1.50,"tiny":1e-300,"slash":"a/b","null":null,"esc":"\\"\\\\\\n\\t\\u0001","uni":"é😀",' +
      '"nested":[[[]],{"":{}}],"false":false}';
    expect(await send('JSON.SET', 'doc', '$', exact)).toBe('OK');
    expect(await send('JSON.GET', 'doc')).toBe(exact);
    expect(await client.get('doc')).toBe(exact);
    expect(await send('JSON.GET', 'doc', '$.uni')).toBe('["é😀"]');
  });

  it('reads escapes into their characters and writes them back in canonical form', async () => {
    await send('JSON.SET', 'doc', '$', '{"s":"a\\/b \\u00e9 \\ud83d\\ude00","k" : [ 1 , 2 ] }');
    expect(await send('JSON.GET', 'doc')).toBe('{"s":"a/b é 😀","k":[1,2]}');
  });

  it('answers $ paths with a JSON array of matches and legacy paths with the value', async () => {
    await send('JSON.SET', 'doc', '$', doc);
    expect(await send('JSON.GET', 'doc', '$')).toBe(`[${doc}]`);
    expect(await send('JSON.GET', 'doc', '$.b.c')).toBe('["x"]');
    expect(await send('JSON.GET', 'doc', '$["b"][\'d\'][0]')).toBe('[1]');
    expect(await send('JSON.GET', 'doc', '$.b.d[-1].c')).toBe('["y"]');
    expect(await send('JSON.GET', 'doc', '$..c')).toBe('["x","y"]');
    expect(await send('JSON.GET', 'doc', '$.b.d[*]')).toBe('[1,2,{"c":"y"}]');
    expect(await send('JSON.GET', 'doc', '$.missing')).toBe('[]');
    expect(await send('JSON.GET', 'doc', '.b.c')).toBe('"x"');
    expect(await send('JSON.GET', 'doc', 'b.d[1]')).toBe('2');
    expect(await send('JSON.GET', 'doc', '.')).toBe(doc);
    expect(await send('JSON.GET', 'nothing', '$')).toBeNull();
    expect(await errorOf('JSON.GET', 'doc', '.missing')).toBe("ERR Path '$.missing' does not exist");
  });

  it('answers several paths with an object keyed by path', async () => {
    await send('JSON.SET', 'doc', '$', doc);
    expect(await send('JSON.GET', 'doc', '$.a', '$..c', '$.zz')).toBe('{"$.a":[1],"$..c":["x","y"],"$.zz":[]}');
    expect(await send('JSON.GET', 'doc', '.a', '.t')).toBe('{".a":1,".t":true}');
  });

  it('formats with INDENT, NEWLINE and SPACE', async () => {
    await send('JSON.SET', 'doc', '$', '{"a":[1,{}],"b":{}}');
    expect(await send('JSON.GET', 'doc', 'INDENT', '  ', 'NEWLINE', '\n', 'SPACE', ' ', '.')).toBe(
      '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": {}\n}',
    );
  });

  it('updates, creates the last key of a path, and honours NX and XX', async () => {
    await send('JSON.SET', 'doc', '$', doc);
    expect(await send('JSON.SET', 'doc', '$.b.c', '{"new":[]}')).toBe('OK');
    expect(await send('JSON.SET', 'doc', '$.b.z', '"added"')).toBe('OK');
    expect(await send('JSON.SET', 'doc', '$.x.y', '1')).toBeNull();
    expect(await send('JSON.SET', 'doc', '$.a', '2', 'NX')).toBeNull();
    expect(await send('JSON.SET', 'doc', '$.q', '2', 'XX')).toBeNull();
    expect(await send('JSON.SET', 'doc', '$.q', '3', 'nx')).toBe('OK');
    expect(await send('JSON.SET', 'doc', '$.a', '4', 'XX')).toBe('OK');
    expect(await send('JSON.SET', 'doc', '$..c', '0')).toBe('OK');
    expect(await send('JSON.GET', 'doc', '$.a', '$.q', '$.b.z', '$..c')).toBe(
      '{"$.a":[4],"$.q":[3],"$.b.z":["added"],"$..c":[0,0]}',
    );
    expect(await send('JSON.SET', 'doc', '$', '[]', 'NX')).toBeNull();
    expect(await send('JSON.SET', 'other', '$', '[]', 'XX')).toBeNull();
    expect(await client.exists('other')).toBe(0);
  });

  it('keeps the time to live of the key', async () => {
    await send('JSON.SET', 'doc', '$', doc);
    await client.expire('doc', 100);
    await send('JSON.SET', 'doc', '$.a', '2');
    expect(await client.ttl('doc')).toBeGreaterThan(90);
  });

  it('refuses new keys below the root, bad JSON, bad options and non-JSON keys', async () => {
    expect(await errorOf('JSON.SET', 'doc', '$.a', '1')).toBe('ERR new objects must be created at the root');
    expect(await errorOf('JSON.SET', 'doc', '$', '{"a":')).toBe('ERR EOF while parsing a value at line 1 column 5');
    expect(await errorOf('JSON.SET', 'doc', '$', 'nope')).toBe('ERR expected value at line 1 column 1');
    expect(await errorOf('JSON.SET', 'doc', '$', '[1] x')).toBe('ERR trailing characters at line 1 column 5');
    expect(await errorOf('JSON.SET', 'doc', '$', '1', 'XY')).toBe('ERR syntax error');
    await client.hSet('hash', 'f', 'v');
    expect(await errorOf('JSON.GET', 'hash')).toMatch(/^WRONGTYPE /);
    await client.set('text', 'not json');
    expect(await errorOf('JSON.SET', 'text', '$.a', '1')).toMatch(/^WRONGTYPE /);
    expect(await errorOf('JSON.GET', 'doc', '$[?(@.a)]')).toMatch(/^ERR invalid JSONPath .*filter expressions/);
  });
});

describe('round trips of generated documents', () => {
  it('JSON.GET gives back exactly what JSON.SET stored, for any JSON value', async () => {
    // Lone surrogates are not valid Unicode text, which RedisJSON refuses too.
    const text = fc.string({ unit: 'grapheme' });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        text,
        fc.array(tie('node'), { maxLength: 5 }),
        fc.dictionary(text, tie('node'), { maxKeys: 5 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(value, async (generated) => {
        const json = JSON.stringify(generated, (_, v: unknown) =>
          typeof v === 'bigint' ? `\u0000big:${v}` : v,
        ).replace(/"\\u0000big:(-?\d+)"/g, '$1');
        expect(await send('JSON.SET', 'prop', '$', json)).toBe('OK');
        expect(await send('JSON.GET', 'prop')).toBe(json);
        expect(await send('JSON.GET', 'prop', '$')).toBe(`[${json}]`);
      }),
      { numRuns: 150 },
    );
  });
});

describe('the other commands', () => {
  beforeEach(async () => {
    await send('JSON.SET', 'doc', '$', doc);
  });

  it('JSON.DEL removes matches, the key at the root, and counts them', async () => {
    expect(await send('JSON.DEL', 'doc', '$..c')).toBe(2);
    expect(await send('JSON.DEL', 'doc', '$.b.d[0]')).toBe(1);
    expect(await send('JSON.DEL', 'doc', '$.b.d[*]')).toBe(2);
    expect(await send('JSON.DEL', 'doc', '$.nothing')).toBe(0);
    expect(await send('JSON.GET', 'doc', '$.b')).toBe('[{"d":[]}]');
    expect(await send('JSON.FORGET', 'doc', '.a')).toBe(1);
    expect(await send('JSON.DEL', 'doc')).toBe(1);
    expect(await client.exists('doc')).toBe(0);
    expect(await send('JSON.DEL', 'doc')).toBe(0);
  });

  it('JSON.TYPE names each match, RedisJSON-style', async () => {
    expect(await send('JSON.TYPE', 'doc', '$.*')).toEqual(['integer', 'object', 'array', 'object', 'null', 'boolean']);
    expect(await send('JSON.TYPE', 'doc')).toBe('object');
    expect(await send('JSON.TYPE', 'doc', '$.zz')).toEqual([]);
    expect(await send('JSON.TYPE', 'nothing')).toBeNull();
    await send('JSON.SET', 'doc', '$.a', '2.5');
    expect(await send('JSON.TYPE', 'doc', '.a')).toBe('number');
  });

  it('JSON.MGET answers per key, nil for missing keys and non-JSON values', async () => {
    await send('JSON.SET', 'doc2', '$', '{"a":"two"}');
    await client.set('text', 'plain');
    expect(await send('JSON.MGET', 'doc', 'doc2', 'missing', 'text', '$.a')).toEqual(['[1]', '["two"]', null, null]);
    expect(await send('JSON.MGET', 'doc', 'doc2', '.a')).toEqual(['1', '"two"']);
  });

  it('JSON.NUMINCRBY adds exactly, integers past 2^53 included, with null for non-numbers', async () => {
    expect(await send('JSON.NUMINCRBY', 'doc', '$.a', '2')).toBe('[3]');
    expect(await send('JSON.NUMINCRBY', 'doc', '$.a', '0.5')).toBe('[3.5]');
    expect(await send('JSON.NUMINCRBY', 'doc', '$.*', '1')).toBe('[4.5,null,null,null,null,null]');
    expect(await send('JSON.NUMINCRBY', 'doc', '.a', '-1.5')).toBe('3.0');
    await send('JSON.SET', 'doc', '$.big', '9007199254740993');
    expect(await send('JSON.NUMINCRBY', 'doc', '$.big', '2')).toBe('[9007199254740995]');
    expect(await send('JSON.NUMINCRBY', 'doc', '$.big', '-9007199254740996')).toBe('[-1]');
    expect(await errorOf('JSON.NUMINCRBY', 'doc', '.t', '1')).toBe(
      'WRONGTYPE wrong type of path value - expected a number but found boolean',
    );
    expect(await errorOf('JSON.NUMINCRBY', 'missing', '$', '1')).toBe(
      "ERR could not perform this operation on a key that doesn't exist",
    );
    expect(await errorOf('JSON.NUMINCRBY', 'doc', '$.a', 'x')).toBe('ERR expected value at line 1 column 1');
  });

  it('JSON.STRLEN counts bytes per string match', async () => {
    await send('JSON.SET', 'doc', '$.u', '"é"');
    expect(await send('JSON.STRLEN', 'doc', '$..c')).toEqual([1, 1]);
    expect(await send('JSON.STRLEN', 'doc', '$.u')).toEqual([2]);
    expect(await send('JSON.STRLEN', 'doc', '$.*')).toEqual([null, null, null, null, null, null, 2]);
    expect(await send('JSON.STRLEN', 'doc', '.b.c')).toBe(1);
    expect(await errorOf('JSON.STRLEN', 'doc', '.a')).toBe(
      'WRONGTYPE wrong type of path value - expected string but found integer',
    );
    expect(await send('JSON.STRLEN', 'missing', '.a')).toBeNull();
    expect(await errorOf('JSON.STRLEN', 'missing', '$.a')).toMatch(/key that doesn't exist/);
  });

  it('JSON.ARRAPPEND and JSON.ARRLEN work per array match', async () => {
    expect(await send('JSON.ARRAPPEND', 'doc', '$.e', '1', '"two"', '{"three":[]}')).toEqual([3]);
    expect(await send('JSON.ARRAPPEND', 'doc', '$.*', 'null')).toEqual([null, null, 4, null, null, null]);
    expect(await send('JSON.ARRAPPEND', 'doc', '.b.d', 'false')).toBe(4);
    expect(await send('JSON.GET', 'doc', '$.e')).toBe('[[1,"two",{"three":[]},null]]');
    expect(await send('JSON.ARRLEN', 'doc', '$..d')).toEqual([4]);
    expect(await send('JSON.ARRLEN', 'doc', '$.*')).toEqual([null, null, 4, null, null, null]);
    expect(await send('JSON.ARRLEN', 'doc', '.e')).toBe(4);
    expect(await errorOf('JSON.ARRAPPEND', 'doc', '.a', '1')).toMatch(/expected array but found integer/);
    expect(await errorOf('JSON.ARRAPPEND', 'missing', '$', '1')).toMatch(/key that doesn't exist/);
  });

  it('JSON.OBJKEYS lists keys in insertion order per object match', async () => {
    expect(await send('JSON.OBJKEYS', 'doc', '$')).toEqual([['a', 'b', 'e', 'f', 'n', 't']]);
    expect(await send('JSON.OBJKEYS', 'doc', '$.*')).toEqual([null, ['c', 'd'], null, [], null, null]);
    expect(await send('JSON.OBJKEYS', 'doc', '.b')).toEqual(['c', 'd']);
    expect(await send('JSON.OBJLEN', 'doc', '$.b')).toEqual([2]);
  });

  it('answers wrong arity with an ERR error', async () => {
    expect(await errorOf('JSON.SET', 'doc', '$')).toBe("ERR wrong number of arguments for 'json.set' command");
    expect(await errorOf('JSON.GET')).toBe("ERR wrong number of arguments for 'json.get' command");
    expect(await errorOf('JSON.MGET', 'doc')).toBe("ERR wrong number of arguments for 'json.mget' command");
    expect(await errorOf('JSON.NUMINCRBY', 'doc', '$.a', '1', '2')).toMatch(/^ERR wrong number of arguments/);
  });
});

describe('inside transactions and pipelines', () => {
  it('runs in MULTI/EXEC, with a run-time error left in place', async () => {
    const multi = client.multi();
    for (const args of [
      ['JSON.SET', 'doc', '$', '{"n":1,"list":[]}'],
      ['JSON.NUMINCRBY', 'doc', '$.n', '41'],
      ['JSON.ARRAPPEND', 'doc', '$.list', '"x"'],
      ['JSON.SET', 'doc2', '$.a', '1'],
      ['JSON.GET', 'doc', '$.n', '$.list'],
    ]) {
      multi.addCommand(json.translate(toBuffers(args))!);
    }
    // node-redis rejects EXEC when any reply is an error; the replies ride on the rejection.
    const replies = await multi.exec().catch((error: { replies?: unknown[] }) => error.replies ?? []);
    expect(replies[0]).toBe('OK');
    expect(replies[1]).toBe('[42]');
    expect(replies[2]).toEqual([1]);
    expect(String(replies[3])).toMatch(/new objects must be created at the root/);
    expect(replies[4]).toBe('{"$.n":[42],"$.list":[["x"]]}');
  });

  it('runs in a pipeline, in order', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i === 0 ? send('JSON.SET', 'doc', '$', '{"n":0}') : send('JSON.NUMINCRBY', 'doc', '$.n', '1'),
      ),
    );
    expect(replies.at(-1)).toBe('[19]');
    const pipeline = client.multi();
    pipeline.addCommand(json.translate(toBuffers(['JSON.SET', 'p', '$', '[]']))!);
    pipeline.addCommand(json.translate(toBuffers(['JSON.ARRAPPEND', 'p', '$', '1', '2']))!);
    pipeline.addCommand(json.translate(toBuffers(['JSON.ARRLEN', 'p']))!);
    expect(await pipeline.execAsPipeline()).toEqual(['OK', [2], 2]);
  });

  it('refuses writes from a read-only command script (EVAL_RO)', async () => {
    const translated = json.translate(toBuffers(['JSON.GET', 'doc']))!;
    expect(translated[0]!.toString()).toBe('EVAL_RO');
    const writing = [
      translated[0]!,
      Buffer.from("return redis.call('SET', KEYS[1], 'x')"),
      Buffer.from('1'),
      Buffer.from('k'),
    ];
    await expect(client.sendCommand(writing)).rejects.toThrow(/Write commands are not allowed from read-only scripts/);
  });
});
