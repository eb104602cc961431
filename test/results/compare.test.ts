/**
 * The baseline comparison's method on data whose truth is known: identical runs stay unchanged, a
 * clear slowdown, a throughput drop and new errors regress, a tolerance decides what counts, tags are
 * compared from their histograms, and conformance rules are matched per target.
 */
import { describe, expect, test } from 'vitest';
import { compareWithBaseline } from '../../src/results/comparable.ts';
import {
  type ComparableCase,
  type ComparableReport,
  type ComparableScenario,
  compareReports,
  requestsToJudge,
  type SeriesPoint,
  type Tolerances,
} from '../../src/results/compare.ts';
import { encodeHistogram, newHistogram, recordMs } from '../../src/results/histogram.ts';

/** A deterministic pseudo-random stream, so each test's data is the same every time. */
function stream(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/**
 * A scenario of `seconds` seconds at `rate` requests/s, latency `base` ms plus exponential noise of mean
 * `noise` ms, `failShare` of requests failing; per-second series and a whole-run histogram.
 */
function scenario(
  name: string,
  options: { base: number; noise?: number; rate?: number; seconds?: number; failShare?: number; seed?: number },
): ComparableScenario {
  const random = stream(options.seed ?? 1);
  const rate = options.rate ?? 200;
  const seconds = options.seconds ?? 10;
  const whole = newHistogram();
  const series: SeriesPoint[] = [];
  let completed = 0;
  let failed = 0;
  for (let second = 0; second < seconds; second += 1) {
    const latencies: number[] = [];
    let secondFailed = 0;
    for (let i = 0; i < rate; i += 1) {
      if (random() < (options.failShare ?? 0)) {
        secondFailed += 1;
        continue;
      }
      const ms = options.base + -Math.log(1 - random()) * (options.noise ?? 0.3);
      latencies.push(ms);
      recordMs(whole, ms);
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    series.push({
      second,
      completed: latencies.length,
      failed: secondFailed,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
    });
    completed += latencies.length;
    failed += secondFailed;
  }
  const histogram = encodeHistogram(whole);
  whole.destroy();
  return {
    name,
    requests: { completed, failed },
    durationS: seconds,
    histogram,
    series,
    tags: [],
  };
}

const report = (scenarios: ComparableScenario[] | null, cases: ComparableCase[] | null = null): ComparableReport => ({
  source: 'test',
  startedAt: '2026-11-26T00:00:00.000Z',
  scenarios,
  cases,
});

/** The method's own tests judge its statistics alone: the latency floor (its own test below) is off. */
const noFloor = { latencyFloorMs: 0 };
const compare = (baseline: ComparableReport, current: ComparableReport, tolerances: Partial<Tolerances> = {}) =>
  compareReports(baseline, current, { tolerances: { ...noFloor, ...tolerances } });

const metric = (comparison: ReturnType<typeof compareReports>, name: string, index = 0) =>
  comparison.scenarios[index]?.metrics.find((item) => item.metric === name);

describe('compareReports: load metrics', () => {
  test('two runs of the same process: every metric unchanged, each interval around zero', () => {
    const comparison = compare(
      report([scenario('command', { base: 1, seed: 1 })]),
      report([scenario('command', { base: 1, seed: 2 })]),
    );
    expect(comparison.regressed).toBe(false);
    for (const item of comparison.scenarios[0]?.metrics ?? []) {
      expect(item.verdict, item.metric).toBe('unchanged');
    }
    const p99 = metric(comparison, 'p99');
    expect(p99?.interval?.[0]).toBeLessThan(0.05);
    expect(p99?.interval?.[1]).toBeGreaterThan(-0.05);
    expect(comparison.scenarios[0]?.replicates).toBe('seconds');
  });

  test('a run too short to judge a percentile leaves it unjudged (issue 36): p99 of 200 requests is their slowest two', () => {
    // 40 req/s for 5 s: 200 requests, too few for p99 (1,000 a side) and enough for p50 (20) and p90 (100).
    const comparison = compare(
      report([scenario('command', { base: 1, rate: 40, seconds: 5, seed: 1 })]),
      report([scenario('command', { base: 1.5, noise: 0.45, rate: 40, seconds: 5, seed: 2 })]),
    );
    expect(metric(comparison, 'p99')).toMatchObject({ interval: null, verdict: 'unchanged' });
    expect(metric(comparison, 'p50')?.verdict).toBe('regressed');
    expect(requestsToJudge('p99')).toBe(1000);
    expect(requestsToJudge('p90')).toBe(100);
    expect(requestsToJudge('throughput')).toBe(1);
  });

  test('every request 50% slower: p50, p90 and p99 regressed, their intervals above the tolerance', () => {
    const comparison = compare(
      report([scenario('command', { base: 1, seed: 1 })]),
      report([scenario('command', { base: 1.5, noise: 0.45, seed: 2 })]),
    );
    expect(comparison.regressed).toBe(true);
    for (const name of ['p50', 'p90', 'p99']) {
      const item = metric(comparison, name);
      expect(item?.verdict, name).toBe('regressed');
      expect(item?.change).toBeGreaterThan(0.4);
      expect(item?.interval?.[0]).toBeGreaterThan(item?.tolerance ?? 1);
    }
    expect(metric(comparison, 'throughput')?.verdict).toBe('unchanged');
  });

  test('faster is improved, never regressed', () => {
    const comparison = compare(
      report([scenario('command', { base: 2, noise: 0.6 })]),
      report([scenario('command', { base: 1 })]),
    );
    expect(comparison.regressed).toBe(false);
    expect(metric(comparison, 'p50')?.verdict).toBe('improved');
  });

  test('half the throughput, and 5% of requests failing, regress throughput and the error rate', () => {
    const comparison = compare(
      report([scenario('command', { base: 1, rate: 200 })]),
      report([scenario('command', { base: 1, rate: 100, failShare: 0.05, seed: 3 })]),
    );
    expect(metric(comparison, 'throughput')?.verdict).toBe('regressed');
    expect(metric(comparison, 'error-rate')?.verdict).toBe('regressed');
    expect(metric(comparison, 'error-rate')?.change).toBeCloseTo(0.05, 1);
  });

  test('the tolerance decides: a clear +12% is unchanged within 15% and regressed beyond 5%', () => {
    const baseline = report([scenario('command', { base: 10, noise: 0.05, seed: 1 })]);
    const current = report([scenario('command', { base: 11.2, noise: 0.056, seed: 2 })]);
    expect(metric(compare(baseline, current, { p50: 0.15 }), 'p50')?.verdict).toBe('unchanged');
    expect(metric(compare(baseline, current, { p50: 0.05 }), 'p50')?.verdict).toBe('regressed');
  });

  test('tags are compared from their histograms; a tag on one side only is listed as not compared', () => {
    const tagged = (slow: number, extra: boolean): ComparableScenario => {
      const base = scenario('pipeline', { base: 1 });
      const tag = (batch: string, ms: number, seed: number) => {
        const part = scenario('pipeline', { base: ms, noise: ms * 0.3, seed });
        return { tags: { batch }, requests: part.requests, histogram: part.histogram };
      };
      return { ...base, tags: [tag('1', 1, 5), tag('100', slow, 6), ...(extra ? [tag('1000', 9, 7)] : [])] };
    };
    const comparison = compare(report([tagged(4, true)]), report([tagged(8, false)]));
    const batch100 = comparison.scenarios.find((change) => change.tags.batch === '100');
    expect(batch100?.replicates).toBe('requests');
    expect(batch100?.metrics.find((item) => item.metric === 'p50')?.verdict).toBe('regressed');
    expect(
      comparison.scenarios.find((change) => change.tags.batch === '1')?.metrics.every((m) => m.verdict !== 'regressed'),
    ).toBe(true);
    expect(comparison.unmatched).toEqual(['pipeline {batch:1000}: only in the baseline']);
  });

  test('a latency change counts only past the floor (5 ms by default): a whole run at +118% of 3 ms is the machine', () => {
    // What an A/A pair at the README's defaults measured against the embedded reference: p99 3.0 → 6.5 ms.
    const baseline = report([scenario('command', { base: 2, noise: 0.2, seed: 1 })]);
    const current = report([scenario('command', { base: 4.5, noise: 0.43, seed: 2 })]);
    const byDefault = compareReports(baseline, current);
    expect(metric(byDefault, 'p99')).toMatchObject({ verdict: 'unchanged', floorMs: 5 });
    expect(byDefault.regressed).toBe(false);
    expect(metric(compare(baseline, current), 'p99')?.verdict).toBe('regressed');
    // About the same share at 20 ms is past the floor: regressed with the defaults.
    const slow = compareReports(
      report([scenario('command', { base: 20, noise: 2, seed: 1 })]),
      report([scenario('command', { base: 45, noise: 4.3, seed: 2 })]),
    );
    expect(metric(slow, 'p99')?.verdict).toBe('regressed');
    expect(metric(slow, 'throughput')?.floorMs).toBeUndefined();
  });

  test('a regression turns exit code 0 into 98, and leaves a failed gate or threshold its own code', () => {
    const baseline = { report: report([scenario('command', { base: 1 })]), tolerances: noFloor };
    const slow = scenario('command', { base: 3, noise: 0.9, seed: 9 });
    // The run as the load engine hands it over: the fields a comparison reads.
    const load = {
      scenarios: [{ ...slow, settings: { durationS: slow.durationS }, tags: [] }],
    } as unknown as Parameters<typeof compareWithBaseline>[1]['load'];
    const exitCodeAfter = (exitCode: number) =>
      compareWithBaseline({ exitCode }, { startedAt: 'now', ...(load && { load }) }, 'current', baseline).exitCode;
    expect(exitCodeAfter(0)).toBe(98);
    expect(exitCodeAfter(1)).toBe(1);
    expect(exitCodeAfter(99)).toBe(99);
    expect(compareWithBaseline({ exitCode: 0 }, { startedAt: 'now' }, 'current', baseline).exitCode).toBe(0);
  });
});

describe('compareReports: conformance', () => {
  const cases = (target: string, states: Record<string, ComparableCase['verdict']>): ComparableCase[] =>
    Object.entries(states).map(([rule, verdict]) => ({ target, rules: [rule], verdict }));

  test('rules newly failing, newly passing and newly blocked, per target', () => {
    const comparison = compareReports(
      report(null, [
        ...cases('a', { 'B.x': 'pass', 'B.y': 'fail', 'B.z': 'pass', 'B.w': 'pass' }),
        ...cases('b', { 'B.x': 'pass' }),
      ]),
      report(null, [
        ...cases('a', { 'B.x': 'fail', 'B.y': 'pass', 'B.z': 'blocked', 'B.w': 'observation' }),
        ...cases('b', { 'B.x': 'pass' }),
      ]),
    );
    expect(comparison.conformance?.newlyFailing).toEqual([
      { target: 'a', rule: 'B.x', baseline: 'pass', current: 'fail' },
    ]);
    expect(comparison.conformance?.newlyPassing).toEqual([
      { target: 'a', rule: 'B.y', baseline: 'fail', current: 'pass' },
    ]);
    expect(comparison.conformance?.newlyBlocked).toEqual([
      { target: 'a', rule: 'B.z', baseline: 'pass', current: 'blocked' },
    ]);
    expect(comparison.regressed).toBe(true);
  });

  test('one target on each side is the same implementation whatever its name; a rule is failing if any of its cases fails', () => {
    const comparison = compareReports(
      report(null, [{ target: 'reference', rules: ['B.x'], verdict: 'pass' }]),
      report(null, [
        { target: 'staging', rules: ['B.x'], verdict: 'pass' },
        { target: 'staging', rules: ['B.x', 'B.y'], verdict: 'error' },
      ]),
    );
    expect(comparison.conformance?.newlyFailing.map((change) => change.rule)).toEqual(['B.x', 'B.y']);
    expect(comparison.unmatched).toEqual([]);
  });
});
