/**
 * The page's region comparison: the verdict, the ranking, and per operation the regions side by side
 * (a bar for the median, its 95% interval drawn over it, p90 and p99 beside), fastest region first.
 */
import type { RegionsRun } from '../../results/regions-run.ts';
import { regionsVerdict } from '../regions-text.ts';
import { escapeHtml, type Section, type Text } from './markup.ts';

const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(value < 10 ? 2 : 1)} ms`);

export function regionsSection(t: Text, run: RegionsRun): Section {
  const order = new Map(run.ranking.map((region, index) => [region, index]));
  const operations = [...new Set(run.operations.map((item) => item.operation))].sort();
  const blocks = operations.map((operation) => {
    const rows = run.operations
      .filter((item) => item.operation === operation)
      .sort((a, b) => (order.get(a.region) ?? 99) - (order.get(b.region) ?? 99));
    const scale = Math.max(...rows.map((row) => row.p50.interval?.[1] ?? row.p50.value).filter(Number.isFinite), 0.001);
    const width = (value: number) => `${Math.min(100, Math.max(0, (100 * value) / scale)).toFixed(1)}%`;
    const body = rows
      .map((row) => {
        const [low, high] = row.p50.interval ?? [row.p50.value, row.p50.value];
        return [
          '<tr>',
          `<td>${t(row.region)}</td>`,
          `<td class="bar-cell"><div class="region-bar" style="width:${width(row.p50.value)}"></div>`,
          `<div class="region-interval" style="margin-left:${width(low)};width:calc(${width(high)} - ${width(low)})"></div></td>`,
          `<td class="num">${escapeHtml(ms(row.p50.value))}</td>`,
          `<td class="num">${escapeHtml(row.p50.interval ? `${ms(low)} – ${ms(high)}` : 'n/a')}</td>`,
          `<td class="num">${escapeHtml(ms(row.p90.value))}</td>`,
          `<td class="num">${escapeHtml(ms(row.p99.value))}</td>`,
          `<td class="num">${row.count}</td>`,
          `<td class="num${row.failed > 0 ? ' bad' : ''}">${row.failed}</td>`,
          '</tr>',
        ].join('');
      })
      .join('\n');
    return `<table class="regions"><caption>${t(operation)}</caption><thead><tr><th>region</th><th>p50 (bar) and its 95% interval</th><th>p50</th><th>95% interval</th><th>p90</th><th>p99</th><th>samples</th><th>failed</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
  });
  const html = [
    '<section class="part" id="regions">',
    `<h2>Regions <small>target ${t(run.target)}${run.embedded ? ' (embedded reference)' : ''}</small></h2>`,
    `<p class="quiet"><strong>${t(regionsVerdict(run).replace(/^regions: /, ''))}</strong></p>`,
    `<p class="quiet">Ranking, fastest first: ${run.scores.map((score) => `${t(score.region)} (${escapeHtml(ms(score.score))})`).join(' · ')}. ${t(run.method)}.</p>`,
    ...run.problems.map((problem) => `<p class="problem">${t(problem)}</p>`),
    '<style>.regions .bar-cell{width:40%;position:relative}.region-bar{height:.7em;background:#0072B2}.region-interval{height:.25em;background:#D55E00;margin-top:.1em}</style>',
    ...blocks,
    '</section>',
  ];
  return { html: html.join('\n'), charts: [] };
}
