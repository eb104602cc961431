/** The soak's thresholds: the load's grammar over the checker's findings; lost fails the gate by default. */
import { describe, expect, test } from 'vitest';
import type { SoakCheck } from '../../src/results/soak-check.ts';
import { isSoakThreshold, judgeSoakThresholds, parseSoakThresholds } from '../../src/results/soak-thresholds.ts';
import { trendSeries } from '../../src/results/soak-trends.ts';

const check = (over: Partial<SoakCheck>): SoakCheck => ({
  acknowledged: 10,
  refused: 0,
  indeterminate: { total: 0, delivered: 0, undelivered: 0 },
  expectedKeys: 10,
  lost: [],
  undelivered: [],
  duplicates: 0,
  unexpected: 0,
  faults: [],
  ...over,
});
const actions = new Map([
  ['f1-1', 'kill'],
  ['f1-2', 'kill'],
  ['f2-1', 'pause'],
]);
const faults: SoakCheck['faults'] = [
  { id: 'f1-1', text: 'kill every 10s', errors: 3, firstSuccessS: 0.4, drainedS: 2 },
  { id: 'f1-2', text: 'kill every 10s', errors: 1, firstSuccessS: 1.2, drainedS: 3 },
  { id: 'f2-1', text: 'pause 2s every 20s', errors: 5, firstSuccessS: 0.1, drainedS: null },
];

describe('soak thresholds', () => {
  test('a soak metric is told from a load one by its name', () => {
    expect(isSoakThreshold('recovery_s{fault:kill}: max<30')).toBe(true);
    expect(isSoakThreshold('lost: count==0')).toBe(true);
    expect(isSoakThreshold('messages_lost: count==0')).toBe(false);
  });

  test('a lost key fails the default; a clean check passes it', () => {
    const thresholds = parseSoakThresholds([]);
    const lost = { key: 'delivery:1', index: 1, sentAt: 0, faults: [] };
    expect(judgeSoakThresholds(thresholds, [{ scenario: 's', check: check({ lost: [lost] }) }], actions)).toEqual([
      { expression: 'lost: count == 0', metric: 'lost', source: 'soak', ok: false, value: 1 },
    ]);
    expect(judgeSoakThresholds(thresholds, [{ scenario: 's', check: check({}) }], actions)[0]?.ok).toBe(true);
    // No messaging scenario: the default has nothing to judge.
    expect(judgeSoakThresholds(thresholds, [], actions)).toEqual([]);
  });

  test('per fault, by action or spec: recovery, errors; a backlog that lost a key has no drain time', () => {
    const thresholds = parseSoakThresholds([
      'recovery_s{fault:kill}: max<1',
      'recovery_s: avg<1',
      'fault_errors{fault:f2}: count<5',
      'drain_s{fault:kill}: max<30',
      'drain_s: max<30',
    ]);
    const results = judgeSoakThresholds(thresholds, [{ scenario: 's', check: check({ faults }) }], actions);
    expect(results.slice(1).map((item) => [item.expression, item.value, item.ok])).toEqual([
      ['recovery_s{fault:kill}: max < 1', 1.2, false],
      ['recovery_s: avg < 1', 0.567, true],
      ['fault_errors{fault:f2}: count < 5', 5, false],
      ['drain_s{fault:kill}: max < 30', 3, true],
      ['drain_s: max < 30', null, false],
    ]);
  });

  test('a fault cut by the end is left out of recovery; none left is no data', () => {
    const cut = [{ id: 'f1-1', text: 'kill every 10s', errors: 0, firstSuccessS: null, drainedS: null, cut: true }];
    const [, result] = judgeSoakThresholds(
      parseSoakThresholds(['recovery_s: max<30']),
      [{ scenario: 's', check: check({ faults: cut }) }],
      actions,
    );
    expect(result).toMatchObject({ ok: false, value: null });
  });

  test('a bad one is a usage line naming the soak metrics', () => {
    expect(() => parseSoakThresholds(['recovery_s{stream:x}: max<30'])).toThrow(
      /takes no tag stream; its tags: fault, scenario/,
    );
    expect(() => parseSoakThresholds(['recovery_s: rate<1'])).toThrow(/trend metric and does not support rate/);
    // A soak's counter is a count: its rate would have no duration of its own to be over.
    expect(() => parseSoakThresholds(['lost: rate<1'])).toThrow(
      /counter metric and does not support rate; supported: count/,
    );
  });

  test('the trends: the memory slope by its value or a bound of its interval, memory and CPU over the samples, per process', () => {
    const mb = 1024 * 1024;
    // The implementation grows 1, 3, 4, 8 MB over four hours: 2.2 MB/h, 95% interval 0.3745 … 4.0255.
    const implementation = trendSeries(
      'implementation',
      [1, 3, 4, 8].map((y, i) => ({ atS: i * 3600, rssBytes: y * mb, cpuS: i * 1800, lifetime: 5 })),
    );
    // The harness: two samples, no slope.
    const harness = trendSeries('harness', [
      { atS: 0, rssBytes: 50 * mb, cpuS: 0, lifetime: 1 },
      { atS: 10, rssBytes: 51 * mb, cpuS: 2, lifetime: 1 },
    ]);
    const thresholds = parseSoakThresholds([
      'rss_slope_mb_per_h: value<3',
      'rss_slope_mb_per_h{process:implementation}: upper<3',
      'rss_slope_mb_per_h: lower>0',
      'rss_slope_mb_per_h{process:harness}: value<100000',
      'rss_mb: max<8',
      'cpu_cores{process:harness}: avg<0.5',
      'cpu_cores: p(90)<=0.5',
    ]);
    const results = judgeSoakThresholds(thresholds, [], actions, [], [implementation, harness]);
    expect(results.map((item) => [item.expression, item.value, item.ok])).toEqual([
      ['rss_slope_mb_per_h: value < 3', 2.2, true],
      ['rss_slope_mb_per_h{process:implementation}: upper < 3', 4.025, false],
      ['rss_slope_mb_per_h: lower > 0', 0.375, true],
      // Too few samples to fit: no data, which never passes.
      ['rss_slope_mb_per_h{process:harness}: value < 100000', null, false],
      ['rss_mb: max < 8', 8, false],
      ['cpu_cores{process:harness}: avg < 0.5', 0.2, true],
      ['cpu_cores: p(90) <= 0.5', 0.5, true],
    ]);
    // A soak that did not start the implementation has no series of it: no data.
    expect(judgeSoakThresholds(parseSoakThresholds(['cpu_cores: avg<1']), [], actions, [], [harness])).toEqual([
      expect.objectContaining({ value: null, ok: false }),
    ]);
  });

  test('a trend threshold that does not read is a usage line', () => {
    expect(isSoakThreshold('rss_slope_mb_per_h{process:harness}: upper<50')).toBe(true);
    expect(() => parseSoakThresholds(['rss_slope_mb_per_h{process:redis}: upper<50'])).toThrow(
      /unknown process redis; processes: implementation, harness/,
    );
    expect(() => parseSoakThresholds(['rss_slope_mb_per_h: avg<50'])).toThrow(
      /estimate metric and does not support avg; supported: value, lower, upper/,
    );
    expect(() => parseSoakThresholds(['rss_mb: upper<50'])).toThrow(/trend metric and does not support upper/);
    expect(() => parseSoakThresholds(['cpu_cores{scenario:x}: avg<1'])).toThrow(
      /takes no tag scenario; its tags: process/,
    );
    expect(() => parseSoakThresholds(['rss_slope_mb_per_h: slope<1'])).toThrow(
      /unknown aggregation "slope"; expected avg, min, max, med, p\(N\), rate, count, value, lower or upper/,
    );
  });
});
