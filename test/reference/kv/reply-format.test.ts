/** Reply rendering: JSON values with base64 and U+FFFD replacement, and exact RESP2 bytes. */
import { SimpleError } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { errorResp2, toJsonReply, toResp2 } from '../../../src/reference/kv/reply-format.ts';

const plain = { base64: false, base64Ok: false, latin1: false };
const base64 = { ...plain, base64: true };

describe('toJsonReply', () => {
  it('keeps simple strings, bulk strings, integers, nulls and arrays', () => {
    expect(toJsonReply(['OK', Buffer.from('v'), 3, null, [Buffer.from('x')]], plain)).toEqual([
      'OK',
      'v',
      3,
      null,
      ['x'],
    ]);
  });

  it('encodes every string but the simple-string OK under base64, recursively', () => {
    expect(toJsonReply('OK', base64)).toBe('OK');
    expect(toJsonReply(Buffer.from('OK'), base64)).toBe('T0s=');
    expect(toJsonReply('PONG', base64)).toBe('UE9ORw==');
    expect(toJsonReply([Buffer.from('v'), 1, null], base64)).toEqual(['dg==', 1, null]);
  });

  it('answers integer digits as exact JSON integers, past 2^53 too, never base64', () => {
    const reply = ['9223372036854775807', '-9223372036854775808', '42', 'OK'];
    expect(JSON.stringify(toJsonReply(reply, plain))).toBe('[9223372036854775807,-9223372036854775808,42,"OK"]');
    expect(JSON.stringify(toJsonReply(reply, base64))).toBe('[9223372036854775807,-9223372036854775808,42,"OK"]');
  });

  it('replaces each invalid UTF-8 sequence by one U+FFFD', () => {
    expect(toJsonReply(Buffer.from([0x61, 0xff, 0xc3, 0x62, 0xe2, 0x82]), plain)).toBe('a\uFFFD\uFFFDb\uFFFD');
  });

  it('renders an error nested in an array as {error}', () => {
    expect(toJsonReply([new SimpleError('ERR nope')], plain)).toEqual([{ error: 'ERR nope' }]);
  });
});

describe('toResp2', () => {
  it('writes each RESP2 type exactly', () => {
    expect(toResp2('OK').toString()).toBe('+OK\r\n');
    expect(toResp2(Buffer.from('bar')).toString()).toBe('$3\r\nbar\r\n');
    expect(toResp2(Buffer.alloc(0)).toString()).toBe('$0\r\n\r\n');
    expect(toResp2(-2).toString()).toBe(':-2\r\n');
    expect(toResp2(null).toString()).toBe('$-1\r\n');
    expect(toResp2([Buffer.from('a'), [1]]).toString()).toBe('*2\r\n$1\r\na\r\n*1\r\n:1\r\n');
    expect(toResp2(new SimpleError('ERR x')).toString()).toBe('-ERR x\r\n');
    expect(errorResp2('ERR a\nb')).toEqual(Buffer.from('-ERR a b\r\n'));
  });

  it('writes integer digits as exact RESP2 integers', () => {
    expect(toResp2('9223372036854775807').toString()).toBe(':9223372036854775807\r\n');
    expect(toResp2(['-9223372036854775808', 'QUEUED']).toString()).toBe('*2\r\n:-9223372036854775808\r\n+QUEUED\r\n');
  });

  it('keeps binary bulk strings byte for byte', () => {
    expect([...toResp2(Buffer.from([0xff, 0x0d, 0x0a]))]).toEqual([
      ...Buffer.from('$3\r\n'),
      0xff,
      0x0d,
      0x0a,
      0x0d,
      0x0a,
    ]);
  });
});
