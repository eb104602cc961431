/**
 * The page's comparison with the baseline (`--baseline`): each metric's change with its interval and
 * verdict (regressions first), the rules that changed, and per scenario its p50 and p99 per second in
 * the baseline drawn over the current run's.
 */
import type { Comparison, MetricChange, ScenarioChange } from '../../results/compare.ts';
import type { LoadRun } from '../../results/load-run.ts';
import { comparisonHeadline } from '../compare-text.ts';
import { type ChartSpec, palette, slug, tagLabel } from './chart-data.ts';
import { type Cell, figure, type Section, type Text, table } from './markup.ts';

const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;

function changeCells(t: Text, metric: MetricChange): Cell[] {
  const show = metric.metric === 'error-rate' ? (v: number) => `${(v * 100).toFixed(2)} pt` : percent;
  const verdictClass = metric.verdict === 'regressed' ? 'bad' : metric.verdict === 'improved' ? 'ok' : '';
  return [
    { html: t(metric.metric) },
    metric.baseline,
    metric.current,
    { html: metric.change === null ? 'n/a' : t(show(metric.change)) },
    {
      html: metric.interval === null ? 'too few data' : t(`[${show(metric.interval[0])}, ${show(metric.interval[1])}]`),
    },
    { html: t(metric.verdict), className: verdictClass },
  ];
}

function overlayChart(change: ScenarioChange, load: LoadRun | undefined, key: string): ChartSpec | undefined {
  const current = load?.scenarios.find((scenario) => scenario.name === change.scenario)?.series ?? [];
  const baseline = change.baselineSeries ?? [];
  if (current.length === 0 && baseline.length === 0) return undefined;
  const seconds = [...new Set([...baseline.map((p) => p.second), ...current.map((p) => p.second)])].sort(
    (a, b) => a - b,
  );
  const at = (points: readonly { second: number; p50: number; p99: number }[], field: 'p50' | 'p99') => {
    const bySecond = new Map(points.map((point) => [point.second, point[field]]));
    return seconds.map((second) => bySecond.get(second) ?? null);
  };
  return {
    id: `compare-${key}`,
    title: `${change.scenario}: baseline and current, p50 and p99 per second`,
    kind: 'lines',
    x: { label: 'seconds since start', scale: 'seconds', values: seconds },
    y: { label: 'latency (ms)', log: false },
    series: [
      { label: 'baseline p50', values: at(baseline, 'p50'), axis: 'y', color: palette[4] ?? '#56B4E9' },
      { label: 'baseline p99', values: at(baseline, 'p99'), axis: 'y', color: palette[0] ?? '#0072B2' },
      { label: 'current p50', values: at(current, 'p50'), axis: 'y', color: palette[6] ?? '#F0E442' },
      { label: 'current p99', values: at(current, 'p99'), axis: 'y', color: palette[5] ?? '#D55E00' },
    ],
  };
}

export function compareSection(
  t: Text,
  redact: (text: string) => string,
  comparison: Comparison,
  load?: LoadRun,
): Section {
  const rank = (change: ScenarioChange) => (change.metrics.some((m) => m.verdict === 'regressed') ? 0 : 1);
  const ordered = [...comparison.scenarios].sort((a, b) => rank(a) - rank(b));
  const rows = ordered.flatMap((change) =>
    change.metrics.map((metric) => [
      { html: t(change.scenario) },
      { html: t(tagLabel(change.tags)) },
      ...changeCells(t, metric),
    ]),
  );
  const charts = comparison.scenarios
    .filter((change) => Object.keys(change.tags).length === 0)
    .map((change, index) => overlayChart(change, load, slug(redact(change.scenario), index)))
    .filter((chart): chart is ChartSpec => chart !== undefined);
  const conformance = comparison.conformance;
  const ruleRows = conformance
    ? [
        ...conformance.newlyFailing.map((c) => ['newly failing', c] as const),
        ...conformance.newlyPassing.map((c) => ['newly passing', c] as const),
        ...conformance.newlyBlocked.map((c) => ['newly blocked', c] as const),
      ].map(([what, c]) => [
        { html: t(what), className: what === 'newly failing' ? 'bad' : '' },
        { html: t(c.target) },
        { html: `<code>${t(c.rule)}</code>` },
        { html: `${t(c.baseline)} → ${t(c.current)}` },
      ])
    : [];
  const html = [
    `<section class="part" id="compare">`,
    `<h2>Against the baseline <small>${t(comparison.baseline.source)} (${t(comparison.baseline.startedAt)})</small></h2>`,
    `<p class="${comparison.regressed ? 'problem' : 'quiet'}">${t(comparisonHeadline(comparison).replace(/^compare: /, ''))}</p>`,
    `<p class="quiet">${t(comparison.method)}</p>`,
    rows.length > 0
      ? table(
          'load metrics (regressions first)',
          ['scenario', 'tags', 'metric', 'baseline', 'current', 'change', '95% interval', 'verdict'],
          rows,
        )
      : '',
    conformance
      ? ruleRows.length > 0
        ? table('conformance rules that changed', ['change', 'target', 'rule', 'baseline → current'], ruleRows)
        : '<p class="quiet">Conformance: no rule newly fails, passes or is blocked.</p>'
      : '',
    '<div class="charts">',
    ...charts.map((chart) => figure(t, chart, chart.title)),
    '</div>',
    '</section>',
  ];
  return { html: html.filter((part) => part !== '').join('\n'), charts };
}
