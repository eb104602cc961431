/**
 * The plain HTML of index.html: escaping, number formats, tables and chart containers. Every string
 * that comes from the run goes through `Text` (redact, then escape): redacting before escaping also
 * catches a secret holding `&` or `<`, which escaping would otherwise hide from the redactor.
 */
import { gateOf } from '../../results/conformance-run.ts';
import type { HarnessRun } from '../../results/harness-run.ts';
import { rootCauseLines } from '../../results/root-cause.ts';
import { failedCases, failedThresholds } from '../failures.ts';
import type { ChartSpec } from './chart-data.ts';

/** A part of the page: its HTML and the charts its containers expect. */
export interface Section {
  readonly html: string;
  readonly charts: readonly ChartSpec[];
}

/** Run-derived text to HTML: redacted, then escaped. */
export type Text = (value: string) => string;

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export function textOf(redact: (text: string) => string): Text {
  return (value) => escapeHtml(redact(value));
}

/** Counts with thousands separators; rates and fractions to three significant digits. */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (Number.isInteger(value) || Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return String(Number(value.toPrecision(3)));
}

export function formatMs(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** A table cell already in HTML (escaped or produced here). */
export interface Html {
  readonly html: string;
  readonly className?: string;
}

export type Cell = Html | number | null;

const cellHtml = (cell: Cell) => (cell !== null && typeof cell === 'object' ? cell.html : formatNumber(cell));
const cellClass = (cell: Cell) => {
  if (cell !== null && typeof cell === 'object') return cell.className ? ` class="${cell.className}"` : '';
  return ' class="num"';
};

/** A table with a caption; plain headers (static words, never run data). */
export function table(caption: string, head: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const header = head.map((name) => `<th>${escapeHtml(name)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${row.map((cell) => `<td${cellClass(cell)}>${cellHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table><caption>${escapeHtml(caption)}</caption><thead><tr>${header}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A pass/fail cell, marked by class and by word (not only by colour). */
export function verdictCell(ok: boolean): Html {
  return ok ? { html: '✓ pass', className: 'ok' } : { html: '✗ fail', className: 'bad' };
}

/**
 * A chart's container: `data-chart` is what the inline script draws into and what a test counts. A
 * chart without data gets no container, only its title and "no data".
 */
export function figure(t: Text, spec: ChartSpec | undefined, title: string): string {
  if (!spec)
    return `<figure class="chart empty"><figcaption>${t(title)}</figcaption><p class="no-data">no data</p></figure>`;
  return `<figure class="chart" id="chart-${spec.id}" data-chart="${spec.id}"><figcaption>${t(spec.title)}</figcaption><div class="plot"></div></figure>`;
}

/** The run's header: gate (per part too, when both ran), timing, root causes, abort and problem lines. */
export function header(t: Text, run: HarnessRun, parts: readonly string[]): string {
  // One word for the gate in every reporter (gateOf): a regression was "error" here, "failed" on the console.
  const gate = gateOf(run.exitCode);
  const gateClass = run.exitCode === 0 ? 'ok' : 'bad';
  const partGates = [
    ...(run.conformance ? [['conformance', run.conformance.exitCode] as const] : []),
    ...(run.load ? [['load', run.load.exitCode] as const] : []),
  ];
  const lines = [
    '<header>',
    `<h1>svc-harness report <small>${escapeHtml(parts.join(' + '))}</small></h1>`,
    `<p class="gate ${gateClass}" id="gate">Gate: <strong>${escapeHtml(gate)}</strong> (exit code ${run.exitCode})</p>`,
    '<dl class="facts">',
    ...(partGates.length > 1
      ? partGates.map(([part, code]) => `<dt>${part}</dt><dd>${escapeHtml(gateOf(code))} (exit code ${code})</dd>`)
      : []),
    `<dt>started</dt><dd>${t(run.startedAt)}</dd>`,
    `<dt>finished</dt><dd>${t(run.finishedAt)}</dd>`,
    `<dt>duration</dt><dd>${(run.durationMs / 1000).toFixed(1)} s</dd>`,
    '</dl>',
  ];
  // The cause most failures share, first, as the console and summary.md state it.
  for (const line of run.conformance ? rootCauseLines(run.conformance) : []) {
    lines.push(`<p class="problem root-cause">${t(line)}</p>`);
  }
  lines.push(...failuresBlock(t, run));
  if (run.aborted !== undefined)
    lines.push(`<p class="problem" id="aborted">The run stopped early: ${t(run.aborted)}</p>`);
  if (run.problems.length > 0) {
    lines.push(
      '<div class="problems" id="problems"><h2>Problems</h2><ul>',
      ...run.problems.map((problem) => `<li>${t(problem)}</li>`),
      '</ul></div>',
    );
  }
  lines.push('</header>');
  return lines.join('\n');
}

/** The failed cases (each linked to its details, with its re-run command) and thresholds, at the top of the page. */
function failuresBlock(t: Text, run: HarnessRun): string[] {
  const cases = run.conformance ? failedCases(run.conformance) : [];
  const thresholds = failedThresholds(run.load);
  if (cases.length === 0 && thresholds.length === 0) return [];
  return [
    '<div class="problems failures" id="failed">',
    ...(cases.length > 0
      ? [
          `<h2>Cases failed (${cases.length})</h2><ul>`,
          ...cases.map(
            ({ result, rule, anchor, rerun }) =>
              `<li><a href="#${t(anchor)}"><code>${t(result.caseId)}</code></a> ${escapeHtml(result.verdict.kind)} on <code>${t(rule)}</code>${'reason' in result.verdict ? `: ${t(result.verdict.reason)}` : ''}<br><small>re-run: <code>${t(rerun)}</code></small></li>`,
          ),
          '</ul>',
        ]
      : []),
    ...(thresholds.length > 0
      ? [
          `<h2>Thresholds failed (${thresholds.length})</h2><ul>`,
          ...thresholds.map(
            (item) =>
              `<li><code>${t(item.scenario)}</code>: <code>${t(item.expression)}</code> (value ${item.value === null ? 'no data' : escapeHtml(String(item.value))})</li>`,
          ),
          '</ul>',
        ]
      : []),
    '</div>',
  ];
}
