/**
 * The soak's trends over hours (issue 39 item 4), from the samples the sampler took
 * (engines/soak/resource-sampler.ts): per process sampled (the implementation's group, the harness),
 * its resident memory first and last, the slope of its memory in MB per hour with a 95% interval
 * (trend-slope.ts: one common slope over every process lifetime, so a restart's drop is no negative
 * leak), and the CPU it used, in cores (CPU seconds per wall second between two samples of one
 * lifetime). The slope and the CPU are computed on every sample; soak.json keeps at most
 * `keptPoints` of them per series. MB is 1024 × 1024 bytes, as the soak's bandwidth faults count it.
 * Pure: no clock, no file.
 */
import { downsample, pooledSlope, type SlopeEstimate } from './trend-slope.ts';

export type TrendProcess = 'implementation' | 'harness';
export const trendProcesses: readonly TrendProcess[] = ['implementation', 'harness'];

/** One reading of a process (or a group). */
export interface ResourceSample {
  /** Seconds from the measured load's start. */
  readonly atS: number;
  readonly rssBytes: number;
  /** CPU time used so far in this lifetime, seconds (user + system). */
  readonly cpuS: number;
  /** Which lifetime it is of: the implementation's group id (a new one after each kill), the harness's pid. */
  readonly lifetime: number;
}

/** A sample as the trend reads it. */
export interface TrendPoint {
  readonly atS: number;
  readonly rssMb: number;
  /** Cores used since the lifetime's previous sample; null for a lifetime's first (or a count that went back). */
  readonly cpuCores: number | null;
  readonly lifetime: number;
}

export interface TrendSeries {
  readonly process: TrendProcess;
  /** Every sample, in order; soak.json keeps a bounded picture of them. */
  readonly points: readonly TrendPoint[];
  readonly lifetimes: number;
  /** MB per hour; null with too few samples to fit one (no data: a threshold on it fails). */
  readonly slope: SlopeEstimate | null;
  /** The mean and the largest of the samples' cores; null when no sample had a predecessor. */
  readonly cpuMeanCores: number | null;
  readonly cpuMaxCores: number | null;
}

/** At most this many points per series in soak.json: an hour at one sample every 5 s. */
export const keptPoints = 720;

const mb = 1024 * 1024;

/** The largest value (a loop: a week of samples is too many arguments for Math.max). */
const largest = (values: readonly number[]) =>
  values.reduce((top, value) => Math.max(top, value), Number.NEGATIVE_INFINITY);

export function trendSeries(process: TrendProcess, samples: readonly ResourceSample[]): TrendSeries {
  const points = samples.map((sample, i): TrendPoint => {
    const before = samples[i - 1];
    const wallS = before === undefined ? 0 : sample.atS - before.atS;
    // The CPU of a lifetime's members only grows; a sum that went back lost a member it counted.
    const cpu =
      before !== undefined && before.lifetime === sample.lifetime && wallS > 0 && sample.cpuS >= before.cpuS
        ? (sample.cpuS - before.cpuS) / wallS
        : null;
    return { atS: sample.atS, rssMb: sample.rssBytes / mb, cpuCores: cpu, lifetime: sample.lifetime };
  });
  const cores = points.flatMap((point) => (point.cpuCores === null ? [] : [point.cpuCores]));
  return {
    process,
    points,
    lifetimes: new Set(points.map((point) => point.lifetime)).size,
    slope: pooledSlope(points.map((point) => ({ x: point.atS / 3600, y: point.rssMb, segment: point.lifetime }))),
    cpuMeanCores: cores.length === 0 ? null : cores.reduce((sum, value) => sum + value, 0) / cores.length,
    cpuMaxCores: cores.length === 0 ? null : largest(cores),
  };
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const roundOrNull = (value: number | null, digits: number) => (value === null ? null : round(value, digits));

/** soak.json's form of the series: the summary on every sample, at most `keptPoints` points. */
export function trendsJson(intervalMs: number, series: readonly TrendSeries[]) {
  return {
    intervalMs,
    series: series.map((item) => {
      const rss = item.points.map((point) => point.rssMb);
      return {
        process: item.process,
        samples: item.points.length,
        lifetimes: item.lifetimes,
        rssMb:
          rss.length === 0
            ? null
            : {
                first: round(rss[0] as number, 3),
                last: round(rss[rss.length - 1] as number, 3),
                min: round(-largest(rss.map((value) => -value)), 3),
                max: round(largest(rss), 3),
              },
        slopeMbPerH:
          item.slope === null
            ? null
            : {
                value: round(item.slope.slope, 3),
                lower: round(item.slope.lower, 3),
                upper: round(item.slope.upper, 3),
                standardError: round(item.slope.standardError, 3),
                degreesOfFreedom: item.slope.degreesOfFreedom,
              },
        cpuCores: { mean: roundOrNull(item.cpuMeanCores, 4), max: roundOrNull(item.cpuMaxCores, 4) },
        points: downsample(item.points, keptPoints).map((point) => ({
          atS: round(point.atS, 3),
          rssMb: round(point.rssMb, 3),
          cpuCores: roundOrNull(point.cpuCores, 4),
          lifetime: point.lifetime,
        })),
      };
    }),
  };
}
