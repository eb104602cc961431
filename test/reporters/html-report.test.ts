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
import { createHtmlReporter, renderHtmlReport } from '../../src/reporters/html-report.ts';
import { conformanceOnly, type HarnessRun } from '../../src/results/harness-run.ts';
import { createRedactor } from '../../src/shared/redact.ts';
import { launchChromium, openReport } from '../support/chromium.ts';
import { sampleHarnessRun, sampleLoadRun, sampleSecret } from './sample-load-run.ts';
import { sampleCatalog, sampleRun, wrongTokenResults } from './sample-run.ts';

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
    expect(page.rendered).toBe(page.expected);
    expect(page.rendered).toBeGreaterThanOrEqual(5);
    expect(page.canvases).toHaveLength(page.expected);
    for (const canvas of page.canvases) {
      expect(canvas.width, canvas.id).toBeGreaterThan(0);
      expect(canvas.height, canvas.id).toBeGreaterThan(0);
    }
    const ids = page.canvases.map((canvas) => canvas.id);
    for (const kind of ['latency', 'timeline', 'batch', 'delivery']) {
      expect(
        ids.some((id) => id.startsWith(`${kind}-`)),
        kind,
      ).toBe(true);
    }
    expect(ids).toContain('verdicts');
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
});
