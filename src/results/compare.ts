/**
 * A run against a baseline: per load scenario and tag, the change of p50, p90, p99, throughput and
 * error rate with a 95% interval and a verdict (improved, unchanged, regressed); per conformance rule,
 * what newly fails, newly passes or is newly blocked. Pure: both sides come in as ComparableReport,
 * from a report.json (src/cli/compare-input.ts) or from the run in memory.
 *
 * The method (ARCHITECTURE.md "Baseline comparison"):
 * - A scenario's seconds are the replicates. Its interval is a block bootstrap over the per-second
 *   series both reports keep: seconds drawn with replacement, each side on its own, the statistic the
 *   completed-weighted mean of the per-second value (p50, p90, p99, requests, failed share), 2,000
 *   resamples, a percentile interval. Within-run drift lands in the interval; independent requests
 *   would not see it. The interval is placed around the change of the whole-run figures the reports
 *   print (the bootstrap gives its spread), so the change shown is the change of what users read.
 * - A tag has no series of its own, only its HDR histogram, so its latency interval resamples ranks:
 *   the rank of a p-quantile among n requests is Binomial(n, p), drawn on each side; throughput is a
 *   Poisson count, the error rate a difference of two proportions (normal approximations).
 * - The verdict: regressed when the whole interval lies beyond the metric's tolerance in the worse
 *   direction, improved when it lies beyond it in the better one, otherwise unchanged. The tolerance
 *   is what a machine's own noise makes of two identical runs (measured: bench/compare-method.ts).
 */
import { probit, quantileSorted } from 'simple-statistics';
import { seededRandom } from '../shared/seeded-random.ts';
import { decodeHistogram, newHistogram } from './histogram.ts';
import { type RuleState, ruleCells } from './rule-states.ts';
import type { VerdictKind } from './verdict.ts';

export type { RuleState };

export const compareMetrics = ['p50', 'p90', 'p99', 'throughput', 'error-rate'] as const;
export type CompareMetric = (typeof compareMetrics)[number];

/**
 * Relative for latency and throughput (0.1 = 10%), absolute for the error rate (0.01 = 1 point); and
 * the smallest latency change that counts, in milliseconds, whatever its share.
 */
export interface Tolerances extends Readonly<Record<CompareMetric, number>> {
  readonly latencyFloorMs: number;
}

/**
 * The defaults, from 40 identical-run pairs on a 2-core machine (bench/compare-method.ts): wide
 * enough that two identical runs on a shared machine stay unchanged, narrow enough that a +30% p99 is
 * caught. A pipeline with a quieter machine sets tighter ones with --tolerance.
 */
export const defaultTolerances: Tolerances = {
  p50: 0.1,
  p90: 0.1,
  p99: 0.15,
  throughput: 0.1,
  'error-rate': 0.01,
  // A/A pairs at the README's defaults against the embedded reference on a 2-core machine (issue 36,
  // bench/aa-defaults.ts): whole runs moved by up to 3.5 ms at p99 (3.0 → 6.5 ms) with nothing changed,
  // a +118% that every relative tolerance called a regression, 2 pairs of 7. On loopback a few
  // milliseconds are the machine's, not the implementation's.
  latencyFloorMs: 5,
};

export type ChangeVerdict = 'improved' | 'unchanged' | 'regressed';

export interface MetricChange {
  readonly metric: CompareMetric;
  /** Latency in ms, throughput in requests per second, error rate as a share (0.02 = 2%). */
  readonly baseline: number;
  readonly current: number;
  /** Relative (latency, throughput) or absolute (error rate), as the tolerance. Null when the baseline is 0. */
  readonly change: number | null;
  /** The 95% interval of the change; null when there is too little data to resample. */
  readonly interval: readonly [number, number] | null;
  readonly tolerance: number;
  /** Latency only: the smallest change in ms that counts, whatever its share of the baseline. */
  readonly floorMs?: number;
  readonly verdict: ChangeVerdict;
}

export interface ScenarioChange {
  readonly scenario: string;
  /** Empty for the scenario as a whole. */
  readonly tags: Readonly<Record<string, string>>;
  /** How the interval was made: `seconds` (block bootstrap over the series) or `requests` (the histogram). */
  readonly replicates: 'seconds' | 'requests';
  readonly metrics: readonly MetricChange[];
  /** The scenario's per-second p50 and p99 in the baseline, for curves drawn over the current run's. */
  readonly baselineSeries?: readonly { readonly second: number; readonly p50: number; readonly p99: number }[];
}

export interface RuleChange {
  readonly target: string;
  readonly rule: string;
  readonly baseline: RuleState | 'absent';
  readonly current: RuleState | 'absent';
}

export interface ConformanceChange {
  readonly newlyFailing: readonly RuleChange[];
  readonly newlyPassing: readonly RuleChange[];
  readonly newlyBlocked: readonly RuleChange[];
}

export interface Comparison {
  /** Where the baseline came from (a path), and when it ran. */
  readonly baseline: { readonly source: string; readonly startedAt: string };
  readonly method: string;
  readonly confidence: number;
  readonly resamples: number;
  readonly tolerances: Tolerances;
  readonly scenarios: readonly ScenarioChange[];
  readonly conformance: ConformanceChange | null;
  /** Scenarios or tags on one side only, and targets that could not be matched: not compared. */
  readonly unmatched: readonly string[];
  /** A metric regressed or a rule newly fails. */
  readonly regressed: boolean;
}

/** The counts a comparison reads (a load result's RequestCounts has them). */
export interface RequestCounts {
  readonly completed: number;
  readonly failed: number;
}

/** One second of a run's series, as far as a comparison reads it (a load result's SeriesPoint). */
export interface SeriesPoint {
  readonly second: number;
  readonly completed: number;
  readonly failed: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

export interface ComparableTag {
  readonly tags: Readonly<Record<string, string>>;
  readonly requests: RequestCounts;
  readonly histogram: string;
}

export interface ComparableScenario {
  readonly name: string;
  readonly requests: RequestCounts;
  /** Seconds of load (the scenario's setting), for throughput. */
  readonly durationS: number;
  readonly histogram: string;
  readonly series: readonly SeriesPoint[];
  readonly tags: readonly ComparableTag[];
}

export interface ComparableCase {
  readonly target: string;
  readonly rules: readonly string[];
  readonly verdict: VerdictKind;
  /** The rule the verdict blames, if it names one. */
  readonly rule?: string;
}

export interface ComparableReport {
  readonly source: string;
  readonly startedAt: string;
  readonly scenarios: readonly ComparableScenario[] | null;
  readonly cases: readonly ComparableCase[] | null;
}

export interface CompareOptions {
  readonly tolerances?: Partial<Tolerances>;
  readonly resamples?: number;
  readonly seed?: number;
}

const confidence = 0.95;
const lowQ = (1 - confidence) / 2;
const highQ = 1 - lowQ;

export const compareMethod =
  'scenario: block bootstrap over per-second series (seconds as replicates); tag: rank resampling from HDR histograms; 95% percentile interval; verdict against a per-metric tolerance';

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function interval(draws: number[]): readonly [number, number] {
  draws.sort((a, b) => a - b);
  return [quantileSorted(draws, lowQ), quantileSorted(draws, highQ)];
}

/** Worse is up for latency and the error rate, down for throughput. */
function verdictOf(metric: CompareMetric, range: readonly [number, number] | null, tolerance: number): ChangeVerdict {
  if (range === null) return 'unchanged';
  const [low, high] = metric === 'throughput' ? [-range[1], -range[0]] : range;
  if (low > tolerance) return 'regressed';
  if (high < -tolerance) return 'improved';
  return 'unchanged';
}

/**
 * Requests a side needs before its percentile p is judged: ten beyond it (1,000 for p99, 100 for p90, 20
 * for p50). Fewer, and the percentile is a handful of requests, the slowest of a short run: two 5 s runs
 * at 40 req/s compared their p99s as their maxima, and one cold second regressed once in three (issue 36).
 */
export function requestsToJudge(metric: CompareMetric): number {
  return metric in percentileOf ? Math.ceil(1000 / (100 - percentileOf[metric as keyof typeof percentileOf])) : 1;
}

function change(
  metric: CompareMetric,
  baseline: number,
  current: number,
  spread: readonly [number, number] | null,
  tolerances: Tolerances,
  requests: { readonly baseline: number; readonly current: number },
): MetricChange {
  const tolerance = tolerances[metric];
  // A latency change counts only past the floor too: the interval judges the noise, the floor the
  // size (a whole run 3 ms slower on loopback is the machine's; a clear 9 ms one is a regression).
  const latency = metric in percentileOf;
  const belowFloor = latency && Math.abs(current - baseline) < tolerances.latencyFloorMs;
  const absolute = metric === 'error-rate';
  const observed = absolute ? current - baseline : baseline > 0 ? current / baseline - 1 : null;
  // Too few requests on a side to judge the percentile: no interval, so no verdict beyond "unchanged".
  const judged = Math.min(requests.baseline, requests.current) >= requestsToJudge(metric);
  const range =
    observed === null || spread === null || !judged ? null : ([observed + spread[0], observed + spread[1]] as const);
  return {
    metric,
    baseline,
    current,
    change: observed,
    interval: range,
    tolerance,
    ...(latency && { floorMs: tolerances.latencyFloorMs }),
    verdict: belowFloor ? 'unchanged' : verdictOf(metric, range, tolerance),
  };
}

const percentileOf: Readonly<Record<'p50' | 'p90' | 'p99', number>> = { p50: 50, p90: 90, p99: 99 };

interface SideFigures {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly throughput: number;
  readonly 'error-rate': number;
}

function wholeRun(histogram: string, requests: RequestCounts, durationS: number): SideFigures {
  const decoded = decodeHistogram(histogram, newHistogram);
  const at = (p: number) => (decoded.totalCount > 0 ? decoded.getValueAtPercentile(p) / 1000 : 0);
  const figures = {
    p50: at(50),
    p90: at(90),
    p99: at(99),
    throughput: durationS > 0 ? requests.completed / durationS : 0,
    'error-rate': errorRate(requests),
  };
  decoded.destroy();
  return figures;
}

function errorRate(requests: RequestCounts): number {
  const ended = requests.completed + requests.failed;
  return ended > 0 ? requests.failed / ended : 0;
}

/** The per-second statistic of one resample: completed-weighted mean of each metric. */
function seriesStatistic(points: readonly SeriesPoint[]): SideFigures {
  let weight = 0;
  let p50 = 0;
  let p90 = 0;
  let p99 = 0;
  let completed = 0;
  let failed = 0;
  for (const point of points) {
    weight += point.completed;
    p50 += point.p50 * point.completed;
    p90 += point.p90 * point.completed;
    p99 += point.p99 * point.completed;
    completed += point.completed;
    failed += point.failed;
  }
  const w = Math.max(weight, 1);
  return {
    p50: p50 / w,
    p90: p90 / w,
    p99: p99 / w,
    throughput: completed / Math.max(points.length, 1),
    'error-rate': completed + failed > 0 ? failed / (completed + failed) : 0,
  };
}

/** Seconds that saw requests end; the bootstrap needs a few on each side. */
function usableSeconds(series: readonly SeriesPoint[]): SeriesPoint[] {
  return series.filter((point) => point.completed + point.failed > 0);
}

const minimumSeconds = 3;

/**
 * The spread of the change (quantiles of bootstrap − its statistic on the data) per metric, from
 * seconds drawn with replacement on each side.
 */
function seriesSpread(
  baseline: readonly SeriesPoint[],
  current: readonly SeriesPoint[],
  resamples: number,
  random: () => number,
): Record<CompareMetric, readonly [number, number] | null> {
  const draw = (points: readonly SeriesPoint[]) =>
    seriesStatistic(
      Array.from({ length: points.length }, () => points[Math.floor(random() * points.length)] as SeriesPoint),
    );
  const delta = (metric: CompareMetric, b: SideFigures, c: SideFigures): number | null =>
    metric === 'error-rate' ? c[metric] - b[metric] : b[metric] > 0 ? c[metric] / b[metric] - 1 : null;
  const observedB = seriesStatistic(baseline);
  const observedC = seriesStatistic(current);
  const draws: Record<CompareMetric, number[]> = { p50: [], p90: [], p99: [], throughput: [], 'error-rate': [] };
  for (let i = 0; i < resamples; i += 1) {
    const b = draw(baseline);
    const c = draw(current);
    for (const metric of compareMetrics) {
      const value = delta(metric, b, c);
      if (value !== null) draws[metric].push(value);
    }
  }
  const spread = {} as Record<CompareMetric, readonly [number, number] | null>;
  for (const metric of compareMetrics) {
    const center = delta(metric, observedB, observedC);
    const values = draws[metric];
    if (center === null || values.length < resamples / 2) {
      spread[metric] = null;
      continue;
    }
    const [low, high] = interval(values);
    spread[metric] = [low - center, high - center];
  }
  return spread;
}

/** The spread of a tag's changes from its histograms and counts (requests as replicates). */
function histogramSpread(
  baseline: ComparableTag,
  current: ComparableTag,
  resamples: number,
  random: () => number,
): Record<CompareMetric, readonly [number, number] | null> {
  const b = decodeHistogram(baseline.histogram, newHistogram);
  const c = decodeHistogram(current.histogram, newHistogram);
  try {
    const spread = {} as Record<CompareMetric, readonly [number, number] | null>;
    for (const metric of ['p50', 'p90', 'p99'] as const) {
      const p = percentileOf[metric] / 100;
      if (b.totalCount < 20 || c.totalCount < 20) {
        spread[metric] = null;
        continue;
      }
      const rankValue = (histogram: typeof b, z: number) => {
        const n = histogram.totalCount;
        const rank = Math.min(Math.max(n * p + z * Math.sqrt(n * p * (1 - p)), 1), n);
        return histogram.getValueAtPercentile((100 * rank) / n);
      };
      const center = c.getValueAtPercentile(p * 100) / b.getValueAtPercentile(p * 100) - 1;
      const draws: number[] = [];
      for (let i = 0; i < resamples; i += 1) {
        draws.push(rankValue(c, normal(random)) / Math.max(rankValue(b, normal(random)), 1) - 1);
      }
      const [low, high] = interval(draws);
      spread[metric] = [low - center, high - center];
    }
    const z = probit(highQ);
    const nb = baseline.requests.completed;
    const nc = current.requests.completed;
    // Poisson counts: the log of their ratio has variance 1/nb + 1/nc.
    spread.throughput =
      nb > 0 && nc > 0
        ? (() => {
            const ratio = nc / nb;
            const half = z * Math.sqrt(1 / nb + 1 / nc);
            return [ratio * Math.exp(-half) - ratio, ratio * Math.exp(half) - ratio] as const;
          })()
        : null;
    const endedB = nb + baseline.requests.failed;
    const endedC = nc + current.requests.failed;
    const rb = errorRate(baseline.requests);
    const rc = errorRate(current.requests);
    spread['error-rate'] =
      endedB > 0 && endedC > 0
        ? (() => {
            // Wald, with a half-count floor so that zero failures on both sides still has a width.
            const varB = Math.max(rb * (1 - rb), 0.5 / endedB) / endedB;
            const varC = Math.max(rc * (1 - rc), 0.5 / endedC) / endedC;
            const half = z * Math.sqrt(varB + varC);
            return [-half, half] as const;
          })()
        : null;
    return spread;
  } finally {
    b.destroy();
    c.destroy();
  }
}

/** The wider of two spreads (either may be unknown). */
function widest(
  a: readonly [number, number] | null,
  b: readonly [number, number] | null,
): readonly [number, number] | null {
  if (a === null || b === null) return a ?? b;
  return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
}

const tagKey = (tags: Readonly<Record<string, string>>) =>
  Object.entries(tags)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}:${value}`)
    .join(',');

function compareScenario(
  baseline: ComparableScenario,
  current: ComparableScenario,
  tolerances: Tolerances,
  resamples: number,
  random: () => number,
  unmatched: string[],
): ScenarioChange[] {
  const whole = (scenario: ComparableScenario) => wholeRun(scenario.histogram, scenario.requests, scenario.durationS);
  const b = whole(baseline);
  const c = whole(current);
  const bSeconds = usableSeconds(baseline.series);
  const cSeconds = usableSeconds(current.series);
  const bySeconds = bSeconds.length >= minimumSeconds && cSeconds.length >= minimumSeconds;
  const spread = bySeconds
    ? seriesSpread(bSeconds, cSeconds, resamples, random)
    : histogramSpread(
        { tags: {}, requests: baseline.requests, histogram: baseline.histogram },
        { tags: {}, requests: current.requests, histogram: current.histogram },
        resamples,
        random,
      );
  const changes: ScenarioChange[] = [
    {
      scenario: current.name,
      tags: {},
      replicates: bySeconds ? 'seconds' : 'requests',
      metrics: compareMetrics.map((metric) =>
        change(metric, b[metric], c[metric], spread[metric], tolerances, {
          baseline: baseline.requests.completed,
          current: current.requests.completed,
        }),
      ),
      baselineSeries: baseline.series.map((point) => ({ second: point.second, p50: point.p50, p99: point.p99 })),
    },
  ];
  const baselineTags = new Map(baseline.tags.map((tag) => [tagKey(tag.tags), tag]));
  // One tag set is the scenario itself: nothing to add.
  if (current.tags.length <= 1 && baseline.tags.length <= 1) return changes;
  for (const tag of current.tags) {
    const key = tagKey(tag.tags);
    const before = baselineTags.get(key);
    baselineTags.delete(key);
    if (before === undefined) {
      unmatched.push(`${current.name} {${key}}: only in the current run`);
      continue;
    }
    const tb = wholeRun(before.histogram, before.requests, baseline.durationS);
    const tc = wholeRun(tag.histogram, tag.requests, current.durationS);
    // Requests as replicates see no drift between runs (the machine busier in one than the other); a tag's
    // requests share their scenario's seconds, so its spread is at least the scenario's, where that is known.
    // Without it, an A/A pair at the README's defaults regressed on {op:GET} p90 beside a scenario unchanged.
    const ownSpread = histogramSpread(before, tag, resamples, random);
    const tagSpread = Object.fromEntries(
      compareMetrics.map((metric) => [metric, widest(ownSpread[metric], bySeconds ? spread[metric] : null)]),
    ) as Record<CompareMetric, readonly [number, number] | null>;
    changes.push({
      scenario: current.name,
      tags: { ...tag.tags },
      replicates: 'requests',
      metrics: compareMetrics.map((metric) =>
        change(metric, tb[metric], tc[metric], tagSpread[metric], tolerances, {
          baseline: before.requests.completed,
          current: tag.requests.completed,
        }),
      ),
    });
  }
  for (const key of baselineTags.keys()) unmatched.push(`${current.name} {${key}}: only in the baseline`);
  return changes;
}

function compareConformance(
  baseline: readonly ComparableCase[],
  current: readonly ComparableCase[],
  unmatched: string[],
): ConformanceChange {
  const statesOf = (cases: readonly ComparableCase[]) =>
    new Map(
      [...ruleCells(cases)].map(([target, rules]) => [
        target,
        new Map([...rules].map(([rule, cell]) => [rule, cell.state] as const)),
      ]),
    );
  const before = statesOf(baseline);
  const after = statesOf(current);
  // One target on each side is the same implementation whatever its name (a reference, then a URL).
  const pairs: [string, Map<string, RuleState>, Map<string, RuleState>][] = [];
  if (before.size === 1 && after.size === 1) {
    const [b] = before.values();
    const [[name, c] = []] = after.entries();
    if (b !== undefined && c !== undefined && name !== undefined) pairs.push([name, b, c]);
  } else {
    for (const [name, c] of after) {
      const b = before.get(name);
      if (b === undefined) unmatched.push(`conformance target ${name}: only in the current run`);
      else pairs.push([name, b, c]);
    }
    for (const name of before.keys())
      if (!after.has(name)) unmatched.push(`conformance target ${name}: only in the baseline`);
  }
  const newlyFailing: RuleChange[] = [];
  const newlyPassing: RuleChange[] = [];
  const newlyBlocked: RuleChange[] = [];
  for (const [target, b, c] of pairs) {
    for (const rule of [...new Set([...b.keys(), ...c.keys()])].sort()) {
      const was: RuleState | 'absent' = b.get(rule) ?? 'absent';
      const is: RuleState | 'absent' = c.get(rule) ?? 'absent';
      const entry: RuleChange = { target, rule, baseline: was, current: is };
      if (is === 'fail' && was !== 'fail') newlyFailing.push(entry);
      else if (is === 'pass' && (was === 'fail' || was === 'blocked')) newlyPassing.push(entry);
      else if (is === 'blocked' && was !== 'blocked') newlyBlocked.push(entry);
    }
  }
  return { newlyFailing, newlyPassing, newlyBlocked };
}

export function compareReports(
  baseline: ComparableReport,
  current: ComparableReport,
  options: CompareOptions = {},
): Comparison {
  const tolerances: Tolerances = { ...defaultTolerances, ...options.tolerances };
  const resamples = options.resamples ?? 2000;
  const random = seededRandom(options.seed ?? 1);
  const unmatched: string[] = [];
  const scenarios: ScenarioChange[] = [];
  const baselineScenarios = new Map((baseline.scenarios ?? []).map((scenario) => [scenario.name, scenario]));
  for (const scenario of current.scenarios ?? []) {
    const before = baselineScenarios.get(scenario.name);
    baselineScenarios.delete(scenario.name);
    if (before === undefined) {
      unmatched.push(`scenario ${scenario.name}: only in the current run`);
      continue;
    }
    scenarios.push(...compareScenario(before, scenario, tolerances, resamples, random, unmatched));
  }
  if (current.scenarios !== null) {
    for (const name of baselineScenarios.keys()) unmatched.push(`scenario ${name}: only in the baseline`);
  }
  const conformance =
    baseline.cases !== null && current.cases !== null
      ? compareConformance(baseline.cases, current.cases, unmatched)
      : null;
  const regressed =
    scenarios.some((scenario) => scenario.metrics.some((metric) => metric.verdict === 'regressed')) ||
    (conformance?.newlyFailing.length ?? 0) > 0;
  return {
    baseline: { source: baseline.source, startedAt: baseline.startedAt },
    method: compareMethod,
    confidence,
    resamples,
    tolerances,
    scenarios,
    conformance,
    unmatched,
    regressed,
  };
}
