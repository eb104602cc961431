/**
 * index.html: the run as one self-contained page that opens with no network (a CI artifact, a mail
 * attachment). Tables are plain HTML; charts are drawn by uPlot, inlined. uPlot because it is ~50 KB
 * with no dependencies, draws canvas time series fast at thousands of points, and has bars
 * (`uPlot.paths.bars`) for the verdict chart, where the usual alternatives weigh several times that.
 * The chart data is computed here (src/reporters/html/chart-data.ts) and travels as one JSON element.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { HarnessRun } from '../results/harness-run.ts';
import type { Reporter } from '../results/reporter.ts';
import type { RuleCatalog } from '../results/rule.ts';
import { redactingReplacer } from '../shared/redact.ts';
import { writeReportFile } from '../shared/report-files.ts';
import type { ChartSpec } from './html/chart-data.ts';
import { compareSection } from './html/compare-section.ts';
import { conformanceSection } from './html/conformance-section.ts';
import { FaultTimeline } from './html/fault-bands.ts';
import { type BandsOf, loadSection } from './html/load-section.ts';
import { escapeHtml, header, textOf } from './html/markup.ts';
import { pageScript, pageStyle } from './html/page-script.ts';
import { regionsSection } from './html/regions-section.ts';

const require = createRequire(import.meta.url);

/** uPlot's script and stylesheet, read when a report is rendered (a CLI run that writes no HTML never reads them). */
function uplotAssets(): { readonly script: string; readonly style: string } {
  const read = (path: string) => readFileSync(require.resolve(path), 'utf8');
  return { script: read('uplot/dist/uPlot.iife.min.js'), style: read('uplot/dist/uPlot.min.css') };
}

/** Code inlined in a `<script>`: nothing in it may close the element early. */
function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/**
 * JSON inside `<script type="application/json">`: `<` as `\u003c`, so no `</script>` or `<!--` in
 * a string can end the element; the run's strings are redacted on the way.
 */
export function scriptJson(value: unknown, redact: (text: string) => string): string {
  const text = JSON.stringify(value, redactingReplacer(redact));
  return text
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The page. `redact` is applied to every string that comes from the run, before it is escaped; the
 * inlined code (uPlot, the page script, the stylesheets) is ours and holds no run data, and is left
 * as is, because redacting code would corrupt it when a secret is as short as an identifier.
 */
export function renderHtmlReport(
  run: HarnessRun,
  catalog: RuleCatalog,
  redact: (text: string) => string = (text) => text,
  bandsOf?: BandsOf,
): string {
  const t = textOf(redact);
  const parts = [run.conformance ? 'conformance' : '', run.load ? 'load' : '', run.regions ? 'regions' : ''].filter(
    (part) => part !== '',
  );
  const sections = [
    ...(run.regions ? [regionsSection(t, run.regions)] : []),
    ...(run.compare ? [compareSection(t, redact, run.compare, run.load)] : []),
    ...(run.load ? [loadSection(t, redact, run.load, bandsOf)] : []),
    ...(run.conformance ? [conformanceSection(t, run.conformance, catalog)] : []),
  ];
  const charts: ChartSpec[] = sections.flatMap((section) => section.charts);
  const uplot = uplotAssets();
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // No network: a policy that forbids every fetch, so a stray URL fails loudly in the browser too.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>svc-harness report ${escapeHtml(parts.join(' + '))} ${t(run.startedAt)}</title>`,
    `<style>${uplot.style}</style>`,
    `<style>${pageStyle}</style>`,
    '</head>',
    '<body>',
    header(t, run, parts),
    '<main>',
    ...(sections.length === 0 ? ['<p class="no-data">The run has no conformance or load part: no data.</p>'] : []),
    ...sections.map((section) => section.html),
    '</main>',
    `<script type="application/json" id="report-data">${scriptJson({ charts }, redact)}</script>`,
    `<script>${inlineScript(uplot.script)}</script>`,
    `<script>${inlineScript(pageScript)}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The `html` reporter: index.html in the run's report folder. */
export function createHtmlReporter(): Reporter {
  const file = 'index.html';
  // A soak's faults as they struck, drawn as bands over the charts of time.
  const faults = new FaultTimeline();
  return {
    name: 'html',
    file,
    onPhase: (change) => faults.onPhase(change),
    onFault: (change) => faults.onFault(change),
    onRunEnd: (run, { catalog, redact }) =>
      writeReportFile(
        join(run.reportDir, file),
        renderHtmlReport(run, catalog, redact, (scenario, lastS) => faults.bandsFor(scenario, lastS)),
      ),
  };
}
