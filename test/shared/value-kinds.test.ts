/** The kinds' readers: one reading for a flag's text and a config file's value, one wording for a refusal. */
import { describe, expect, test } from 'vitest';
import {
  isModulePath,
  Refusal,
  readCount,
  readCounts,
  readDestination,
  readDuration,
  readEnum,
  readNameOrPath,
  readRate,
  readWords,
} from '../../src/shared/value-kinds.ts';

/** The refusal's sentence around `--flag`, or 'taken' when the value was read. */
const refusal = (read: () => unknown) => {
  try {
    read();
    return 'taken';
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return error.text('--flag');
  }
};

describe('the value kinds', () => {
  test('a duration: the one grammar in ms from a text, seconds from a number, its bounds in one wording', () => {
    expect(readDuration({ kind: 'duration' }, '1m30s')).toBe(90_000);
    expect(readDuration({ kind: 'duration' }, 1.5)).toBe(1500);
    expect(refusal(() => readDuration({ kind: 'duration' }, 'soon'))).toBe(
      '--flag "soon" is not a duration (500ms, 10s, 2m, 1h, 1m30s)',
    );
    expect(refusal(() => readDuration({ kind: 'duration' }, '0s'))).toBe('--flag "0s" is not a duration above zero');
    expect(readDuration({ kind: 'duration', orZero: true }, '0')).toBe(0);
    expect(refusal(() => readDuration({ kind: 'duration', maxMs: 3_600_000 }, '2h'))).toBe(
      '--flag "2h" is not a duration up to 3600s',
    );
    expect(refusal(() => readDuration({ kind: 'duration', takes: 'a duration (4ms)' }, 'x'))).toBe(
      '--flag takes a duration (4ms), not "x"',
    );
  });

  test('counts, rates and closed sets', () => {
    expect(readCount({ kind: 'count', min: 1 }, '8')).toBe(8);
    expect(refusal(() => readCount({ kind: 'count' }, '1.5'))).toBe('--flag needs a whole number, got "1.5"');
    expect(refusal(() => readCount({ kind: 'count', min: 2 }, 1))).toBe('--flag must be at least 2, got 1');
    expect(refusal(() => readCount({ kind: 'count', min: 1, want: 'a whole number above zero' }, '0'))).toBe(
      '--flag "0" is not a whole number above zero',
    );
    expect(readRate('2.5')).toBe(2.5);
    expect(refusal(() => readRate('0'))).toBe('--flag "0" is not a number above zero');
    expect(readEnum({ kind: 'enum', choices: ['open', 'closed'] }, 'open')).toBe('open');
    expect(refusal(() => readEnum({ kind: 'enum', choices: ['open', 'closed'] }, 'half'))).toBe(
      '--flag must be one of open, closed',
    );
  });

  test('lists: a text split at commas or an array, of whole numbers or words, each word once', () => {
    expect(readCounts(1, '1, 10')).toEqual([1, 10]);
    expect(readCounts(0, [0, 64])).toEqual([0, 64]);
    expect(refusal(() => readCounts(1, '0,1'))).toBe(
      '--flag "0,1" is not a comma-separated list of whole numbers above zero',
    );
    const areas = { kind: 'list', of: ['kv', 'messaging'], noun: 'area' } as const;
    expect(readWords(areas, 'kv, kv,messaging')).toEqual(['kv', 'messaging']);
    expect(readWords(areas, ['messaging'])).toEqual(['messaging']);
    expect(refusal(() => readWords(areas, 'kv,queues'))).toBe('unknown area "queues" in --flag (areas: kv, messaging)');
    expect(refusal(() => readWords(areas, ','))).toBe('--flag needs at least one area');
    expect(refusal(() => readWords({ ...areas, distinct: true }, 'kv,kv'))).toBe('--flag names the area "kv" twice');
  });

  test('a destination: KIND=DESTINATION of a closed set of kinds; one to come and one unknown refused apart', () => {
    const out = { kind: 'destination', of: ['json'], noun: 'output', planned: ['otlp'] } as const;
    expect(readDestination(out, 'json=a=b.ndjson')).toEqual({ kind: 'json', destination: 'a=b.ndjson' });
    expect(refusal(() => readDestination(out, 'csv=x'))).toBe(
      '--flag "csv=x": unknown output kind "csv" (kinds: json; to come: otlp)',
    );
    expect(refusal(() => readDestination(out, 'otlp=http://x'))).toBe(
      '--flag "otlp=http://x": unknown output kind "otlp", not built yet (kinds: json; to come: otlp)',
    );
    expect(refusal(() => readDestination(out, 'json='))).toBe(
      '--flag "json=" is not KIND=DESTINATION (kinds: json; to come: otlp)',
    );
    // A URL kind: an http(s) URL, anything else refused without repeating it (it may hold a token).
    const urls = { kind: 'destination', of: ['json', 'otlp'], noun: 'output', urls: ['otlp'] } as const;
    expect(readDestination(urls, 'otlp=http://127.0.0.1:4318')).toEqual({
      kind: 'otlp',
      destination: 'http://127.0.0.1:4318',
    });
    for (const bad of ['otlp=notaurl', 'otlp=ftp://host/x', 'otlp=user:secret@host']) {
      expect(refusal(() => readDestination(urls, bad))).toBe(
        '--flag "otlp=…": the otlp destination is not an http:// or https:// URL',
      );
    }
  });

  test('a destination of a URL kind is an http:// or https:// URL; a refusal never repeats it', () => {
    const out = { kind: 'destination', of: ['json', 'rw'], noun: 'output', urls: ['rw'] } as const;
    expect(readDestination(out, 'rw=https://u:p@h:9/api/v1/write')).toEqual({
      kind: 'rw',
      destination: 'https://u:p@h:9/api/v1/write',
    });
    expect(readDestination(out, 'json=notaurl')).toEqual({ kind: 'json', destination: 'notaurl' });
    expect(refusal(() => readDestination(out, 'rw=notaurl'))).toBe(
      '--flag "rw=…": the rw destination is not an http:// or https:// URL',
    );
    expect(refusal(() => readDestination(out, 'rw=ftp://u:secret@h/x'))).toBe(
      '--flag "rw=…": the rw destination is not an http:// or https:// URL',
    );
  });

  test('a name or a path: a word of the set as it is, a module path as given, anything else refused', () => {
    const reporter = {
      kind: 'name-or-path',
      choices: ['json', 'console'],
      noun: 'reporter',
      example: './r.ts',
    } as const;
    expect(readNameOrPath(reporter, 'json')).toBe('json');
    for (const path of ['./r.ts', 'lib/r.js', 'r.mjs', '../r.cts']) {
      expect(isModulePath(path)).toBe(true);
      expect(readNameOrPath(reporter, path)).toBe(path);
    }
    expect(refusal(() => readNameOrPath(reporter, 'jsno'))).toBe(
      '--flag "jsno" is no reporter (reporters: json, console) and no path to a module of your own (./r.ts)',
    );
  });
});
