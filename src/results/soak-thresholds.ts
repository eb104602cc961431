/**
 * The soak's thresholds (issue 39): the load's grammar (threshold.ts: `METRIC{tag:value}: AGG OP N`,
 * duplicates refused, no data never passes) over what the checker found (soak-check.ts):
 *
 * - `lost`, `indeterminate`, `duplicates`: counters over the messaging scenarios (`{scenario:…}`
 *   selects one): acknowledged keys that never arrived, publishes left without an answer whose keys
 *   never arrived, arrivals past a key's first;
 * - `fault_errors`: counter, the publishes refused or unanswered while a fault lasted;
 * - `recovery_s` (heal to the first acknowledged answer) and `drain_s` (heal to the last arrival of
 *   what was acknowledged while it lasted): trends in seconds over the faults, `{fault:kill}` or
 *   `{fault:f2}` selecting them by action or by spec (its occurrence ids are `f2-1`, `f2-2`, …). A
 *   fault cut short by the run's end has nothing to recover into and is left out; one that never saw
 *   a success (or whose backlog lost a key) makes the value null: not shown to recover, so it fails.
 *
 * - `recovery_lost_updates`: counter, the key-value counters' shortfall after a recovery (soak-updates.ts),
 *   the largest seen per scenario, summed.
 *
 * - `rss_slope_mb_per_h`: an estimate, the memory slope of a process (soak-trends.ts), judged by its
 *   point value (`value`) or a bound of its 95% interval (`lower`, `upper`): `upper<50` passes only when
 *   the data show, with 95% confidence, less than 50 MB/h of growth, so a short or noisy run cannot
 *   pass it by luck, as a `value<50` can; too few samples to fit a slope is no data;
 * - `rss_mb` and `cpu_cores`: trends over the samples, the resident memory in MB and the cores used
 *   between two samples (`avg`, `min`, `max`, `med`, `p(N)`).
 *
 *   `{process:implementation}` (the default: the one under test) or `{process:harness}` picks the series.
 *
 * `lost: count==0` and `recovery_lost_updates: count==0` are the soak's own: a lost message or a lost
 * update fails the gate whatever else is given. They judge only what a checker saw: a soak without
 * messaging scenarios has no `lost` to read, which is no failure of it (one given on the command line
 * still fails on no data).
 */

import { harnessError } from '../shared/errors.ts';
import type { FaultRecovery, SoakCheck } from './soak-check.ts';
import { type TrendProcess, type TrendSeries, trendProcesses } from './soak-trends.ts';
import type { RecoveryUpdates } from './soak-updates.ts';
import { type MetricKind, meets, parseThresholds, type Threshold, type ThresholdVocabulary } from './threshold.ts';

export const soakMetrics: Readonly<Record<string, MetricKind>> = {
  lost: 'counter',
  indeterminate: 'counter',
  duplicates: 'counter',
  fault_errors: 'counter',
  recovery_s: 'trend',
  drain_s: 'trend',
  recovery_lost_updates: 'counter',
  rss_slope_mb_per_h: 'estimate',
  rss_mb: 'trend',
  cpu_cores: 'trend',
};

const trendMetrics = new Set(['rss_slope_mb_per_h', 'rss_mb', 'cpu_cores']);

const faultMetrics = new Set(['fault_errors', 'recovery_s', 'drain_s']);

const vocabulary: ThresholdVocabulary = {
  metrics: soakMetrics,
  tags: (metric) =>
    faultMetrics.has(metric) ? ['fault', 'scenario'] : trendMetrics.has(metric) ? ['process'] : ['scenario'],
  // Counts only: a soak's counters have no per-second rate (no duration they are over is theirs).
  aggregations: {
    counter: ['count'],
    trend: ['avg', 'min', 'max', 'med', 'p(N)'],
    rate: [],
    estimate: ['value', 'lower', 'upper'],
  },
};

/** The soak's own thresholds, before any given. */
export const defaultSoakThresholds = ['lost: count==0', 'recovery_lost_updates: count==0'];

/** Whether a `--threshold` text names one of the soak's metrics (the rest are the load's). */
export function isSoakThreshold(text: string): boolean {
  const name = text.trim().split(/[{:]/, 1)[0]?.trim() ?? '';
  return Object.hasOwn(soakMetrics, name);
}

export interface SoakThresholdResult {
  readonly expression: string;
  readonly metric: string;
  readonly source: 'soak' | 'cli';
  readonly ok: boolean;
  /** Seconds for the `_s` trends, a count for the counters, MB/h, MB or cores for the trends'; null when no data. */
  readonly value: number | null;
}

/** The soak's defaults and the given texts, parsed: a typo is a usage error before anything starts. */
export function parseSoakThresholds(given: readonly string[]): Threshold[] {
  const own = parseThresholds(defaultSoakThresholds, 'scenario', vocabulary);
  const parsed = parseThresholds(given, 'cli', vocabulary);
  for (const [i, threshold] of parsed.entries()) {
    const named = threshold.tags.process;
    if (named !== undefined && !(trendProcesses as readonly string[]).includes(named)) {
      throw harnessError(
        'SVC_USAGE',
        `threshold ${JSON.stringify(given[i])}: unknown process ${named}; processes: ${trendProcesses.join(', ')}`,
      );
    }
  }
  return [...own, ...parsed];
}

/** A trend metric's value over the series its `{process:…}` picks (the implementation by default). */
function trendValue(threshold: Threshold, trends: readonly TrendSeries[]): number | null {
  const process = (threshold.tags.process ?? 'implementation') as TrendProcess;
  const series = trends.find((item) => item.process === process);
  if (series === undefined) return null;
  if (threshold.metric === 'rss_slope_mb_per_h') {
    if (series.slope === null) return null;
    const { slope, lower, upper } = series.slope;
    return (
      Math.round(
        (threshold.aggregation === 'lower' ? lower : threshold.aggregation === 'upper' ? upper : slope) * 1000,
      ) / 1000
    );
  }
  const values = series.points.flatMap((point) => {
    const read = threshold.metric === 'rss_mb' ? point.rssMb : point.cpuCores;
    return read === null ? [] : [read];
  });
  return values.length === 0 ? null : Math.round(trend(threshold.aggregation, values) * 10_000) / 10_000;
}

/** A scenario's check, named. */
export interface NamedCheck {
  readonly scenario: string;
  readonly check: SoakCheck;
}

/** `f2-1` is of spec `f2`; an action names every occurrence of it. */
function faultMatches(selector: string | undefined, recovery: FaultRecovery & { readonly action?: string }): boolean {
  if (selector === undefined) return true;
  return recovery.action === selector || recovery.id.split('-')[0] === selector || recovery.id === selector;
}

/** The trend aggregation over seconds (`med` is the median); values sorted. */
function trend(aggregation: string, values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
  if (aggregation === 'min') return sorted[0] ?? 0;
  if (aggregation === 'max') return sorted[sorted.length - 1] ?? 0;
  if (aggregation === 'avg')
    return Math.round((sorted.reduce((sum, value) => sum + value, 0) / sorted.length) * 1000) / 1000;
  if (aggregation === 'med') return at(0.5);
  return at(Number(aggregation.slice(2, -1)) / 100);
}

/** A key-value scenario's read-backs after each recovery, named. */
export interface NamedUpdates {
  readonly scenario: string;
  readonly recoveries: readonly RecoveryUpdates[];
}

function value(
  threshold: Threshold,
  checks: readonly NamedCheck[],
  actions: ReadonlyMap<string, string>,
  updates: readonly NamedUpdates[],
  trends: readonly TrendSeries[],
): number | null {
  if (trendMetrics.has(threshold.metric)) return trendValue(threshold, trends);
  if (threshold.metric === 'recovery_lost_updates') {
    const read = updates
      .filter((item) => threshold.tags.scenario === undefined || item.scenario === threshold.tags.scenario)
      .map((item) => item.recoveries.flatMap((recovery) => (recovery.lost === null ? [] : [recovery.lost])))
      .filter((values) => values.length > 0);
    return read.length === 0 ? null : read.reduce((sum, values) => sum + Math.max(...values), 0);
  }
  const chosen = checks.filter(
    (item) => threshold.tags.scenario === undefined || item.scenario === threshold.tags.scenario,
  );
  if (chosen.length === 0) return null;
  const sum = (read: (check: SoakCheck) => number) => chosen.reduce((total, item) => total + read(item.check), 0);
  if (threshold.metric === 'lost') return sum((check) => check.lost.length);
  if (threshold.metric === 'indeterminate') return sum((check) => check.indeterminate.undelivered);
  if (threshold.metric === 'duplicates') return sum((check) => check.duplicates);
  const faults = chosen
    .flatMap((item) => item.check.faults)
    .filter((fault) => faultMatches(threshold.tags.fault, { ...fault, action: actions.get(fault.id) }));
  if (threshold.metric === 'fault_errors') return faults.length === 0 ? null : faults.reduce((t, f) => t + f.errors, 0);
  const judged = faults.filter((fault) => fault.cut !== true);
  if (judged.length === 0) return null;
  const read = judged.map((fault) => (threshold.metric === 'recovery_s' ? fault.firstSuccessS : fault.drainedS));
  if (read.some((item) => item === null)) return null;
  return trend(threshold.aggregation, read as number[]);
}

/**
 * Each threshold judged over every scenario's check; `actions`: each fault occurrence's action (`f1-1`
 * → `kill`), for `{fault:kill}`.
 */
export function judgeSoakThresholds(
  thresholds: readonly Threshold[],
  checks: readonly NamedCheck[],
  actions: ReadonlyMap<string, string>,
  updates: readonly NamedUpdates[] = [],
  trends: readonly TrendSeries[] = [],
): SoakThresholdResult[] {
  return thresholds.flatMap((threshold) => {
    const measured = value(threshold, checks, actions, updates, trends);
    // The soak's own judge only what a checker saw; one the user gave fails on no data.
    if (measured === null && threshold.source !== 'cli') return [];
    return {
      expression: threshold.text,
      metric: threshold.metric,
      source: threshold.source === 'cli' ? 'cli' : 'soak',
      ok: meets(threshold, measured),
      value: measured,
    };
  });
}
