/**
 * index.html, rendered for real: written through the reporter, opened from file:// in headless
 * Chromium with every network request refused, and checked to draw every chart it promises without a
 * console error. The pages and their screenshots stay in reports/test-html-report/ (ignored by git)
 * for a look by eye.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { verdictChart } from '../../src/reporters/html/chart-data.ts';
import { FaultTimeline } from '../../src/reporters/html/fault-bands.ts';
import { arrivalTimelineChart, streamLatencyChart } from '../../src/reporters/html/messaging-charts.ts';
import { createHtmlReporter, renderHtmlReport } from '../../src/reporters/html-report.ts';
import { conformanceOnly, type HarnessRun } from '../../src/results/harness-run.ts';
import { createRedactor } from '../../src/shared/redact.ts';
import { launchChromium, openReport } from '../support/chromium.ts';
import { fanoutEndpoints, sampleHarnessRun, sampleLoadRun, sampleSecret } from './sample-load-run.ts';
import { sampleCatalog, sampleExchange, sampleResults, sampleRun, wrongTokenResults } from './sample-run.ts';

const outputDir = resolve(import.meta.dirname, '../../reports/test-html-report');

async function writeReport(run: HarnessRun): Promise<string> {
  await rm(run.reportDir, { recursive: true, force: true });
  await mkdir(run.reportDir, { recursive: true });
  const reporter = createHtmlReporter();
  await reporter.onRunEnd?.(run, { catalog: sampleCatalog, redact: createRedactor([sampleSecret]) });
  return join(run.reportDir, 'index.html');
}

describe('the html reporter', () => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const open = (file: string) => {
    if (!browser) throw new Error('Chromium did not start (see beforeAll)');
    return openReport(browser, file);
  };

  test('writes a self-contained index.html that draws every chart, redacted', { timeout: 60_000 }, async () => {
    const file = await writeReport(sampleHarnessRun(join(outputDir, 'full')));
    const html = await readFile(file, 'utf8');
    expect(html).not.toContain(sampleSecret);
    expect(html).toContain('[redacted]');
    // No reference to anything outside the page.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(html.match(/<script type="application\/json" id="report-data">/g)).toHaveLength(1);

    const page = await open(file);
    expect(page.errors).toEqual([]);
    expect(page.blocked).toEqual([]);
    // Away from the plot the legend is a key of the series, not a row of "–"; on it, the values.
    expect(page.legend?.idle).not.toContain('–');
    expect(page.legend?.idle).toMatch(/\w/);
    expect(page.legend?.hovered).toMatch(/\d/);
    expect(page.rendered).toBe(page.expected);
    expect(page.rendered).toBeGreaterThanOrEqual(5);
    expect(page.canvases).toHaveLength(page.expected);
    for (const canvas of page.canvases) {
      expect(canvas.width, canvas.id).toBeGreaterThan(0);
      expect(canvas.height, canvas.id).toBeGreaterThan(0);
    }
    const ids = page.canvases.map((canvas) => canvas.id);
    for (const kind of ['latency', 'timeline', 'batch', 'delivery', 'arrivals', 'streams']) {
      expect(
        ids.some((id) => id.startsWith(`${kind}-`)),
        kind,
      ).toBe(true);
    }
    expect(ids).toContain('verdicts');
  });

  test('a messaging scenario draws its latency over time and by stream, beside its accounting table', {
    timeout: 60_000,
  }, async () => {
    const messagingOnly = sampleLoadRun.scenarios.filter((scenario) => scenario.accounting.messaging);
    const load = { ...sampleLoadRun, scenarios: messagingOnly };
    const file = await writeReport({
      startedAt: load.startedAt,
      finishedAt: load.finishedAt,
      durationMs: load.durationMs,
      exitCode: load.exitCode,
      problems: [],
      reportDir: join(outputDir, 'messaging'),
      load,
    });
    const page = await open(file);
    expect(page.errors).toEqual([]);
    // Per scenario: latency, timeline, arrivals over time, latency by stream.
    expect(page.rendered).toBe(4 * messagingOnly.length);
    expect(page.rendered).toBe(page.expected);
    const ids = page.canvases.map((canvas) => canvas.id);
    expect(ids.filter((id) => id.startsWith('arrivals-'))).toHaveLength(2);
    expect(ids.filter((id) => id.startsWith('streams-'))).toHaveLength(2);
    for (const canvas of page.canvases) expect(canvas.height, canvas.id).toBeGreaterThan(0);
    const html = await readFile(file, 'utf8');
    expect(html.match(/<caption>messaging accounting<\/caption>/g)).toHaveLength(2);
  });

  test('each fault heard as it struck is a band over throughput, errors and latency; charts of no time get none', {
    timeout: 60_000,
  }, async () => {
    const run = sampleHarnessRun(join(outputDir, 'soak-bands'));
    await rm(run.reportDir, { recursive: true, force: true });
    await mkdir(run.reportDir, { recursive: true });
    const reporter = createHtmlReporter();
    for (const scenario of run.load?.scenarios ?? [])
      reporter.onPhase?.({ scenario: scenario.name, engine: 'node', phase: 'load', edge: 'start', durationS: 5 });
    const kill = { id: 'f1-1', fault: 'kill every 10m', action: 'kill' } as const;
    reporter.onFault?.({ ...kill, edge: 'start', elapsedS: 1 });
    reporter.onFault?.({ ...kill, edge: 'end', elapsedS: 1.8 });
    // Still on when the run ended: its band reaches the end.
    reporter.onFault?.({
      id: 'f2-1',
      fault: 'partition sink 30s every 15m',
      action: 'partition',
      path: 'sink',
      edge: 'start',
      elapsedS: 2,
    });
    await reporter.onRunEnd?.(run, { catalog: sampleCatalog, redact: createRedactor([sampleSecret]) });
    const page = await open(join(run.reportDir, 'index.html'));
    expect(page.errors).toEqual([]);
    expect(page.rendered).toBe(page.expected);
    const ofTime = page.canvases.filter((chart) => /^(timeline|arrivals)-/.test(chart.id));
    expect(ofTime.length).toBeGreaterThanOrEqual(2);
    for (const chart of ofTime) expect(chart.bands, chart.id).toBe(2);
    for (const chart of page.canvases.filter((item) => !ofTime.includes(item))) expect(chart.bands, chart.id).toBe(0);
  });

  test('renders a run with only a conformance part', { timeout: 60_000 }, async () => {
    const file = await writeReport(conformanceOnly({ ...sampleRun, reportDir: join(outputDir, 'conformance') }));
    const page = await open(file);
    expect(page.errors).toEqual([]);
    expect(page.rendered).toBe(1);
    expect(page.expected).toBe(1);
    expect(await readFile(file, 'utf8')).not.toContain('id="load"');
  });

  test('renders a run with only a load part', { timeout: 60_000 }, async () => {
    const { startedAt, finishedAt, durationMs, exitCode, problems } = sampleLoadRun;
    const file = await writeReport({
      startedAt,
      finishedAt,
      durationMs,
      exitCode,
      problems,
      reportDir: join(outputDir, 'load'),
      load: sampleLoadRun,
    });
    const page = await open(file);
    expect(page.errors).toEqual([]);
    expect(page.rendered).toBe(page.expected);
    expect(page.rendered).toBeGreaterThanOrEqual(5);
    const html = await readFile(file, 'utf8');
    expect(html).not.toContain('id="conformance"');
    expect(html).not.toContain(sampleSecret);
  });
});

describe('FaultTimeline', () => {
  test('places each fault in the seconds of each scenario’s own load, cut to its series, one still on to its end', () => {
    let now = 1_000;
    const timeline = new FaultTimeline(() => now);
    const phase = (scenario: string) =>
      timeline.onPhase({ scenario, engine: 'node', phase: 'load', edge: 'start', durationS: 10 });
    phase('first');
    now = 11_000;
    phase('second');
    const kill = { fault: 'kill every 10s', action: 'kill' } as const;
    timeline.onFault({ ...kill, id: 'f1-1', edge: 'start', elapsedS: 2 });
    timeline.onFault({ ...kill, id: 'f1-1', edge: 'end', elapsedS: 3.5 });
    timeline.onFault({ ...kill, id: 'f1-2', edge: 'start', elapsedS: 12 });
    timeline.onFault({ ...kill, id: 'f1-2', edge: 'end', elapsedS: 13 });
    timeline.onFault({ fault: 'pause 5s every 1m', action: 'pause', id: 'f2-1', edge: 'start', elapsedS: 18 });
    expect(timeline.bandsFor('first', 10)).toEqual([{ from: 2, to: 3.5, label: 'f1-1 kill every 10s' }]);
    expect(timeline.bandsFor('second', 10)).toEqual([
      { from: 2, to: 3, label: 'f1-2 kill every 10s' },
      { from: 8, to: 10, label: 'f2-1 pause 5s every 1m' },
    ]);
    expect(timeline.bandsFor('never ran', 10)).toEqual([]);
  });
});

describe('renderHtmlReport', () => {
  test('keeps the data element closed whatever the run says', () => {
    const hostile = '</script><script>alert(1)</script><!--';
    const run = sampleHarnessRun('/tmp/unused');
    const html = renderHtmlReport(
      { ...run, load: { ...sampleLoadRun, scenarios: sampleLoadRun.scenarios.map((s) => ({ ...s, name: hostile })) } },
      sampleCatalog,
    );
    const data = html.split('<script type="application/json" id="report-data">')[1]?.split('</script>')[0] ?? '';
    expect(data).not.toContain('<');
    expect(JSON.parse(data).charts.length).toBeGreaterThanOrEqual(5);
    expect(html).not.toContain('<script>alert(1)');
  });

  test('says "no data" where a chart has nothing to draw', () => {
    const empty = { ...sampleLoadRun.scenarios[2]!, series: [], histogram: sampleLoadRun.scenarios[2]!.histogram };
    const html = renderHtmlReport(
      { ...sampleHarnessRun('/tmp/unused'), conformance: undefined, load: { ...sampleLoadRun, scenarios: [empty] } },
      sampleCatalog,
    );
    expect(html).toContain('no data');
    expect(html).not.toContain('data-chart="timeline-');
    expect(html).toContain('data-chart="latency-');
  });

  test('the messaging accounting table: a row per stream and per endpoint, exact or not', () => {
    const fanout = sampleLoadRun.scenarios.find((scenario) => scenario.name === 'publish-fanout')!;
    const accepted = fanout.accounting.messaging!.accepted;
    const expected = accepted * fanoutEndpoints;
    const html = renderHtmlReport(
      { ...sampleHarnessRun('/tmp/unused'), conformance: undefined, load: { ...sampleLoadRun, scenarios: [fanout] } },
      sampleCatalog,
    );
    const tableHtml = html.slice(html.indexOf('<caption>messaging accounting')).split('</table>')[0] ?? '';
    const rows = tableHtml.split('<tr>').slice(2);
    expect(rows).toHaveLength(1 + fanoutEndpoints);
    const cells = (row: string) => [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((match) => match[1]);
    const num = (value: number) => value.toLocaleString('en-US');
    expect(cells(rows[0]!).slice(1, 7)).toEqual([num(expected), num(expected - 3), '3', '2', '0', '0']);
    expect(cells(rows[0]!).at(-1)).toBe('✗ fail');
    expect(cells(rows[3]!).slice(0, 5)).toEqual([
      '&nbsp;&nbsp;endpoint:e2',
      num(accepted),
      num(accepted - 3),
      '3',
      '0',
    ]);
    expect(cells(rows[1]!).at(-1)).toBe('✓ pass');
    expect(html).toContain('strays (requests to no open inbox) 1');
  });

  test('messaging charts: p50 and p99 per stream each second, arrivals/s on the right axis', () => {
    const callbacks = sampleLoadRun.scenarios.find((scenario) => scenario.name === 'callback-throughput')!;
    const messaging = callbacks.accounting.messaging!;
    const timeline = arrivalTimelineChart(callbacks, 'k')!;
    expect(timeline.series.map((line) => line.label)).toEqual([
      'delivery p50 (ms)',
      'delivery p99 (ms)',
      'callbacks p50 (ms)',
      'callbacks p99 (ms)',
      'failure callbacks p50 (ms)',
      'failure callbacks p99 (ms)',
      'arrivals/s',
    ]);
    expect(timeline.x.values).toEqual(Array.from({ length: 10 }, (_, second) => second));
    const arrivals = messaging.series.reduce((sum, point) => sum + point.count, 0);
    expect(timeline.series.at(-1)?.values.reduce((sum: number, value) => sum + (value ?? 0), 0)).toBe(arrivals);
    const firstCallback = messaging.series.find((point) => point.stream === 'callback' && point.second === 0)!;
    expect(timeline.series[3]?.values[0]).toBe(firstCallback.p99);
    const streams = streamLatencyChart(callbacks, 'k')!;
    expect(streams.series.map((line) => line.label)).toEqual([
      'publish → delivery',
      'delivery → callback',
      'publish → failure callback',
      'send → last arrival (complete)',
    ]);
    // The failure callbacks are few: their curve stops where their count stops resolving.
    expect(streams.series[2]?.values.at(-1)).toBeNull();
    expect(streams.series[0]?.values.every((value) => value !== null)).toBe(true);
    expect(arrivalTimelineChart(sampleLoadRun.scenarios[0]!, 'k')).toBeUndefined();
  });

  test('lists every case that did not pass with its whole reason and notes, failures first, escaped and redacted', () => {
    const blocked = {
      ...sampleResults[1]!,
      caseId: 'kv.blocked',
      verdict: { kind: 'blocked', reason: 'a step it needs did not work', rule: 'B.a' },
    } as const;
    const leaking = {
      ...sampleResults[1]!,
      caseId: 'kv.leak',
      verdict: { kind: 'fail', reason: `Bearer ${sampleSecret} was refused\nsecond line`, rule: 'B.b' },
      notes: [`sink: POST dest → 500 with ${sampleSecret}`],
    } as const;
    const cases = [blocked, ...sampleResults, leaking];
    const run = { ...sampleRun, targets: [{ ...sampleRun.targets[0]!, cases }], results: cases };
    const html = renderHtmlReport(conformanceOnly(run), sampleCatalog, createRedactor([sampleSecret]));
    const part = html.split('<div class="failures">')[1]?.split('</section>')[0] ?? '';
    expect(part).toContain('Cases that did not pass');
    const shown = [...part.matchAll(/<details class="case (\w+)" id="[^"]+">.*?<code>([^<]+)<\/code>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    // fail, stale, error, blocked in that order; pass, skip, expected failures and observations are not listed.
    expect(shown).toEqual([
      ['fail', 'kv.fail'],
      ['fail', 'kv.leak'],
      ['stale', 'kv.stale'],
      ['error', 'kv.error'],
      ['blocked', 'kv.blocked'],
    ]);
    expect(part).toContain('<pre class="reason">received &lt;400&gt; &amp; &quot;x&quot; / expected 200 | y</pre>');
    expect(part).toContain('<small>[B.b]</small>');
    expect(part).toContain(
      `<pre class="curl">curl -sS -i -X GET -H &#39;authorization: Bearer &#39;&quot;$SVC_KV_TOKEN&quot; http://127.0.0.1:1/get/k</pre>`,
    );
    expect(part).toContain(
      `<pre class="answer">400 application/json, 9 bytes: {&quot;e&quot;:&quot;&lt;x&gt;&quot;}</pre>`,
    );
    expect(sampleExchange.curl).toContain('$SVC_KV_TOKEN');
    expect(part).toContain('[redacted] was refused\nsecond line</pre>');
    expect(part).toContain('<li>sink: POST dest → 500 with [redacted]</li>');
    expect(html).not.toContain(sampleSecret);
    const passing = { ...sampleRun, targets: [{ ...sampleRun.targets[0]!, cases: [sampleResults[0]!] }] };
    expect(renderHtmlReport(conformanceOnly(passing), sampleCatalog)).not.toContain('class="failures"');
  });

  test('the verdict chart has a bar per rule topic, each adding up its rules', () => {
    const totals = (pass: number, fail: number, skip: number) => ({
      pass,
      fail,
      stale: 0,
      error: 0,
      blocked: 0,
      'expected-failure': 0,
      observation: 0,
      skip,
      total: pass + fail + skip,
    });
    const rule = (id: string) => ({ id, area: 'kv', level: 'MUST', section: 'Errors', text: '.' }) as const;
    const chart = verdictChart([
      { rule: rule('B.auth.missing-401'), totals: totals(3, 1, 0) },
      { rule: rule('B.path.percent-decoding'), totals: totals(2, 0, 1) },
      { rule: rule('B.auth.invalid-401'), totals: totals(4, 2, 0) },
      { rule: rule('B.multi-exec.discard.unsupported-command'), totals: totals(1, 0, 0) },
    ])!;
    expect(chart.x.names).toEqual(['B.auth', 'B.path', 'B.multi-exec']);
    const series = (label: string) => chart.series.find((line) => line.label === label)!;
    expect(series('pass').own).toEqual([7, 2, 1]);
    expect(series('fail or stale').own).toEqual([3, 0, 0]);
    expect(series('other').own).toEqual([0, 1, 0]);
    // Stacked: the top series carries each bar's whole height.
    expect(chart.series[0]!.values).toEqual([10, 3, 1]);
  });

  test('states the root cause most failures share in the header, escaped', () => {
    const cases = wrongTokenResults(9, 1);
    const run = { ...sampleRun, targets: [{ ...sampleRun.targets[0]!, cases }], results: cases };
    const html = renderHtmlReport(conformanceOnly(run), sampleCatalog);
    const header = html.split('</header>')[0] ?? '';
    expect(header).toContain(
      '<p class="problem root-cause">root cause: ref: 9 of 10 cases that failed, blocked or ended in error saw status 401: check the token',
    );
    expect(renderHtmlReport(conformanceOnly(sampleRun), sampleCatalog)).not.toContain('root-cause');
  });

  test('the header lists the cases that failed the gate, each linked to its details, with the re-run command', () => {
    const html = renderHtmlReport(conformanceOnly(sampleRun), sampleCatalog);
    const header = html.split('</header>')[0] ?? '';
    expect(header).toContain('<h2>Cases failed (3)</h2>');
    expect(header).toContain('<a href="#case-ref--kv.fail"><code>kv.fail</code></a> fail on <code>B.b</code>');
    expect(header).toContain('re-run: <code>npx svc-harness conformance --area kv --rules &#39;B.b&#39;</code>');
    expect(html).toContain('id="case-ref--kv.fail"');
    expect(header).not.toContain('kv.observe');
  });
});
