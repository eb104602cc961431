/**
 * A region comparison (`svc-harness regions`): the same light operations against each region's base
 * URL, in interleaved rounds, then a ranking with confidence. Pure: the engine hands over each round's
 * latency samples per region and operation (tinybench's, ms).
 *
 * The method: rounds are the replicates. Each round ran every region's operations in a shuffled order
 * within a few hundred milliseconds, so drift on the machine lands on every region of a round alike,
 * and a region's score in a round (the geometric mean over its operations of the round's median
 * latency) is paired with the other regions' in that round. The ranking is by the mean score over the
 * rounds. "Significant": the 95% interval of the paired difference between the second and the first
 * lies above 5% of the first's score. The interval is the distribution-free one of Wilcoxon's signed-rank
 * test (the Hodges–Lehmann estimate, with the Walsh averages cut at the exact critical value), not a
 * bootstrap of the mean: on a shared 2-core machine one round in eight can be hit by a neighbour's burst,
 * and a mean bootstrapped over eight rounds took that one round for a difference (two regions on one
 * server came out "significant" in a fresh-clone CI). Fewer than six rounds cannot make a 95% interval
 * this way, and are never significant. The 5% is the practical floor, as compare's tolerance: no one
 * picks a region for less. Each region's percentiles come from all its samples, with intervals from a
 * bootstrap over rounds.
 */

import { quantileSorted } from 'simple-statistics';
import { seededRandom } from '../shared/seeded-random.ts';

export interface RoundSamples {
  readonly region: string;
  readonly operation: string;
  readonly round: number;
  /** Latency of each successful iteration, ms. */
  readonly samplesMs: readonly number[];
  /** Iterations that failed (an error status, a timeout, a delivery that did not come). */
  readonly failed: number;
}

export interface Estimate {
  readonly value: number;
  readonly interval: readonly [number, number] | null;
}

export interface OperationLatency {
  readonly region: string;
  readonly operation: string;
  readonly count: number;
  readonly failed: number;
  readonly p50: Estimate;
  readonly p90: Estimate;
  readonly p99: Estimate;
}

export interface RegionScore {
  readonly region: string;
  /** Mean over rounds of the round's geometric mean of median latencies, ms. */
  readonly score: number;
  readonly interval: readonly [number, number] | null;
}

export interface RegionRanking {
  /** Region names, fastest first. */
  readonly ranking: readonly string[];
  readonly scores: readonly RegionScore[];
  /** The first beats the second beyond the noise. False with fewer than two regions. */
  readonly significant: boolean;
  /**
   * Second minus first, ms: the Hodges–Lehmann estimate over the paired rounds with its 95% signed-rank
   * interval (null with fewer than six paired rounds); null with fewer than two regions.
   */
  readonly difference: Estimate | null;
  readonly operations: readonly OperationLatency[];
  readonly rounds: number;
  readonly method: string;
}

/** The least difference, as a share of the fastest region's score, that counts as beating it. */
export const minimumDifferenceShare = 0.05;

export const regionsMethod =
  'interleaved rounds (shuffled order); a region scores the geometric mean of its operations’ median latency per round; difference: Hodges–Lehmann over paired rounds with its 95% Wilcoxon signed-rank interval; significant: that interval above 5% of the fastest score; scores and percentiles: bootstrap over rounds (2,000 resamples), 95% percentile intervals';

const resamples = 2000;

const sortedCopy = (values: readonly number[]) => [...values].sort((a, b) => a - b);

function median(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : quantileSorted(sortedCopy(values), 0.5);
}

function interval(draws: number[]): readonly [number, number] | null {
  if (draws.length < 20) return null;
  draws.sort((a, b) => a - b);
  return [quantileSorted(draws, 0.025), quantileSorted(draws, 0.975)];
}

/**
 * How many Walsh averages to cut from each end for a two-sided 95% signed-rank interval over `n` pairs:
 * the largest `k` with P(W+ < k) ≤ 2.5% under the exact null distribution (each of the 2^n sign patterns
 * alike). Undefined when even W+ = 0 is likelier than that (n < 6).
 */
export function signedRankCut(n: number): number | undefined {
  const most = (n * (n + 1)) / 2;
  // probabilities[w]: P(W+ = w) over the first i ranks, built rank by rank (halved each step, no overflow).
  let probabilities = [1];
  for (let rank = 1; rank <= n; rank += 1) {
    const next = new Array<number>(probabilities.length + rank).fill(0);
    probabilities.forEach((p, w) => {
      next[w] = (next[w] ?? 0) + p / 2;
      next[w + rank] = (next[w + rank] ?? 0) + p / 2;
    });
    probabilities = next;
  }
  let below = 0;
  let cut = 0;
  for (let w = 0; w <= most; w += 1) {
    below += probabilities[w] ?? 0;
    if (below > 0.025) break;
    cut = w + 1;
  }
  return cut === 0 ? undefined : cut;
}

/** The Hodges–Lehmann estimate of paired differences and its 95% signed-rank interval. */
export function hodgesLehmann(differences: readonly number[]): Estimate {
  const walsh: number[] = [];
  for (let i = 0; i < differences.length; i += 1) {
    for (let j = i; j < differences.length; j += 1) {
      walsh.push(((differences[i] as number) + (differences[j] as number)) / 2);
    }
  }
  if (walsh.length === 0) return { value: Number.NaN, interval: null };
  walsh.sort((a, b) => a - b);
  const cut = signedRankCut(differences.length);
  return {
    value: quantileSorted(walsh, 0.5),
    interval: cut === undefined ? null : [walsh[cut - 1] as number, walsh[walsh.length - cut] as number],
  };
}

/** Per region and round: the geometric mean over operations of the round's medians. */
function roundScores(samples: readonly RoundSamples[], regions: readonly string[], rounds: readonly number[]) {
  const scores = new Map<string, Map<number, number>>();
  for (const region of regions) {
    const byRound = new Map<number, number>();
    for (const round of rounds) {
      const medians = samples
        .filter((item) => item.region === region && item.round === round)
        .map((item) => median(item.samplesMs))
        .filter((value): value is number => value !== undefined && value > 0);
      if (medians.length > 0) {
        byRound.set(round, Math.exp(medians.reduce((sum, value) => sum + Math.log(value), 0) / medians.length));
      }
    }
    scores.set(region, byRound);
  }
  return scores;
}

export function rankRegions(samples: readonly RoundSamples[], seed = 1): RegionRanking {
  const random = seededRandom(seed);
  const regions = [...new Set(samples.map((item) => item.region))];
  const rounds = [...new Set(samples.map((item) => item.round))].sort((a, b) => a - b);
  const scores = roundScores(samples, regions, rounds);
  const draw = () =>
    Array.from({ length: rounds.length }, () => rounds[Math.floor(random() * rounds.length)] as number);
  const meanOver = (byRound: Map<number, number>, picked: readonly number[]) => {
    const values = picked.map((round) => byRound.get(round)).filter((value): value is number => value !== undefined);
    return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
  };
  const regionScores: RegionScore[] = regions
    .map((region) => {
      const byRound = scores.get(region) ?? new Map<number, number>();
      const draws: number[] = [];
      for (let i = 0; i < resamples; i += 1) {
        const value = meanOver(byRound, draw());
        if (!Number.isNaN(value)) draws.push(value);
      }
      return { region, score: meanOver(byRound, rounds), interval: interval(draws) };
    })
    .filter((item) => !Number.isNaN(item.score))
    .sort((a, b) => a.score - b.score);
  const [first, second] = regionScores;
  let difference: Estimate | null = null;
  if (first !== undefined && second !== undefined) {
    const a = scores.get(first.region) ?? new Map<number, number>();
    const b = scores.get(second.region) ?? new Map<number, number>();
    const paired = rounds.filter((round) => a.has(round) && b.has(round));
    difference = hodgesLehmann(paired.map((round) => (b.get(round) ?? 0) - (a.get(round) ?? 0)));
  }
  const operations: OperationLatency[] = [];
  for (const region of regions) {
    for (const operation of [...new Set(samples.filter((s) => s.region === region).map((s) => s.operation))]) {
      const mine = samples.filter((item) => item.region === region && item.operation === operation);
      const all = sortedCopy(mine.flatMap((item) => item.samplesMs));
      const estimate = (q: number): Estimate => {
        if (all.length === 0) return { value: Number.NaN, interval: null };
        const draws: number[] = [];
        for (let i = 0; i < Math.min(resamples, 500) && mine.length > 1; i += 1) {
          const picked = sortedCopy(
            Array.from({ length: mine.length }, () => mine[Math.floor(random() * mine.length)] as RoundSamples).flatMap(
              (item) => item.samplesMs,
            ),
          );
          if (picked.length > 0) draws.push(quantileSorted(picked, q));
        }
        return { value: quantileSorted(all, q), interval: interval(draws) };
      };
      operations.push({
        region,
        operation,
        count: all.length,
        failed: mine.reduce((sum, item) => sum + item.failed, 0),
        p50: estimate(0.5),
        p90: estimate(0.9),
        p99: estimate(0.99),
      });
    }
  }
  return {
    ranking: regionScores.map((item) => item.region),
    scores: regionScores,
    significant:
      first !== undefined &&
      difference?.interval !== null &&
      difference !== null &&
      (difference.interval?.[0] ?? 0) > minimumDifferenceShare * first.score,
    difference,
    operations,
    rounds: rounds.length,
    method: regionsMethod,
  };
}
