/**
 * The soak's part of the reports (issue 39 item 5): a table per fault (errors while it lasted, heal to
 * first success, heal to the backlog drained), the lost messages by id with the faults around each,
 * the indeterminate ones never seen, the soak's thresholds, and the trends of memory and CPU (a row per
 * process sampled); as console lines, as a Markdown
 * section and as an HTML section. The load's reporters wrote summary.md and index.html before the
 * faults were all healed, so the soak adds its section to each of them afterwards (when the run wrote
 * them), rather than teaching every reporter a soak: the files stay the load's, with the soak's part
 * at the end.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FaultRecovery } from '../../results/soak-check.ts';
import type { TrendSeries } from '../../results/soak-trends.ts';
import type { SoakFindings } from './soak-findings.ts';

/** How many lost or indeterminate messages the console and summary.md name; soak.json lists more. */
const shownLimit = 20;

const secondsText = (value: number | null) => (value === null ? 'never' : `${value} s`);
const iso = (ms: number) => new Date(ms).toISOString();

function recoveryText(fault: FaultRecovery): string {
  if (fault.cut) return `${fault.errors} errors, cut short by the end`;
  return `${fault.errors} errors, first success ${secondsText(fault.firstSuccessS)} after the heal, drained ${
    fault.drainedS === null ? 'never (a key of its backlog is lost)' : `after ${fault.drainedS} s`
  }`;
}

const signed = (value: number, digits: number) => `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(digits)}`;

/** A trend's parts, as text: memory first → last, the slope and its interval, the mean CPU. */
function trendCells(series: TrendSeries) {
  const first = series.points[0];
  const last = series.points[series.points.length - 1];
  const { slope } = series;
  return {
    rss:
      first === undefined || last === undefined
        ? 'no sample'
        : `${first.rssMb.toFixed(1)} MB → ${last.rssMb.toFixed(1)} MB`,
    slope: slope === null ? 'no slope (too few samples)' : `${signed(slope.slope, 1)} MB/h`,
    interval: slope === null ? '' : `${signed(slope.lower, 1)} … ${signed(slope.upper, 1)}`,
    cpu: series.cpuMeanCores === null ? 'no data' : `${series.cpuMeanCores.toFixed(2)} cores`,
    samples: `${series.points.length} ${series.points.length === 1 ? 'sample' : 'samples'}, ${series.lifetimes} ${series.lifetimes === 1 ? 'lifetime' : 'lifetimes'}`,
  };
}

/**
 * The console's line per process sampled:
 * `soak: trend implementation rss 84.1 MB → 86.0 MB, slope +1.2 MB/h (95% CI −0.8 … +3.1), cpu 0.31 cores (…)`.
 */
export function trendLines(series: readonly TrendSeries[]): string[] {
  return series.map((item) => {
    const cells = trendCells(item);
    return `soak: trend ${item.process} rss ${cells.rss}, slope ${cells.slope}${cells.interval === '' ? '' : ` (95% CI ${cells.interval})`}, cpu ${cells.cpu} (${cells.samples})`;
  });
}

const trendHead = ['process', 'rss first → last', 'slope', '95% interval', 'mean cpu', 'samples'];
const trendRow = (series: TrendSeries) => {
  const cells = trendCells(series);
  return [series.process, cells.rss, cells.slope, cells.interval, cells.cpu, cells.samples];
};

/** The console's lines: per scenario the counts, each fault's recovery, the first lost ids, the thresholds. */
export function findingLines(findings: SoakFindings): string[] {
  const lines: string[] = [];
  const notFinal = findings.interrupted ? ' (interrupted: the wait was cut short, not final)' : '';
  for (const { scenario, check } of findings.scenarios) {
    lines.push(
      `soak: ${scenario}: ${check.acknowledged} acknowledged, ${check.lost.length} lost${notFinal}, ${check.indeterminate.total} indeterminate (${check.indeterminate.delivered} delivered), ${check.refused} refused, ${check.duplicates} duplicates`,
    );
    for (const fault of check.faults) lines.push(`  ${fault.id} ${fault.text}: ${recoveryText(fault)}`);
    for (const item of check.lost.slice(0, shownLimit)) {
      lines.push(
        `  lost ${item.key} (iteration ${item.index}${item.ids ? `, ${item.ids.join(' ')}` : ''}) sent ${iso(item.sentAt)}${item.faults.length > 0 ? ` near ${item.faults.join(', ')}` : ''}`,
      );
    }
    if (check.lost.length > shownLimit) lines.push(`  … ${check.lost.length - shownLimit} more lost, in soak.json`);
  }
  for (const { scenario, recoveries } of findings.updates) {
    for (const item of recoveries) {
      lines.push(
        `soak: ${scenario} after ${item.faultId}: ${item.lost === null ? `not read (${item.error})` : `${item.lost} lost updates`} (${item.counters.map((c) => `${c.name}=${c.value}≥${c.committed}`).join(', ')})`,
      );
    }
  }
  for (const item of findings.thresholds) {
    lines.push(`soak threshold ${item.expression}: ${item.ok ? 'ok' : 'FAILED'} (${item.value ?? 'no data'})`);
  }
  return lines;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function findingsMarkdown(findings: SoakFindings, trends: readonly TrendSeries[] = []): string {
  const out = ['', '## Soak under faults', ''];
  for (const item of findings.thresholds) {
    out.push(`- ${item.ok ? 'ok' : '**FAILED**'} \`${item.expression}\` (${item.value ?? 'no data'})`);
  }
  if (trends.length > 0) {
    out.push(
      '',
      '### Trends: memory and CPU',
      '',
      `| ${trendHead.join(' | ')} |`,
      `| ${trendHead.map(() => '---').join(' | ')} |`,
      ...trends.map((series) => `| ${trendRow(series).map(cell).join(' | ')} |`),
    );
  }
  for (const { scenario, check, droppedFates } of findings.scenarios) {
    out.push(
      '',
      `### ${scenario}`,
      '',
      `${check.acknowledged} acknowledged, ${check.lost.length} lost, ${check.indeterminate.total} indeterminate (${check.indeterminate.delivered} delivered, ${check.indeterminate.undelivered} never seen), ${check.refused} refused, ${check.duplicates} duplicates, ${check.unexpected} unexpected${droppedFates > 0 ? `; ${droppedFates} fates not kept` : ''}.`,
      '',
      '| fault | errors | first success after heal | backlog drained after heal |',
      '| --- | --- | --- | --- |',
      ...check.faults.map(
        (fault) =>
          `| ${cell(`${fault.id} ${fault.text}`)} | ${fault.errors} | ${fault.cut ? 'cut by the end' : secondsText(fault.firstSuccessS)} | ${fault.cut ? 'cut by the end' : secondsText(fault.drainedS)} |`,
      ),
    );
    if (check.lost.length > 0) {
      out.push('', '| lost | iteration | message ids | sent | near |', '| --- | --- | --- | --- | --- |');
      for (const item of check.lost.slice(0, shownLimit)) {
        out.push(
          `| ${cell(item.key)} | ${item.index} | ${cell(item.ids?.join(' ') ?? '')} | ${iso(item.sentAt)} | ${item.faults.join(', ')} |`,
        );
      }
      if (check.lost.length > shownLimit) out.push('', `${check.lost.length - shownLimit} more in soak.json.`);
    }
    if (check.undelivered.length > 0) {
      out.push('', '| indeterminate, never seen | sent | near |', '| --- | --- | --- |');
      for (const item of check.undelivered.slice(0, shownLimit)) {
        out.push(`| ${item.index} | ${iso(item.sentAt)} | ${item.faults.join(', ')} |`);
      }
    }
  }
  for (const { scenario, recoveries } of findings.updates) {
    out.push(
      '',
      `### ${scenario}: counters after each recovery`,
      '',
      '| after | lost updates | counters (value / committed before the read) |',
      '| --- | --- | --- |',
      ...recoveries.map(
        (item) =>
          `| ${item.faultId} | ${item.lost === null ? `not read: ${cell(item.error ?? '')}` : item.lost} | ${item.counters.map((c) => `${c.name}: ${c.value} / ${c.committed}`).join(', ')} |`,
      ),
    );
  }
  return `${out.join('\n')}\n`;
}

const escapeText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[], tag: string) =>
    `<tr>${cells.map((item) => `<${tag}>${escapeText(item)}</${tag}>`).join('')}</tr>`;
  return `<table><thead>${line(head, 'th')}</thead><tbody>${rows.map((row) => line(row, 'td')).join('')}</tbody></table>`;
}

export function findingsHtml(findings: SoakFindings, trends: readonly TrendSeries[] = []): string {
  const parts = ['<section id="soak"><h2>Soak under faults</h2>'];
  parts.push(
    `<ul>${findings.thresholds.map((item) => `<li>${item.ok ? 'ok' : '<strong>FAILED</strong>'} <code>${escapeText(item.expression)}</code> (${escapeText(String(item.value ?? 'no data'))})</li>`).join('')}</ul>`,
  );
  if (trends.length > 0) parts.push('<h3>Trends: memory and CPU</h3>', table(trendHead, trends.map(trendRow)));
  for (const { scenario, check } of findings.scenarios) {
    parts.push(
      `<h3>${escapeText(scenario)}</h3>`,
      `<p>${check.acknowledged} acknowledged, ${check.lost.length} lost, ${check.indeterminate.total} indeterminate (${check.indeterminate.delivered} delivered), ${check.refused} refused, ${check.duplicates} duplicates</p>`,
      table(
        ['fault', 'errors', 'first success after heal', 'backlog drained after heal'],
        check.faults.map((fault) => [
          `${fault.id} ${fault.text}`,
          String(fault.errors),
          fault.cut ? 'cut by the end' : secondsText(fault.firstSuccessS),
          fault.cut ? 'cut by the end' : secondsText(fault.drainedS),
        ]),
      ),
    );
    if (check.lost.length > 0) {
      parts.push(
        table(
          ['lost', 'iteration', 'message ids', 'sent', 'near'],
          check.lost
            .slice(0, shownLimit)
            .map((item) => [
              item.key,
              String(item.index),
              item.ids?.join(' ') ?? '',
              iso(item.sentAt),
              item.faults.join(', '),
            ]),
        ),
      );
    }
    if (check.undelivered.length > 0) {
      parts.push(
        table(
          ['indeterminate, never seen', 'sent', 'near'],
          check.undelivered
            .slice(0, shownLimit)
            .map((item) => [String(item.index), iso(item.sentAt), item.faults.join(', ')]),
        ),
      );
    }
  }
  for (const { scenario, recoveries } of findings.updates) {
    parts.push(
      `<h3>${escapeText(scenario)}: counters after each recovery</h3>`,
      table(
        ['after', 'lost updates', 'counters (value / committed before the read)'],
        recoveries.map((item) => [
          item.faultId,
          item.lost === null ? `not read: ${item.error}` : String(item.lost),
          item.counters.map((c) => `${c.name}: ${c.value} / ${c.committed}`).join(', '),
        ]),
      ),
    );
  }
  parts.push('</section>');
  return parts.join('\n');
}

/** Adds the soak's section to the run's summary.md and index.html, each only when the run wrote it. */
export async function addToReports(
  reportDir: string,
  findings: SoakFindings,
  trends: readonly TrendSeries[] = [],
): Promise<void> {
  const summary = join(reportDir, 'summary.md');
  const markdown = await readFile(summary, 'utf8').catch(() => undefined);
  if (markdown !== undefined) await writeFile(summary, `${markdown.trimEnd()}\n${findingsMarkdown(findings, trends)}`);
  const index = join(reportDir, 'index.html');
  const html = await readFile(index, 'utf8').catch(() => undefined);
  const at = html?.lastIndexOf('</main>') ?? -1;
  if (html !== undefined && at !== -1) {
    await writeFile(index, `${html.slice(0, at)}${findingsHtml(findings, trends)}\n${html.slice(at)}`);
  }
}
