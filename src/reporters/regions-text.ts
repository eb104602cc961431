/** A region comparison as text: the console's ranked table and summary.md's section; and report.json's `regions`. */
import type { Estimate } from '../results/region-ranking.ts';
import type { RegionsRun } from '../results/regions-run.ts';
import { table } from './markdown-table.ts';
import { textColumns } from './text-columns.ts';

const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(value < 10 ? 2 : 1)} ms`);
const withInterval = (estimate: Estimate) =>
  estimate.interval === null
    ? ms(estimate.value)
    : `${ms(estimate.value)} [${estimate.interval[0].toFixed(2)}, ${estimate.interval[1].toFixed(2)}]`;

export function regionsVerdict(run: RegionsRun): string {
  const [first, second] = run.ranking;
  if (first === undefined) return 'regions: nothing measured';
  if (second === undefined) return `regions: only ${first} measured`;
  const difference = run.difference;
  const by =
    difference === null
      ? ''
      : ` by ${ms(difference.value)}${difference.interval ? ` (95% interval ${difference.interval[0].toFixed(2)} to ${difference.interval[1].toFixed(2)} ms)` : ' (no 95% interval from fewer than 6 rounds)'}`;
  return run.significant
    ? `regions: ${first} is faster than ${second}${by}, beyond the noise`
    : `regions: ${first} and ${second} do not differ beyond the noise${by}`;
}

function operationRows(run: RegionsRun): string[][] {
  const order = new Map(run.ranking.map((region, index) => [region, index]));
  return [...run.operations]
    .sort((a, b) => (order.get(a.region) ?? 99) - (order.get(b.region) ?? 99) || a.operation.localeCompare(b.operation))
    .map((item) => [
      String((order.get(item.region) ?? -1) + 1),
      item.region,
      item.operation,
      String(item.count),
      String(item.failed),
      withInterval(item.p50),
      withInterval(item.p90),
      withInterval(item.p99),
    ]);
}

const header = ['rank', 'region', 'operation', 'samples', 'failed', 'p50 [95%]', 'p90 [95%]', 'p99 [95%]'];

export function regionsConsole(run: RegionsRun): string[] {
  const rows = operationRows(run);
  return [
    `regions: ${run.rounds} interleaved rounds against ${run.target}${run.embedded ? ' (embedded reference)' : ''}; ${run.method}`,
    ...(rows.length > 0 ? textColumns(header, rows) : []),
    `ranking: ${run.scores.map((score) => `${score.region} ${ms(score.score)}`).join(' < ')}`,
    ...run.problems.map((problem) => `problem: ${problem}`),
    regionsVerdict(run),
  ];
}

export function regionsMarkdown(run: RegionsRun): string[] {
  return [
    '## Regions',
    '',
    `**${regionsVerdict(run).replace(/^regions: /, '')}.** Ranking, fastest first: ${run.ranking.map((region) => `\`${region}\``).join(', ')}. ${run.rounds} rounds; ${run.method}.`,
    '',
    ...table(header, operationRows(run)),
    '',
    ...run.problems.map((problem) => `- problem: ${problem}`),
  ];
}

const round = (value: number) => (Number.isNaN(value) ? null : Math.round(value * 1e4) / 1e4);
const estimateEntry = (estimate: Estimate) => ({
  value: round(estimate.value),
  interval: estimate.interval === null ? null : [round(estimate.interval[0]), round(estimate.interval[1])],
});

export function regionsDocument(run: RegionsRun) {
  return {
    target: run.target,
    embedded: run.embedded,
    method: run.method,
    rounds: run.rounds,
    ranking: [...run.ranking],
    significant: run.significant,
    difference: run.difference === null ? null : estimateEntry(run.difference),
    scores: run.scores.map((score) => ({
      region: score.region,
      score: round(score.score),
      interval: score.interval === null ? null : [round(score.interval[0]), round(score.interval[1])],
    })),
    operations: run.operations.map((item) => ({
      region: item.region,
      operation: item.operation,
      count: item.count,
      failed: item.failed,
      p50: estimateEntry(item.p50),
      p90: estimateEntry(item.p90),
      p99: estimateEntry(item.p99),
    })),
  };
}
