/**
 * A comparison with its baseline as text: the console's table (scenario rows, and tag rows that
 * changed) and summary.md's section (every row, rules in <details>). report.json carries it whole.
 */
import {
  type ChangeVerdict,
  type Comparison,
  type MetricChange,
  type RuleChange,
  requestsToJudge,
  type ScenarioChange,
} from '../results/compare.ts';
import { table } from './markdown-table.ts';
import { textColumns } from './text-columns.ts';

const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
const points = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(2)} pt`;

function figure(metric: MetricChange, value: number): string {
  if (metric.metric === 'throughput') return `${value.toFixed(1)}/s`;
  if (metric.metric === 'error-rate') return `${(value * 100).toFixed(2)}%`;
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

function changeText(metric: MetricChange): string {
  if (metric.change === null) return 'n/a';
  return metric.metric === 'error-rate' ? points(metric.change) : percent(metric.change);
}

function intervalText(metric: MetricChange): string {
  if (metric.interval === null) {
    const needed = requestsToJudge(metric.metric);
    return needed > 1 ? `too few data (${needed.toLocaleString('en')} requests a side to judge)` : 'too few data';
  }
  const show = metric.metric === 'error-rate' ? points : percent;
  return `[${show(metric.interval[0])}, ${show(metric.interval[1])}]`;
}

const tagText = (change: ScenarioChange) =>
  Object.keys(change.tags).length === 0
    ? ''
    : `{${Object.entries(change.tags)
        .map(([key, value]) => `${key}:${value}`)
        .join(',')}}`;

const mark: Readonly<Record<ChangeVerdict, string>> = {
  improved: 'improved',
  unchanged: 'unchanged',
  regressed: 'REGRESSED',
};

function ruleLine(change: RuleChange): string {
  return `${change.target}: ${change.rule} (${change.baseline} → ${change.current})`;
}

export function comparisonHeadline(comparison: Comparison): string {
  const regressed = comparison.scenarios.flatMap((scenario) =>
    scenario.metrics
      .filter((metric) => metric.verdict === 'regressed')
      .map((metric) => `${scenario.scenario}${tagText(scenario)} ${metric.metric}`),
  );
  const failing = comparison.conformance?.newlyFailing.length ?? 0;
  if (!comparison.regressed) return 'compare: no regression against the baseline';
  const parts = [
    ...(regressed.length > 0
      ? [
          `${regressed.length} metric${regressed.length === 1 ? '' : 's'} regressed (${regressed.slice(0, 3).join(', ')}${regressed.length > 3 ? ', …' : ''})`,
        ]
      : []),
    ...(failing > 0 ? [`${failing} rule${failing === 1 ? '' : 's'} newly failing`] : []),
  ];
  return `compare: REGRESSED against the baseline: ${parts.join('; ')}`;
}

const metricHeader = ['scenario', 'tags', 'metric', 'baseline', 'current', 'change', '95% interval', 'verdict'];

/** A row per scenario (and tag set) and metric; `verdictText` words the verdict for the medium. */
function metricRows(scenarios: readonly ScenarioChange[], verdictText: (verdict: ChangeVerdict) => string): string[][] {
  return scenarios.flatMap((scenario) =>
    scenario.metrics.map((metric) => [
      scenario.scenario,
      tagText(scenario),
      metric.metric,
      figure(metric, metric.baseline),
      figure(metric, metric.current),
      changeText(metric),
      intervalText(metric),
      verdictText(metric.verdict),
    ]),
  );
}

/** Console lines: a fixed-width table, then the conformance changes, then the headline. */
export function comparisonConsole(comparison: Comparison): string[] {
  const rows = metricRows(
    comparison.scenarios.filter(
      (scenario) => Object.keys(scenario.tags).length === 0 || scenario.metrics.some((m) => m.verdict !== 'unchanged'),
    ),
    (verdict) => mark[verdict],
  );
  const lines = [
    `compare: baseline ${comparison.baseline.source} (${comparison.baseline.startedAt}); ${comparison.method}`,
  ];
  if (rows.length > 0) lines.push(...textColumns(metricHeader, rows));
  const conformance = comparison.conformance;
  if (conformance !== null) {
    lines.push(
      `conformance: ${conformance.newlyFailing.length} rules newly failing, ${conformance.newlyPassing.length} newly passing, ${conformance.newlyBlocked.length} newly blocked`,
      ...conformance.newlyFailing.map((change) => `  newly failing  ${ruleLine(change)}`),
      ...conformance.newlyPassing.map((change) => `  newly passing  ${ruleLine(change)}`),
      ...conformance.newlyBlocked.map((change) => `  newly blocked  ${ruleLine(change)}`),
    );
  }
  for (const item of comparison.unmatched) lines.push(`  not compared: ${item}`);
  lines.push(comparisonHeadline(comparison));
  return lines;
}

/** summary.md's section. */
export function comparisonMarkdown(comparison: Comparison): string[] {
  const lines = [
    '## Against the baseline',
    '',
    `**${comparisonHeadline(comparison).replace(/^compare: /, '')}.** Baseline \`${comparison.baseline.source}\` (${comparison.baseline.startedAt}). Method: ${comparison.method}. Tolerances: ${Object.entries(
      comparison.tolerances,
    )
      .map(([metric, value]) =>
        metric === 'latencyFloorMs'
          ? `latency changes under ${value} ms uncounted`
          : `${metric} ${metric === 'error-rate' ? `${(value * 100).toFixed(1)} pt` : `${(value * 100).toFixed(0)}%`}`,
      )
      .join(', ')}.`,
    '',
  ];
  if (comparison.scenarios.length > 0) {
    lines.push(
      ...table(
        metricHeader,
        metricRows(comparison.scenarios, (verdict) => (verdict === 'regressed' ? '**regressed**' : verdict)),
      ),
      '',
    );
  }
  const conformance = comparison.conformance;
  if (conformance !== null) {
    const list = (title: string, changes: readonly RuleChange[]) =>
      changes.length === 0
        ? []
        : [
            `<details><summary>${title}: ${changes.length}</summary>`,
            '',
            ...changes.map((c) => `- ${ruleLine(c)}`),
            '',
            '</details>',
            '',
          ];
    lines.push(
      `Conformance: ${conformance.newlyFailing.length} rules newly failing, ${conformance.newlyPassing.length} newly passing, ${conformance.newlyBlocked.length} newly blocked.`,
      '',
      ...list('Newly failing', conformance.newlyFailing),
      ...list('Newly passing', conformance.newlyPassing),
      ...list('Newly blocked', conformance.newlyBlocked),
    );
  }
  if (comparison.unmatched.length > 0) lines.push(...comparison.unmatched.map((item) => `- not compared: ${item}`), '');
  return lines;
}
