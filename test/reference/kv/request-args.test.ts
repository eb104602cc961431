/** Request parsing of area B: raw path segments, percent-decoding to bytes, body and query arguments. */
import { describe, expect, it } from 'vitest';
import {
  commandArgs,
  jsonCommand,
  jsonCommandList,
  percentDecode,
  RequestFormError,
  splitRawUrl,
} from '../../../src/reference/kv/request-args.ts';

const all = { percentDecoding: true, bodyLast: true, queryArgs: true };
const text = (args: Buffer[]) => args.map((arg) => arg.toString('latin1'));

describe('splitRawUrl and commandArgs', () => {
  it('splits the raw path on "/" before decoding, so %2F stays inside one argument', () => {
    const url = splitRawUrl('/set/a%2Fb/c%20d');
    expect(text(commandArgs(url, undefined, all))).toEqual(['set', 'a/b', 'c d']);
  });

  it('appends the body, then NAME=value pairs, and keeps _token out', () => {
    const url = splitRawUrl('/set/k?EX=100&_token=secret&NX');
    expect(url.token).toBe('secret');
    expect(text(commandArgs(url, Buffer.from('v'), all))).toEqual(['set', 'k', 'v', 'EX', '100', 'NX']);
    expect(text(commandArgs(url, Buffer.alloc(0), all))).toEqual(['set', 'k', 'EX', '100', 'NX']);
  });

  it('decodes query names and values to bytes, "+" as a space there but not in the path', () => {
    const url = splitRawUrl('/set/a+b?GET&X%FF=%00%FE+1');
    expect(commandArgs(url, undefined, all)).toEqual(
      ['set', 'a+b', 'GET', 'X\xff', '\x00\xfe 1'].map((arg) => Buffer.from(arg, 'latin1')),
    );
  });

  it('keeps empty inner segments as empty arguments and drops a trailing slash', () => {
    expect(text(commandArgs(splitRawUrl('/set/k//'), undefined, all))).toEqual(['set', 'k', '']);
  });

  it('honours the fault options', () => {
    const url = splitRawUrl('/set/a%20b?EX=1');
    expect(
      text(commandArgs(url, Buffer.from('v'), { percentDecoding: false, bodyLast: false, queryArgs: false })),
    ).toEqual(['set', 'v', 'a%20b']);
  });
});

describe('percentDecode', () => {
  it('decodes any byte, including invalid UTF-8', () => {
    expect([...percentDecode('%FF%00a')]).toEqual([0xff, 0x00, 0x61]);
    expect(percentDecode('caf%C3%A9').toString('utf8')).toBe('café');
  });

  it('refuses a bad escape', () => {
    for (const bad of ['%', '%4', '%zz', 'a%g0']) expect(() => percentDecode(bad)).toThrow(RequestFormError);
  });
});

describe('JSON commands', () => {
  it('stringifies numbers and booleans, and refuses objects, null and empty arrays', () => {
    expect(text(jsonCommand(['incrby', 'k', 5, 1.5], 'x'))).toEqual(['incrby', 'k', '5', '1.5']);
    expect(text(jsonCommand(['hset', 'k', 'on', true, 'off', false], 'x'))).toEqual([
      'hset',
      'k',
      'on',
      'true',
      'off',
      'false',
    ]);
    for (const bad of [[], ['set', { a: 1 }], ['set', null], 'set', ['set', ['nested']]]) {
      expect(() => jsonCommand(bad, 'x')).toThrow(RequestFormError);
    }
  });

  it('keeps the digits of integers too large for a JS number', () => {
    const body = Buffer.from('[["set","k",12345678901234567890],["incrby","k",-9007199254740993,2.5e3]]');
    expect(jsonCommandList(body).map(text)).toEqual([
      ['set', 'k', '12345678901234567890'],
      ['incrby', 'k', '-9007199254740993', '2500'],
    ]);
    expect(() => jsonCommandList(Buffer.from('[["set",{"n":12345678901234567890}]]'))).toThrow(RequestFormError);
  });

  it('parses a pipeline body and refuses malformed ones', () => {
    expect(jsonCommandList(Buffer.from('[["ping"],["echo",1]]')).map(text)).toEqual([['ping'], ['echo', '1']]);
    for (const bad of ['', '[', '[]', '{}', '["ping"]', '[[]]']) {
      expect(() => jsonCommandList(Buffer.from(bad))).toThrow(RequestFormError);
    }
  });
});
