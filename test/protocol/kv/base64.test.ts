import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fromBase64, toBase64 } from '../../../src/protocol/kv/base64.ts';

describe('base64 without Buffer', () => {
  test('agrees with Node for any bytes, both ways', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64');
        expect(toBase64(bytes)).toBe(text);
        expect(fromBase64(text)).toEqual(bytes);
      }),
      { seed: 8, numRuns: 300 },
    );
  });

  test('a string is its UTF-8 bytes', () => {
    expect(toBase64('é')).toBe(Buffer.from('é').toString('base64'));
  });

  test('text that is not padded standard base64 gives undefined', () => {
    for (const bad of ['abc', 'a=bc', '****', 'YQ=', 'YQ===']) expect(fromBase64(bad), bad).toBeUndefined();
  });
});
