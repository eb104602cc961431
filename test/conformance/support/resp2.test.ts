import { describe, expect, test } from 'vitest';
import { isResp2Error, resp2 } from '../../../conformance/support/resp2.ts';

describe('RESP2 encoding of expected replies', () => {
  test('encodes each reply type', () => {
    expect(resp2({ simple: 'OK' }).toString()).toBe('+OK\r\n');
    expect(resp2('bar').toString()).toBe('$3\r\nbar\r\n');
    expect(resp2(1).toString()).toBe(':1\r\n');
    expect(resp2(null).toString()).toBe('$-1\r\n');
    expect(resp2(['a', null, '']).toString()).toBe('*3\r\n$1\r\na\r\n$-1\r\n$0\r\n\r\n');
    expect(resp2({ error: 'ERR x' }).toString()).toBe('-ERR x\r\n');
  });

  test('counts bytes, not characters, and keeps binary exact', () => {
    expect(resp2('é').toString()).toBe('$2\r\né\r\n');
    expect(resp2(Uint8Array.from([0xff, 0x00]))).toEqual(Buffer.from([0x24, 0x32, 13, 10, 0xff, 0x00, 13, 10]));
  });

  test('recognises one error line', () => {
    expect(isResp2Error(Buffer.from('-ERR no\r\n'))).toBe(true);
    expect(isResp2Error(Buffer.from('+OK\r\n'))).toBe(false);
    expect(isResp2Error(Buffer.from('-ERR a\r\n-ERR b\r\n'))).toBe(false);
  });
});
