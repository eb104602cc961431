import { describe, expect, test } from 'vitest';
import { monitorArgs, monitorLine, timestampSeconds } from '../../../conformance/support/kv-streams.ts';

describe('a /monitor item read by its parts (timestamp, client tag, quoted command and arguments)', () => {
  test("Redis's own line", () => {
    expect(monitorArgs('1700000000.123456 [0 0.0.0.0:0] "set" "a\\"b" "c\\\\d"')).toEqual(['SET', 'a"b', 'c\\d']);
  });

  test('another punctuation the spec allows: an ISO timestamp, its own tag, single quotes', () => {
    expect(monitorArgs("2026-11-28T10:00:00.5Z client=10.0.0.7:51234 'ECHO' 'it\\'s'")).toEqual(['ECHO', "it's"]);
    expect(monitorArgs('1700000000.1 client=x "GET" \'k\'')).toEqual(['GET', 'k']);
  });

  test('an unquoted command, or a lone word, is no monitor item', () => {
    expect(monitorArgs('1700000000.1 [0 x] SET a b')).toBeUndefined();
    expect(monitorArgs('OK')).toBeUndefined();
  });

  test('timestamps: Unix seconds or ISO 8601, anything else is not one', () => {
    expect(timestampSeconds('1700000000.25')).toBe(1700000000.25);
    expect(timestampSeconds('2026-11-28T10:00:00Z')).toBe(Date.parse('2026-11-28T10:00:00Z') / 1000);
    expect(timestampSeconds('yesterday')).toBeNaN();
    expect(monitorLine.exec('x [0 y] "PING"')?.[1]).toBe('x');
  });
});
