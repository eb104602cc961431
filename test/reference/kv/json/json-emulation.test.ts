import { connect } from 'node:net';
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

/** The raw RESP2 bytes of one command's reply, on a connection of its own. */
async function rawReply(args: readonly Buffer[]): Promise<string> {
  const { hostname, port } = new URL(backing.url);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const request = Buffer.concat([
    Buffer.from(`*${args.length}\r\n`),
    ...args.flatMap((arg) => [Buffer.from(`$${arg.length}\r\n`), arg, Buffer.from('\r\n')]),
  ]);
  socket.end(request);
  await new Promise((resolve) => socket.on('close', resolve));
  return Buffer.concat(chunks).toString();
}

const doc = '{"a":1,"b":{"c":"x","d":[1,2,{"c":"y"}]},"e":[],"f":{},"n":null,"t":true}';

describe('detection', () => {
  it('finds no JSON module in Debian Redis 7.0 and emulates the required commands', async () => {
    const support = jsonSupportFrom(parseCommandReply(await client.sendCommand(['COMMAND'])));
    const moduleList = (await client.sendCommand(['MODULE', 'LIST'])) as unknown[];
    expect(support.mode).toBe(moduleList.length === 0 ? 'emulated' : 'native');
    if (support.mode === 'native') return;
    // Every RedisJSON 2.x command (JSON.NUMPOWBY: deprecated but still served by the 2.x module).
    const all = ['ARRAPPEND', 'ARRINDEX', 'ARRINSERT', 'ARRLEN', 'ARRPOP', 'ARRTRIM', 'CLEAR', 'DEBUG', 'DEL', 'FORGET']
      .concat(['GET', 'MERGE', 'MGET', 'MSET', 'NUMINCRBY', 'NUMMULTBY', 'NUMPOWBY', 'OBJKEYS', 'OBJLEN', 'RESP'])
      .concat(['SET', 'STRAPPEND', 'STRLEN', 'TOGGLE', 'TYPE']);
    expect(support.commands).toEqual(all.map((name) => `JSON.${name}`));
    // The read-only ones as RedisJSON declares them.
    const readOnly = ['ARRINDEX', 'ARRLEN', 'DEBUG', 'GET', 'MGET', 'OBJKEYS', 'OBJLEN', 'RESP', 'STRLEN', 'TYPE'];
    expect([...support.readOnlyCommands].sort()).toEqual(readOnly.map((name) => `JSON.${name}`));
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
    // serde_json's words, with no error class, as RedisJSON answers them.
    expect(await errorOf('JSON.SET', 'doc', '$', '{"a":')).toBe('EOF while parsing a value at line 1 column 5');
    expect(await errorOf('JSON.SET', 'doc', '$', 'nope')).toBe('expected ident at line 1 column 2');
    expect(await errorOf('JSON.SET', 'doc', '$', 'x')).toBe('expected value at line 1 column 1');
    expect(await errorOf('JSON.SET', 'doc', '$', '[1] x')).toBe('trailing characters at line 1 column 5');
    expect(await errorOf('JSON.SET', 'doc', '$', '1', 'XY')).toBe('ERR syntax error');
    expect(await errorOf('JSON.SET', 'doc', '$', '1', 'NX', 'XX')).toBe('ERR syntax error');
    expect(await errorOf('JSON.SET', 'doc', '$', '1', 'FORMAT', 'json')).toBe('ERR wrong format');
    expect(await send('JSON.SET', 'doc', '$', '1', 'FORMAT', 'JSON')).toBe('OK');
    await client.hSet('hash', 'f', 'v');
    expect(await errorOf('JSON.GET', 'hash')).toBe('Existing key has wrong Redis type');
    await client.set('text', 'not json');
    expect(await errorOf('JSON.SET', 'text', '$.a', '1')).toBe('Existing key has wrong Redis type');
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
      "ERR Path '$.t' does not exist or does not contains a number",
    );
    // i64 arithmetic wraps around, as in RedisJSON; past i64 a number is a double.
    await send('JSON.SET', 'doc', '$.max', '9223372036854775807');
    expect(await send('JSON.NUMINCRBY', 'doc', '$.max', '1')).toBe('[-9223372036854775808]');
    await send('JSON.SET', 'doc', '$.u64', '18446744073709551615');
    expect(await send('JSON.NUMINCRBY', 'doc', '.u64', '1')).toBe('1.8446744073709552e19');
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
    expect(await errorOf('JSON.ARRAPPEND', 'doc', '.a', '1')).toBe("ERR Path '.a' does not exist or not an array");
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
    expect(await errorOf('JSON.NUMINCRBY', 'doc', '$.a')).toBe(
      "ERR wrong number of arguments for 'json.numincrby' command",
    );
    // RedisJSON reads no further than it needs: extra arguments are ignored.
    expect(await send('JSON.NUMINCRBY', 'doc', '$.a', '1', '2')).toBe('[2]');
    expect(await send('JSON.TYPE', 'doc', '.a', 'extra')).toBe('integer');
  });
});

// Every reply below was compared with the real RedisJSON 2.8.3 module (rejson.so of Redis Stack
// 7.4.0-v1) loaded into the same Debian redis-server 7.0.
describe('the commands the emulation adds', () => {
  beforeEach(async () => {
    await send('JSON.SET', 'doc', '$', doc);
  });

  it('JSON.DEL moves the last key into a deleted key’s place, as ijson does', async () => {
    await send('JSON.SET', 'o', '$', '{"a":1,"b":2,"c":3,"d":4}');
    expect(await send('JSON.DEL', 'o', '$.a')).toBe(1);
    expect(await send('JSON.GET', 'o')).toBe('{"d":4,"b":2,"c":3}');
    await send('JSON.SET', 'n', '$', '{"a":[1,[2]],"b":{"a":[3]}}');
    expect(await send('JSON.DEL', 'n', '$..a')).toBe(2);
    expect(await send('JSON.GET', 'n')).toBe('{"b":{}}');
  });

  it('JSON.MERGE merges as RFC 7386 does, null deleting members', async () => {
    await send('JSON.SET', 'm', '$', '{"a":{"b":1,"c":[1,2]},"d":"x","n":null}');
    expect(await send('JSON.MERGE', 'm', '$', '{"a":{"b":null,"e":{"f":null,"g":1}},"d":null,"z":[{"q":null}]}')).toBe(
      'OK',
    );
    expect(await send('JSON.GET', 'm')).toBe('{"a":{"c":[1,2],"e":{"g":1}},"n":null,"z":[{"q":null}]}');
    // At a path a null replaces the value; a new member takes the patch as it is, nulls included.
    expect(await send('JSON.MERGE', 'm', '$.a', 'null')).toBe('OK');
    expect(await send('JSON.MERGE', 'm', '.new', '{"x":null}')).toBe('OK');
    expect(await send('JSON.GET', 'm', '$.a', '$.new')).toBe('{"$.a":[null],"$.new":[{"x":null}]}');
    await send('JSON.SET', 'o', '$', '{"a":{"b":1},"c":{"b":2},"d":5}');
    expect(await send('JSON.MERGE', 'o', '$.*', '{"b":9}')).toBe('OK');
    expect(await send('JSON.GET', 'o')).toBe('{"a":{"b":9},"c":{"b":9},"d":{"b":9}}');
    expect(await send('JSON.MERGE', 'o', '$.x.y', '1')).toBeNull();
    expect(await send('JSON.MERGE', 'new', '$', '{"a":null}')).toBe('OK');
    expect(await send('JSON.GET', 'new')).toBe('{"a":null}');
    expect(await errorOf('JSON.MERGE', 'other', '$.a', '1')).toBe('ERR new objects must be created at the root');
    expect(await errorOf('JSON.MERGE', 'o', '$..zz', '1')).toBe('Err wrong static path');
    expect(await errorOf('JSON.MERGE', 'o', '$.d[5]', '1')).toBe('ERR array index out of range');
    expect(await errorOf('JSON.MERGE', 'o', '$', 'bad')).toBe('expected value at line 1 column 1');
    expect(await errorOf('JSON.MERGE', 'o', '$', '1', 'NX')).toBe('ERR syntax error');
    expect(await errorOf('JSON.MERGE', 'o', '$')).toBe("ERR wrong number of arguments for 'json.merge' command");
  });

  it('JSON.MSET sets every triplet or, when one fails, none', async () => {
    expect(await send('JSON.MSET', 'a', '$', '{"x":1}', 'b', '$', '[1]')).toBe('OK');
    expect(await send('JSON.MSET', 'a', '$.x', '2', 'a', '$.y', '3', 'b', '$[0]', '9', 'c', '.', '"c"')).toBe('OK');
    expect(await send('JSON.MGET', 'a', 'b', 'c', '$')).toEqual(['[{"x":2,"y":3}]', '[[9]]', '["c"]']);
    expect(await errorOf('JSON.MSET', 'a', '$.x', '7', 'missing', '$.x', '1')).toBe(
      'ERR new objects must be created at the root',
    );
    expect(await errorOf('JSON.MSET', 'a', '$.x', '7', 'b', '$', 'bad')).toBe('expected value at line 1 column 1');
    expect(await errorOf('JSON.MSET', 'a', '$.x', '7', 'b', '$[9]', '1')).toBe('ERR array index out of range');
    expect(await send('JSON.GET', 'a', '$.x')).toBe('[2]');
    await client.set('text', 'plain');
    expect(await errorOf('JSON.MSET', 'a', '$.x', '7', 'text', '$', '1')).toBe('Existing key has wrong Redis type');
    // Each triplet's target is found before any is set: `$.q` is then added to the new `{}`.
    expect(await send('JSON.MSET', 'a', '$', '{}', 'a', '$.q', '1')).toBe('OK');
    expect(await send('JSON.GET', 'a')).toBe('{"q":1}');
    expect(await errorOf('JSON.MSET', 'a', '$.x', '7', 'b')).toBe(
      "ERR wrong number of arguments for 'json.mset' command",
    );
    expect(await errorOf('JSON.MSET', 'a', '$.x')).toBe("ERR wrong number of arguments for 'json.mset' command");
    // Every triplet's key is a key of the script (what a cluster routes by).
    const translated = json.translate(toBuffers(['JSON.MSET', 'k1', '$', '1', 'k2', '.a', '2']))!;
    expect(translated.slice(2).map(String)).toEqual(['2', 'k1', 'k2', 'JSON.MSET', '$', '1', '.a', '2']);
  });

  it('JSON.ARRINSERT inserts before an index, counting from the end when negative', async () => {
    await send('JSON.SET', 'k', '$', '{"a":[1,2,3],"b":{"a":[]},"c":1}');
    expect(await send('JSON.ARRINSERT', 'k', '$.a', '0', '"x"', '"y"')).toEqual([5]);
    expect(await send('JSON.ARRINSERT', 'k', '.a', '-1', '0')).toBe(6);
    expect(await send('JSON.ARRINSERT', 'k', '$.*', '0', 'null')).toEqual([7, null, null]);
    expect(await send('JSON.ARRINSERT', 'k', '..a', '0', '"L"')).toBe(1);
    expect(await send('JSON.GET', 'k')).toBe('{"a":["L",null,"x","y",1,2,0,3],"b":{"a":["L"]},"c":1}');
    // An index out of bounds fails the command, but matches changed before it stay changed.
    expect(await errorOf('JSON.ARRINSERT', 'k', '$..a', '2', '9')).toBe('ERR index out of bounds');
    expect(await send('JSON.GET', 'k', '$..a')).toBe('[["L",null,9,"x","y",1,2,0,3],["L"]]');
    expect(await errorOf('JSON.ARRINSERT', 'k', '.c', '0', '1')).toBe("ERR Path '$.c' does not exist or not an array");
    expect(await send('JSON.ARRINSERT', 'k', '$.zz', '0', '1')).toEqual([]);
    expect(await errorOf('JSON.ARRINSERT', 'k', '.a', '01', '1')).toBe("Couldn't parse as integer");
    expect(await errorOf('JSON.ARRINSERT', 'k', '.a', '0', 'bad')).toBe('expected value at line 1 column 1');
    expect(await errorOf('JSON.ARRINSERT', 'k', '.a', '0')).toBe(
      "ERR wrong number of arguments for 'json.arrinsert' command",
    );
    expect(await errorOf('JSON.ARRINSERT', 'missing', '$', '0', '1')).toMatch(/key that doesn't exist/);
  });

  it('JSON.ARRINDEX finds the first equal item in a start/stop range', async () => {
    await send('JSON.SET', 'k', '$', '{"a":[1,2,3,2,"2",{"x":[1],"y":2},2.0],"b":{"a":[2]},"c":2}');
    expect(await send('JSON.ARRINDEX', 'k', '$..a', '2')).toEqual([1, 0]);
    expect(await send('JSON.ARRINDEX', 'k', '.a', '2', '2')).toBe(3);
    expect(await send('JSON.ARRINDEX', 'k', '.a', '2', '-3')).toBe(-1);
    expect(await send('JSON.ARRINDEX', 'k', '.a', '2', '0', '-5')).toBe(1);
    expect(await send('JSON.ARRINDEX', 'k', '.a', '2', '4', '3')).toBe(-1);
    // Equal means same kind too: 2.0 is no 2; object members in any order.
    expect(await send('JSON.ARRINDEX', 'k', '.a', '2.0')).toBe(6);
    expect(await send('JSON.ARRINDEX', 'k', '.a', '{"y":2,"x":[1]}')).toBe(5);
    expect(await send('JSON.ARRINDEX', 'k', '$.*', '"2"')).toEqual([4, null, null]);
    expect(await errorOf('JSON.ARRINDEX', 'k', '.c', '2')).toBe(
      'WRONGTYPE wrong type of path value - expected array but found integer',
    );
    expect(await errorOf('JSON.ARRINDEX', 'k', '.zz', '2')).toBe("ERR Path '$.zz' does not exist");
    expect(await errorOf('JSON.ARRINDEX', 'missing', '.a', '2')).toBe("ERR Path '.a' does not exist");
    expect(await errorOf('JSON.ARRINDEX', 'k', '.a', 'bad')).toBe('ERR expected value at line 1 column 1');
    expect(await errorOf('JSON.ARRINDEX', 'k', '.a', '2', 'x')).toBe("Couldn't parse as integer");
    expect(await errorOf('JSON.ARRINDEX', 'k', '.a', '2', '0', '0', '0')).toBe(
      "ERR wrong number of arguments for 'json.arrindex' command",
    );
  });

  it('JSON.ARRPOP pops the last item or an index, answering it as JSON', async () => {
    await send('JSON.SET', 'k', '$', '{"a":[1,"two",{"three":3},null,true],"b":{"a":[[1]]},"c":2,"e":[]}');
    expect(await send('JSON.ARRPOP', 'k', '.a')).toBe('true');
    expect(await send('JSON.ARRPOP', 'k', '$.a', '1')).toEqual(['"two"']);
    expect(await send('JSON.ARRPOP', 'k', '$..a', '100')).toEqual(['null', '[1]']);
    expect(await send('JSON.ARRPOP', 'k', '$.*', '-100')).toEqual(['1', null, null, null]);
    expect(await send('JSON.ARRPOP', 'k', '.e')).toBeNull();
    expect(await send('JSON.ARRPOP', 'k', '.a', 'not-a-number')).toBe('{"three":3}');
    await send('JSON.SET', 'r', '$', '[1,2]');
    expect(await send('JSON.ARRPOP', 'r')).toBe('2');
    expect(await errorOf('JSON.ARRPOP', 'k', '.c')).toBe("ERR Path '$.c' does not exist or not an array");
    expect(await errorOf('JSON.ARRPOP', 'k', 'FORMAT', 'EXPAND')).toBe('ERR FORMAT argument is not supported on RESP2');
    expect(await errorOf('JSON.ARRPOP', 'k', 'FORMAT', 'STRING')).toBe('ERR wrong reply format');
    expect(await errorOf('JSON.ARRPOP', 'missing')).toMatch(/key that doesn't exist/);
    expect(await errorOf('JSON.ARRPOP')).toBe("ERR wrong number of arguments for 'json.arrpop' command");
    // Matches are changed in match order, each found again by its path: $.a[0] and $.a[1] have
    // moved once $.a lost its last item.
    await send('JSON.SET', 'n', '$', '{"a":[[1,2,3],[4,5,6]]}');
    expect(await send('JSON.ARRPOP', 'n', '$..*', '-1')).toEqual(['[4,5,6]', '3', ...Array(7).fill(null)]);
    expect(await send('JSON.GET', 'n')).toBe('{"a":[[1,2]]}');
  });

  it('JSON.ARRTRIM keeps the items from start to stop, both included', async () => {
    await send('JSON.SET', 'k', '$', '{"a":[0,1,2,3,4,5,6],"b":{"a":[1,2,3]},"c":2}');
    expect(await send('JSON.ARRTRIM', 'k', '$.a', '1', '5')).toEqual([5]);
    expect(await send('JSON.ARRTRIM', 'k', '.a', '-4', '-2')).toBe(3);
    expect(await send('JSON.ARRTRIM', 'k', '$..a', '0', '1')).toEqual([2, 2]);
    expect(await send('JSON.GET', 'k', '$..a')).toBe('[[2,3],[1,2]]');
    expect(await send('JSON.ARRTRIM', 'k', '$.*', '5', '10')).toEqual([0, null, null]);
    expect(await errorOf('JSON.ARRTRIM', 'k', '.c', '0', '1')).toBe("ERR Path '$.c' does not exist or not an array");
    expect(await send('JSON.ARRTRIM', 'k', '$.zz', '0', '1')).toEqual([]);
    expect(await errorOf('JSON.ARRTRIM', 'k', '.a', 'x')).toBe("Couldn't parse as integer");
    expect(await errorOf('JSON.ARRTRIM', 'k', '.a', '0')).toBe(
      "ERR wrong number of arguments for 'json.arrtrim' command",
    );
    expect(await errorOf('JSON.ARRTRIM', 'missing', '$', '0', '1')).toMatch(/key that doesn't exist/);
  });

  it('JSON.CLEAR empties arrays and objects and zeroes numbers, counting them', async () => {
    await send('JSON.SET', 'k', '$', '{"a":[1,[2]],"b":{"x":1},"c":0,"d":2.5,"e":"s","f":[],"g":0.0,"h":true}');
    expect(await send('JSON.CLEAR', 'k', '$.*')).toBe(3);
    expect(await send('JSON.GET', 'k')).toBe('{"a":[],"b":{},"c":0,"d":0,"e":"s","f":[],"g":0.0,"h":true}');
    await send('JSON.SET', 'k', '$', '{"a":[1,[2,3],{"z":[1]}],"b":{"x":1,"y":[4]},"n":5}');
    // Once $.a is empty, the matches inside it are gone.
    expect(await send('JSON.CLEAR', 'k', '$..*')).toBe(3);
    await send('JSON.SET', 'k', '$', '{"a":[1],"n":5}');
    expect(await send('JSON.CLEAR', 'k', '.n', '.a')).toBe(1); // only the first path counts
    expect(await send('JSON.CLEAR', 'k', '$.zz')).toBe(0);
    expect(await send('JSON.CLEAR', 'k')).toBe(1);
    expect(await send('JSON.GET', 'k')).toBe('{}');
    expect(await errorOf('JSON.CLEAR', 'missing')).toMatch(/key that doesn't exist/);
    expect(await errorOf('JSON.CLEAR')).toBe("ERR wrong number of arguments for 'json.clear' command");
  });

  it('JSON.NUMMULTBY (and the deprecated NUMPOWBY) multiply like NUMINCRBY adds', async () => {
    await send('JSON.SET', 'k', '$', '{"a":3,"b":2.5,"c":"x","big":9223372036854775807}');
    expect(await send('JSON.NUMMULTBY', 'k', '$.*', '2')).toBe('[6,5.0,null,-2]');
    expect(await send('JSON.NUMMULTBY', 'k', '.a', '1.5')).toBe('9.0');
    expect(await send('JSON.NUMMULTBY', 'k', '.b', '1e-30')).toBe('5e-30');
    expect(await send('JSON.NUMPOWBY', 'k', '$.big', '3')).toBe('[-8]');
    expect(await errorOf('JSON.NUMMULTBY', 'k', '.a', '1e308')).toBe('ERR result is not a number');
    expect(await errorOf('JSON.NUMMULTBY', 'k', '.a', '"2"')).toBe('bad input number');
    expect(await errorOf('JSON.NUMMULTBY', 'k', '.a', 'x')).toBe('ERR expected value at line 1 column 1');
    // The operand is read only when a number matches.
    expect(await send('JSON.NUMMULTBY', 'k', '$.c', 'x')).toBe('[null]');
    expect(await send('JSON.NUMMULTBY', 'k', '$.zz', '2')).toBe('[]');
    expect(await errorOf('JSON.NUMMULTBY', 'k', '.c', '2')).toBe(
      "ERR Path '$.c' does not exist or does not contains a number",
    );
    expect(await errorOf('JSON.NUMMULTBY', 'missing', '.a', '2')).toMatch(/key that doesn't exist/);
    expect(await errorOf('JSON.NUMMULTBY', 'k', '.a')).toBe(
      "ERR wrong number of arguments for 'json.nummultby' command",
    );
    expect(await send('JSON.GET', 'k')).toBe('{"a":9.0,"b":5e-30,"c":"x","big":-8}');
  });

  it('JSON.TOGGLE flips booleans: 1/0 per $ match, "true"/"false" for a legacy path', async () => {
    expect(await send('JSON.TOGGLE', 'doc', '$.t')).toEqual([0]);
    expect(await send('JSON.TOGGLE', 'doc', '.t')).toBe('true');
    await send('JSON.SET', 'doc', '$.b.t', 'false');
    expect(await send('JSON.TOGGLE', 'doc', '$..t')).toEqual([0, 1]);
    expect(await send('JSON.TOGGLE', 'doc', '..t')).toBe('false');
    expect(await send('JSON.TOGGLE', 'doc', '$.*')).toEqual([null, null, null, null, null, 0]);
    expect(await errorOf('JSON.TOGGLE', 'doc', '.a')).toBe("ERR Path '$.a' does not exist or not a bool");
    expect(await send('JSON.TOGGLE', 'doc', '$.zz')).toEqual([]);
    expect(await errorOf('JSON.TOGGLE', 'missing', '$')).toMatch(/key that doesn't exist/);
    expect(await errorOf('JSON.TOGGLE', 'doc')).toBe("ERR wrong number of arguments for 'json.toggle' command");
  });

  it('JSON.STRAPPEND appends a JSON string, answering the new length in bytes', async () => {
    expect(await send('JSON.STRAPPEND', 'doc', '$.b.c', '"é"')).toEqual([3]);
    expect(await send('JSON.STRAPPEND', 'doc', '..c', '"!"')).toBe(2);
    expect(await send('JSON.GET', 'doc', '$..c')).toBe('["xé!","y!"]');
    expect(await send('JSON.STRAPPEND', 'doc', '$.*', '"?"')).toEqual([null, null, null, null, null, null]);
    expect(await errorOf('JSON.STRAPPEND', 'doc', '.a', '"?"')).toBe("ERR Path '$.a' does not exist or not a string");
    expect(await errorOf('JSON.STRAPPEND', 'doc', '$.b.c', '1')).toBe(
      'WRONGTYPE wrong type of path value - expected string but found 1',
    );
    expect(await errorOf('JSON.STRAPPEND', 'doc', '$.b.c', 'x')).toBe('ERR expected value at line 1 column 1');
    await send('JSON.SET', 's', '$', '"str"');
    expect(await send('JSON.STRAPPEND', 's', '"ing"')).toBe(6); // no path: the root
    expect(await errorOf('JSON.STRAPPEND', 'missing', '"x"')).toMatch(/key that doesn't exist/);
    expect(await errorOf('JSON.STRAPPEND', 's')).toBe("ERR wrong number of arguments for 'json.strappend' command");
  });

  it('JSON.RESP answers the value in RESP form', async () => {
    await send('JSON.SET', 'k', '$', '{"a":[1,"two",{"n":null,"t":true}],"f":2.5,"g":1e2,"o":{}}');
    expect(await send('JSON.RESP', 'k')).toEqual([
      '{',
      'a',
      ['[', 1, 'two', ['{', 'n', null, 't', 'true']],
      'f',
      '2.5',
      'g',
      '100',
      'o',
      ['{'],
    ]);
    expect(await send('JSON.RESP', 'k', '$.a[0]')).toEqual([1]);
    expect(await send('JSON.RESP', 'k', '$.zz')).toEqual([]);
    expect(await errorOf('JSON.RESP', 'k', '.zz')).toBe("ERR Path '$.zz' does not exist");
    expect(await send('JSON.RESP', 'missing')).toBeNull();
    expect(await errorOf('JSON.RESP')).toBe("ERR wrong number of arguments for 'json.resp' command");
    // Which replies are simple strings rather than bulk strings: the raw RESP.
    const raw = await rawReply(json.translate(toBuffers(['JSON.RESP', 'k', '$.a[2]']))!);
    expect(raw).toBe('*1\r\n*5\r\n+{\r\n$1\r\nn\r\n$-1\r\n$1\r\nt\r\n+true\r\n');
    // Doubles as Redis 7.0 writes them (%.17g).
    await send('JSON.SET', 'k', '$.f', '0.1');
    expect(await send('JSON.RESP', 'k', '.f')).toBe('0.10000000000000001');
  });

  it('JSON.DEBUG MEMORY estimates RedisJSON’s memory use; JSON.DEBUG HELP lists it', async () => {
    await send('JSON.SET', 'a', '$', '{"p":3,"q":[1,"xy",1.5,100000,null]}');
    expect(await send('JSON.DEBUG', 'MEMORY', 'a')).toBe(280);
    expect(await send('JSON.DEBUG', 'memory', 'a', '$.*')).toEqual([8, 150]);
    expect(await send('JSON.DEBUG', 'MEMORY', 'missing')).toBe(0);
    expect(await send('JSON.DEBUG', 'MEMORY', 'missing', '$')).toEqual([]);
    expect(await errorOf('JSON.DEBUG', 'MEMORY', 'a', '.zz')).toBe("ERR Path '$.zz' does not exist");
    expect(await send('JSON.DEBUG', 'HELP')).toEqual([
      'MEMORY <key> [path] - reports memory usage',
      'HELP                - this message',
    ]);
    expect(await errorOf('JSON.DEBUG', 'bogus')).toBe('ERR unknown subcommand - try `JSON.DEBUG HELP`');
    expect(await errorOf('JSON.DEBUG', 'MEMORY')).toBe("ERR wrong number of arguments for 'json.debug' command");
    expect(
      json
        .translate(toBuffers(['JSON.DEBUG', 'MEMORY', 'a', '$']))!
        .slice(2)
        .map(String),
    ).toEqual(['1', 'a', 'JSON.DEBUG', 'MEMORY', '$']);
  });

  it('answers wrong kinds of keys as RedisJSON does', async () => {
    await client.set('text', 'plain');
    for (const args of [
      ['JSON.MERGE', 'text', '$', '1'],
      ['JSON.CLEAR', 'text'],
      ['JSON.RESP', 'text'],
      ['JSON.ARRINDEX', 'text', '$', '1'],
      ['JSON.ARRPOP', 'text'],
      ['JSON.TOGGLE', 'text', '$'],
      ['JSON.DEBUG', 'MEMORY', 'text'],
    ]) {
      expect(await errorOf(...args)).toBe('Existing key has wrong Redis type');
    }
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

  it('runs the added commands in MULTI/EXEC, several keys and errors in place included', async () => {
    const multi = client.multi();
    for (const args of [
      ['JSON.MSET', 'a', '$', '{"list":[1,2,3],"on":false}', 'b', '$', '{"n":2}'],
      ['JSON.MERGE', 'b', '$', '{"n":null,"s":"x"}'],
      ['JSON.ARRINSERT', 'a', '$.list', '0', '0'],
      ['JSON.ARRPOP', 'a', '.list'],
      ['JSON.ARRTRIM', 'a', '$.list', '1', '-1'],
      ['JSON.ARRINDEX', 'a', '.list', '2'],
      ['JSON.TOGGLE', 'a', '$.on'],
      ['JSON.STRAPPEND', 'b', '.s', '"y"'],
      ['JSON.NUMMULTBY', 'a', '$.list[*]', '10'],
      ['JSON.ARRINSERT', 'a', '.list', '9', '1'],
      ['JSON.CLEAR', 'a', '$.list'],
      ['JSON.MSET', 'a', '$.x'],
      ['JSON.RESP', 'a'],
      ['JSON.GET', 'b'],
    ]) {
      multi.addCommand(json.translate(toBuffers(args))!);
    }
    const replies = await multi.exec().catch((error: { replies?: unknown[] }) => error.replies ?? []);
    expect(replies.slice(0, 9)).toEqual(['OK', 'OK', [4], '3', [2], 1, [1], 2, '[10,20]']);
    expect((replies[9] as Error).message).toBe('ERR index out of bounds');
    expect(replies[10]).toBe(1);
    expect((replies[11] as Error).message).toBe("ERR wrong number of arguments for 'json.mset' command");
    expect(replies[12]).toEqual(['{', 'list', ['['], 'on', 'true']);
    expect(replies[13]).toBe('{"s":"xy"}');
    // The read-only ones run as EVAL_RO.
    for (const name of ['JSON.ARRINDEX', 'JSON.RESP', 'JSON.DEBUG']) {
      expect(json.translate(toBuffers([name, 'k', '$', '1']))?.[0]?.toString()).toBe('EVAL_RO');
    }
    for (const name of ['JSON.MERGE', 'JSON.MSET', 'JSON.ARRPOP', 'JSON.CLEAR', 'JSON.TOGGLE']) {
      expect(json.translate(toBuffers([name, 'k', '$', '1']))?.[0]?.toString()).toBe('EVAL');
    }
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
