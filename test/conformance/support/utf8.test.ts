import { describe, expect, test } from 'vitest';
import { decodeWithReplacement, isInvalidUtf8, matchReplacement } from '../../../conformance/support/utf8.ts';

const bytes = Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82]);

describe('U+FFFD replacement', () => {
  test('the WHATWG decoding is exact', () => {
    expect(decodeWithReplacement(bytes)).toBe('a\uFFFDb\uFFFD');
    expect(matchReplacement('a\uFFFDb\uFFFD', bytes)).toBe('exact');
  });

  test('another count of U+FFFD per invalid sequence is loose, not wrong', () => {
    expect(matchReplacement('a\uFFFDb\uFFFD\uFFFD', bytes)).toBe('loose');
  });

  test('Latin-1, dropped bytes or lost text do not match', () => {
    expect(matchReplacement(bytes.toString('latin1'), bytes)).toBe('no');
    expect(matchReplacement('ab', bytes)).toBe('no');
    expect(matchReplacement('a\uFFFD\uFFFD', bytes)).toBe('no');
  });

  test('tells valid from invalid UTF-8', () => {
    expect(isInvalidUtf8(bytes)).toBe(true);
    expect(isInvalidUtf8(Buffer.from('héllo ✓', 'utf8'))).toBe(false);
  });
});
