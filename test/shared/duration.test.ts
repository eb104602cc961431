import { describe, expect, test } from 'vitest';
import { parseArgv } from '../../src/cli/parse-argv.ts';
import { sinkSettings } from '../../src/cli/sink-flags.ts';
import { parseDurationSeconds } from '../../src/engines/load/load-settings.ts';
import { parseServiceDurationMs } from '../../src/reference/messaging/durations.ts';
import { parseDurationMs } from '../../src/shared/duration.ts';

/** `--sink-wait TEXT` as conformance reads it: parse-argv reads the duration, sinkSettings the rest. */
const sinkWait = (text: string) => {
  const parsed = parseArgv(['conformance', '--sink-wait', text]);
  return parsed.kind === 'run' && parsed.command === 'conformance' ? sinkSettings(parsed.values) : undefined;
};

describe('the one duration grammar', () => {
  test.each([
    ['30', 30_000],
    ['1.5', 1500],
    ['500ms', 500],
    ['10s', 10_000],
    ['2m', 120_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['1m30s', 90_000],
    ['1h30m', 5_400_000],
    ['1h0m0.5s', 3_600_500],
    ['1s500ms', 1500],
    ['0.5ms', 0.5],
    [' 15s ', 15_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  test.each([
    '',
    's',
    '-1s',
    '+1s',
    '1e3s',
    '1 s',
    '1m 30s',
    '10us',
    '2w',
    '1.s',
    '.5s',
    'forever',
    '1s,2s',
    '9'.repeat(400),
  ])('%j is not a duration', (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });

  test('every reader of durations takes the same forms: load flags, the sink flags, the reference headers', () => {
    for (const [text, ms] of [
      ['1m30s', 90_000],
      ['1h', 3_600_000],
      ['500ms', 500],
      ['45', 45_000],
    ] as const) {
      expect(parseDurationSeconds(text)).toBe(ms / 1000);
      expect(sinkWait(text)?.waitSeconds).toBe(ms / 1000);
      expect(parseServiceDurationMs(text)).toBe(ms);
    }
  });

  test('each reader refuses what is not a duration, or out of its own bounds, in one line naming the flag', () => {
    expect(() => parseDurationSeconds('1m 30s', '--ramp')).toThrow(
      /--ramp "1m 30s" is not a duration \(500ms, 10s, 2m, 1h, 1m30s\)/,
    );
    expect(() => parseDurationSeconds('0s')).toThrow(/--duration "0s" is not a duration above zero/);
    expect(() => sinkWait('1h1s')).toThrow(/--sink-wait takes a duration up to 1 hour/);
    expect(parseServiceDurationMs('1 s')).toBeUndefined();
  });
});
