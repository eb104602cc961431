/**
 * What a k6 VU reads of its answers (src/engines/load/k6/script/answer-reading.ts): as bytes until one
 * passes the cap, then into nothing, judged by Content-Length; a chunked answer judged as the last one
 * weighed, with one in `probeEvery` weighed again; with the harness's extension, by its mark alone.
 */
import { describe, expect, test } from 'vitest';
import {
  AnswerReading,
  boundedFate,
  contentLength,
  probeEvery,
} from '../../../../src/engines/load/k6/script/answer-reading.ts';

const cap = 1000;

describe('AnswerReading', () => {
  test('within the cap: read as bytes, every answer', () => {
    const reading = new AnswerReading(cap);
    for (let i = 0; i < 5; i++) {
      expect(reading.mode).toBe('binary');
      expect(reading.judge({ mode: 'binary', status: 200, size: cap, declared: cap })).toBe('read');
    }
  });

  test('past the cap with a length: garbage, then read into nothing and judged by the length', () => {
    const reading = new AnswerReading(cap);
    expect(reading.judge({ mode: 'binary', status: 200, size: cap + 1, declared: cap + 1 })).toBe('too-long');
    expect(reading.mode).toBe('none');
    expect(reading.judge({ mode: 'none', status: 200, size: 0, declared: 50_000_000 })).toBe('too-long');
    expect(reading.mode).toBe('none');
    // Within the cap: its body is gone (its check sees none), and the VU reads as bytes again.
    expect(reading.judge({ mode: 'none', status: 200, size: 0, declared: 10 })).toBe('unread');
    expect(reading.mode).toBe('binary');
  });

  test('a 204 or 304 declaring a length past the cap has no body: not garbage', () => {
    const reading = new AnswerReading(cap);
    reading.judge({ mode: 'binary', status: 200, size: cap + 1, declared: undefined });
    expect(reading.judge({ mode: 'none', status: 304, size: 0, declared: cap + 1 })).toBe('unread');
  });

  test(`chunked past the cap: judged as the last one weighed, one in ${probeEvery} weighed again`, () => {
    const reading = new AnswerReading(cap);
    reading.judge({ mode: 'binary', status: 200, size: cap + 1, declared: undefined });
    const modes: string[] = [];
    for (let i = 0; i < 2 * probeEvery; i++) {
      const mode = reading.mode;
      modes.push(mode);
      const fate = reading.judge({ mode, status: 200, size: mode === 'binary' ? cap + 1 : 0, declared: undefined });
      expect(fate).toBe(mode === 'binary' ? 'too-long' : 'judged-too-long');
    }
    expect(modes.filter((mode) => mode === 'binary')).toHaveLength(2);
    // A probe within the cap: bytes again.
    while (reading.mode === 'none') reading.judge({ mode: 'none', status: 200, size: 0, declared: undefined });
    expect(reading.judge({ mode: 'binary', status: 200, size: 10, declared: undefined })).toBe('read');
    expect(reading.mode).toBe('binary');
  });

  test('contentLength: digits only', () => {
    expect(contentLength('52428813')).toBe(52_428_813);
    expect(contentLength(' 7 ')).toBe(7);
    expect(contentLength(undefined)).toBeUndefined();
    expect(contentLength('1e3')).toBeUndefined();
    expect(contentLength('')).toBeUndefined();
  });
});

describe('boundedFate (the extension reads within the cap)', () => {
  test('marked past the cap: garbage, whatever came of its body (none, or the cap and a byte)', () => {
    expect(boundedFate({ pastCap: true, size: 0 }, cap)).toBe('too-long');
    expect(boundedFate({ pastCap: true, size: cap + 1 }, cap)).toBe('too-long');
  });

  test('unmarked: read, up to the cap itself; more than the cap is garbage all the same', () => {
    expect(boundedFate({ pastCap: false, size: 0 }, cap)).toBe('read');
    expect(boundedFate({ pastCap: false, size: cap }, cap)).toBe('read');
    expect(boundedFate({ pastCap: false, size: cap + 1 }, cap)).toBe('too-long');
  });
});
