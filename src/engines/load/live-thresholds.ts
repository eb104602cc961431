/**
 * A scenario's thresholds judged over its load so far, once a second, for the live outputs
 * (`LoadProgress.thresholds`): the same evaluation as at the end (scenario-result.ts), over the parts'
 * totals so far. Only the thresholds of what the load itself counts are judged live; a messaging
 * stream's accounting, a fan-out's deliveries and `finish`'s updates exist only once the load is over.
 */
import type { ThresholdResult } from '../../results/load-run.ts';
import type { LoadProgress } from '../../results/reporter.ts';
import type { Threshold } from '../../results/threshold.ts';
import { mergeParts, type RecorderPart } from './recorder.ts';
import { type ResultBase, scenarioResult } from './scenario-result.ts';

/** The metrics the load counts as it goes: their thresholds have a value before the end. */
const liveMetrics = new Set([
  'http_req_duration',
  'http_req_failed',
  'http_reqs',
  'checks',
  'dropped_iterations',
  'commands',
]);

/** The thresholds that can be judged while the load runs. */
export function liveThresholdsOf(thresholds: readonly Threshold[]): Threshold[] {
  return thresholds.filter((threshold) => liveMetrics.has(threshold.metric));
}

/**
 * `progress` with its `thresholds`: `thresholds` (live ones) judged over `parts` (Recorder.totals) when
 * a reporter first reads them. Judging decodes and adds the parts' histograms (about 12 ms a second
 * for four thresholds over four tag sets), which a run pays only when a reporter asks: the live
 * outputs do, the console does not.
 */
export function withThresholds(
  progress: LoadProgress,
  base: ResultBase,
  thresholds: readonly Threshold[],
  parts: readonly RecorderPart[],
): LoadProgress {
  if (thresholds.length === 0) return progress;
  let judged: readonly ThresholdResult[] | undefined;
  return Object.defineProperty({ ...progress }, 'thresholds', {
    enumerable: true,
    get: () => {
      judged ??= currentThresholds(base, thresholds, parts, progress.elapsedS);
      return judged;
    },
  });
}

/** `thresholds` (live ones) judged over `parts` (Recorder.totals), `elapsedS` seconds into the measured load. */
export function currentThresholds(
  base: ResultBase,
  thresholds: readonly Threshold[],
  parts: readonly RecorderPart[],
  elapsedS: number,
): readonly ThresholdResult[] {
  if (thresholds.length === 0) return [];
  const seconds = Math.max(0.001, elapsedS);
  return scenarioResult({
    base,
    merged: mergeParts(parts),
    finish: {},
    problems: [],
    loadSeconds: seconds,
    durationMs: seconds * 1000,
    thresholds,
  }).thresholds;
}
