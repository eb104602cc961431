/**
 * The main job end to end, as a user runs it: `svc-harness run` against the reference, named in a target
 * file, writes one report (conformance and all seven load scenarios, the three messaging ones with every
 * delivery, callback and waiter accounted at the sink) whose four files hold together, and
 * whose index.html draws every chart in headless Chromium, run against a target file whose credentials
 * are known: none of them appears in anything written or printed.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { type RunningReference, startReference } from '../../src/reference/reference-service.ts';
import { targetSecrets } from '../../src/target/target.ts';
import { launchChromium, openReport } from '../support/chromium.ts';
import { expectLoadCompleted, expectOneLine, isLatencyThreshold } from '../support/cli-expect.ts';
import { runCli } from '../support/run-cli.ts';
import { expectNoSecrets } from '../support/secret-scan.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

interface LoadScenarioEntry {
  readonly name: string;
  readonly requests: { sent: number; completed: number; failed: number; dropped: number };
  readonly thresholds: readonly { expression: string; ok: boolean }[];
  readonly settings: { readonly warmupS: number | null };
  readonly lostUpdates: number | null;
  readonly delivery: { expected: number; received: number; lost: number } | null;
  readonly messaging: {
    readonly accepted: number;
    readonly signatures: { readonly verified: number; readonly failed: number };
    readonly delivery: StreamEntry | null;
    readonly callbacks: StreamEntry | null;
    readonly waiters: StreamEntry | null;
  } | null;
}

interface StreamEntry {
  readonly expected: number;
  readonly received: number;
  readonly lost: number;
  readonly unexpected: number;
}

interface RunReport {
  readonly exitCode: number;
  readonly totals: { readonly total: number; readonly fail: number };
  readonly load: { readonly scenarios: readonly LoadScenarioEntry[] };
}

describe('svc-harness run', () => {
  let dir: string;
  let reference: RunningReference;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-run-'));
    // Retries after 10 ms, as the embedded reference does: with the real backoff (about 12 s before the
    // first retry) every retrying messaging case would wait out its sink wait.
    reference = await startReference({ messaging: { retryBackoff: { kind: 'base', ms: 10 } } });
  });
  afterAll(async () => {
    await reference?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a --param no scenario declares, or out of its bounds, is one line before conformance starts', async () => {
    for (const [param, line] of [
      [
        'endpoint=4',
        /^svc-harness: run: --param endpoint=4: no scenario of this run declares endpoint \(.*publish-fanout takes endpoints.*\) \[SVC_USAGE\]$/,
      ],
      [
        'waiters=0',
        /^svc-harness: run: --param waiters=0: notify-fanout's waiters is a whole number from 1 to 10000 \[SVC_USAGE\]$/,
      ],
    ] as const) {
      const reportDir = join(dir, `bad-param-${param}`);
      const run = await runCli(['run', '--param', param, '--report-dir', reportDir], { timeoutMs: 30_000 });
      expectOneLine(run, line);
      // Nothing started: no report folder.
      expect(existsSync(reportDir)).toBe(false);
    }
  });

  test('a bad --timeout or --concurrency is one line before anything starts', async () => {
    for (const [flags, line] of [
      [['--timeout', '0s'], /--timeout "0s" is not a duration above zero \[SVC_USAGE\]$/],
      [['--concurrency', '0'], /^svc-harness: run: --concurrency must be at least 1, got "0" \[SVC_USAGE\]$/],
    ] as const) {
      const reportDir = join(dir, `bad-${flags[0].slice(2)}`);
      const run = await runCli(['run', ...flags, '--report-dir', reportDir], { timeoutMs: 30_000 });
      expectOneLine(run, line);
      expect(existsSync(reportDir)).toBe(false);
    }
  });

  // One main job serves both: the whole report, and a target file whose credentials are known, so a scan
  // can look for them in everything written and printed (two full runs took 110 s of the suite's time).
  // The embedded reference's own main job is .ci/run's first step and test/package/install.test.ts's and install-target.test.ts's.
  test('against a target file: conformance and the seven scenarios pass, into one report, and no credential of the target appears in any file written or in the console', async () => {
    const reportDir = join(dir, 'main-job');
    const target = join(dir, 'target.json');
    await writeFile(target, JSON.stringify(reference.target));
    // --timeout and --concurrency reach both halves (their effects are the conformance and load tests');
    // --warmup reaches the load half (it was read and then dropped).
    const flags = ['--duration', '2s', '--timeout', '8s', '--concurrency', '4', '--warmup', '300ms'];
    // A live output beside the reports (outside the folder, whose files are counted below).
    const live = join(dir, 'main-job.ndjson');
    const run = await runCli(
      ['run', '--target', target, ...flags, '--out', `json=${live}`, '--report-dir', reportDir],
      {
        reportDir,
        timeoutMs: 170_000,
      },
    );
    await expectNoSecrets(reference.target, reportDir, run);
    expect((await readdir(reportDir)).sort()).toEqual(['index.html', 'junit.xml', 'report.json', 'summary.md']);
    expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
    const report = run.report as RunReport;
    // Conformance passes (else exit 1); of the load's thresholds only a latency one may fail beside other tests.
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr.slice(-2000));
    expect(report.totals.total).toBeGreaterThan(100);
    expect(report.totals.fail).toBe(0);
    expect(report.load.scenarios.map((scenario) => scenario.name)).toEqual([
      'command',
      'pipeline',
      'transaction',
      'kv-fanout',
      'publish-fanout',
      'callback-throughput',
      'notify-fanout',
    ]);
    for (const scenario of report.load.scenarios) {
      expect(scenario.requests.sent, scenario.name).toBeGreaterThan(0);
      expect(scenario.requests.sent, scenario.name).toBe(scenario.requests.completed + scenario.requests.failed);
      expect(scenario.thresholds.length, scenario.name).toBeGreaterThan(0);
      expect(
        scenario.thresholds.filter((threshold) => !threshold.ok && !isLatencyThreshold(threshold)),
        scenario.name,
      ).toEqual([]);
    }
    // The live output: a case event per case, as each ended, then every scenario's points adding up to
    // its counts; no credential of the target in it either.
    const text = await readFile(live, 'utf8');
    for (const secret of targetSecrets(reference.target)) expect(text.includes(secret)).toBe(false);
    const lines = text
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            event?: string;
            metric?: string;
            value?: number;
            labels: { scenario?: string };
          },
      );
    expect(lines[0]?.event).toBe('run_start');
    expect(lines.filter((line) => line.event === 'case')).toHaveLength(report.totals.total);
    expect(lines.findIndex((line) => line.event === 'case')).toBeLessThan(
      lines.findIndex((line) => line.event === 'scenario_start'),
    );
    for (const scenario of report.load.scenarios) {
      const reqs = lines.filter((line) => line.metric === 'http_reqs' && line.labels.scenario === scenario.name);
      expect(
        reqs.reduce((total, line) => total + (line.value ?? 0), 0),
        scenario.name,
      ).toBe(scenario.requests.completed + scenario.requests.failed);
    }
    expect(lines.at(-1)).toMatchObject({ event: 'run_end', exit_code: run.exitCode });

    const byName = new Map(report.load.scenarios.map((scenario) => [scenario.name, scenario]));
    expect(byName.get('command')?.settings.warmupS).toBe(0.3);
    expect(byName.get('transaction')?.lostUpdates).toBe(0);
    const delivery = byName.get('kv-fanout')?.delivery;
    expect(delivery?.expected).toBeGreaterThan(0);
    expect(delivery?.received).toBe(delivery?.expected);
    // Every message of the messaging scenarios reached the sink once, signed.
    for (const [name, stream] of [
      ['publish-fanout', 'delivery'],
      ['callback-throughput', 'delivery'],
      ['callback-throughput', 'callbacks'],
      ['notify-fanout', 'waiters'],
    ] as const) {
      const messaging = byName.get(name)?.messaging;
      expect(messaging?.accepted, name).toBeGreaterThan(0);
      expect(messaging?.signatures.failed, name).toBe(0);
      expect(messaging?.signatures.verified, name).toBeGreaterThan(0);
      const counts = messaging?.[stream];
      expect(counts?.expected, `${name} ${stream}`).toBeGreaterThan(0);
      expect(counts, `${name} ${stream}`).toMatchObject({ received: counts?.expected, lost: 0, unexpected: 0 });
    }

    const summary = await readFile(join(reportDir, 'summary.md'), 'utf8');
    expect(summary).toContain('# Run summary');
    expect(summary).toContain('## Conformance');
    expect(summary).toContain('## Load');
    expect(summary).toContain('Batch-size curve of `pipeline`');
    const junit = await readFile(join(reportDir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="load.transaction"');
    expect(junit).toContain('name="lost_updates: count == 0"');
    // A latency bound a shared machine pushed past (expectLoadCompleted allowed it) fails the gate, and says so.
    expect(run.stdout).toContain(run.exitCode === 0 ? 'gate: passed (exit code 0)' : 'gate: failed (exit code 99)');

    const browser = await launchChromium();
    try {
      const page = await openReport(browser, join(reportDir, 'index.html'));
      expect(page.errors).toEqual([]);
      expect(page.blocked).toEqual([]);
      expect(page.rendered).toBe(page.expected);
      // Latency and timeline per scenario, the batch curve, the fan-out, the verdicts.
      expect(page.rendered).toBeGreaterThanOrEqual(11);
      for (const canvas of page.canvases) expect(canvas.width * canvas.height, canvas.id).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
