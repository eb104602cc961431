/**
 * `--tolerance METRIC=VALUE` (repeatable): how large a change must be, beyond the noise, to count.
 * Latency and throughput take a relative change (10%); the error rate takes percentage points (1%:
 * one point); `latency` takes the smallest latency change that counts, a duration (5ms). `--baseline
 * PATH` is read here too, before the run starts.
 */
import { compareMetrics, type Tolerances } from '../results/compare.ts';
import { harnessError } from '../shared/errors.ts';
import { readComparableReport } from './compare-input.ts';

export function parseTolerances(texts: readonly string[]): Partial<Tolerances> {
  const tolerances: { -readonly [Key in keyof Tolerances]?: number } = {};
  for (const text of texts) {
    const floor = /^latency=(.*)$/.exec(text.trim());
    if (floor !== null) {
      const ms = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(floor[1] ?? '');
      if (ms === null) {
        throw harnessError(
          'SVC_USAGE',
          `--tolerance ${JSON.stringify(text)}: latency is the smallest latency change that counts, a duration with its unit like 5ms`,
        );
      }
      tolerances.latencyFloorMs = Number(ms[1]) * (ms[2] === 's' ? 1000 : 1);
      continue;
    }
    const match = /^([a-z0-9-]+)=(\d+(?:\.\d+)?)(%?)$/.exec(text.trim());
    const metric = compareMetrics.find((name) => name === match?.[1]);
    if (match === null || metric === undefined) {
      throw harnessError(
        'SVC_USAGE',
        `--tolerance ${JSON.stringify(text)}: expected METRIC=VALUE with METRIC one of ${compareMetrics.join(', ')} and VALUE a percentage like 10%, or latency=5ms`,
      );
    }
    // A bare number is refused, not read: `p99=5` meant 500% once (issue 36), and 5% to the user who wrote it.
    if (match[3] !== '%') {
      throw harnessError(
        'SVC_USAGE',
        `--tolerance ${JSON.stringify(text)}: a tolerance is a percentage; write its unit: ${metric}=${match[2]}%`,
      );
    }
    const value = Number(match[2]) / 100;
    if (value > 10)
      throw harnessError('SVC_USAGE', `--tolerance ${JSON.stringify(text)}: more than 1000% cannot be meant`);
    tolerances[metric] = value;
  }
  return tolerances;
}

/** The `--baseline` report and `--tolerance`s of load and run, or undefined without a baseline. */
export function baselineOption(values: { readonly baseline?: string; readonly tolerance?: readonly string[] }) {
  const tolerances = parseTolerances(values.tolerance ?? []);
  if (values.baseline === undefined) {
    if (Object.keys(tolerances).length > 0) throw harnessError('SVC_USAGE', '--tolerance needs --baseline');
    return undefined;
  }
  return { report: readComparableReport(values.baseline, 'baseline (--baseline)'), tolerances };
}
