/**
 * `--out prometheus-rw=URL` end to end (issue 38), against a real Prometheus (Debian's, its
 * remote-write receiver on: test/support/prometheus.ts): a load run against the embedded reference,
 * with enough arrivals on two connections that some are dropped; while it runs Prometheus' HTTP API
 * already answers for its series; after it, every count in Prometheus (requests, failures and drops,
 * in all and per tag set; each check's passes and fails) equals report.json's exactly, and each
 * second's latency gauges are the report's series points of those seconds (the same per-second
 * histograms, 2 significant digits: agreement within a microsecond, the float of ms → s). Then every
 * panel's query of the Grafana dashboard in examples/, its variables set to the run, returns data.
 * A refusing and a hanging endpoint cost the run nothing but one line each.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findFreePort } from '../../src/shared/free-port.ts';
import { expectLoadCompleted, expectOneLine } from '../support/cli-expect.ts';
import type { Report, ReportScenario } from '../support/load-report.ts';
import { closeServer, listenOnLoopback } from '../support/loopback.ts';
import { type QueryResult, type RunningPrometheus, startPrometheus } from '../support/prometheus.ts';
import { type CliRun, repoRoot, runCli, startCli } from '../support/run-cli.ts';

/** Grafana's reference to the dashboard's data-source variable, as its panels name it. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template string
const dataSourceVariable = '${datasource}';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const total = (results: readonly QueryResult[]) => results.reduce((sum, result) => sum + Number(result.value?.[1]), 0);

let dir: string;
let prometheus: RunningPrometheus;
let run: CliRun;
let report: Report;
let scenario: ReportScenario;
let runId: string;
/** What Prometheus answered while the run was still going. */
let during: { readonly requests: number; readonly runId: string } | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-prometheus-'));
  prometheus = await startPrometheus();
  const reportDir = join(dir, 'report');
  const started = startCli(
    [
      'load',
      'command',
      '--duration',
      '4s',
      '--rate',
      '1000',
      '--connections',
      '2',
      '--out',
      `prometheus-rw=${prometheus.writeUrl}`,
      '--report-dir',
      reportDir,
    ],
    { reportDir, timeoutMs: 90_000 },
  );
  let ended = false;
  void started.finished.then(() => {
    ended = true;
  });
  // While the process runs: Prometheus answers for the run's series as soon as a batch arrived.
  while (!ended && during === undefined) {
    const results = await prometheus.query('svc_harness_http_reqs_total').catch(() => []);
    if (results.length > 0 && !ended) {
      during = { requests: total(results), runId: results[0]?.metric.run_id ?? '' };
    }
    await sleep(100);
  }
  run = await started.finished;
  report = run.report as Report;
  const [only] = report.load.scenarios;
  if (only === undefined) throw new Error(`no scenario in the report: ${run.stderr.slice(-2000)}`);
  scenario = only;
  runId = during?.runId ?? '';
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('load --out prometheus-rw=URL, against a real Prometheus', () => {
  test('while the run goes, Prometheus already answers for its series', () => {
    const context = `${run.stderr.slice(-2000)}\n${prometheus.log().slice(-2000)}`;
    expectLoadCompleted(run.exitCode, report.load.scenarios, context);
    expect(during, context).toBeDefined();
    expect(runId).toMatch(/^[0-9a-f]{8}$/);
    // A part of the run, not its end: fewer requests than the report's total.
    expect(during?.requests).toBeGreaterThan(0);
    expect(during?.requests).toBeLessThan(scenario.requests.completed + scenario.requests.failed);
    expect(run.stderr).not.toMatch(/prometheus-rw.*dropped/);
  });

  test("after it, the counts are report.json's exactly: requests, failures, drops (in all and per tag set), checks", async () => {
    const of = `run_id="${runId}", scenario="command", engine="node", target="reference"`;
    const query = async (expression: string) => total(await prometheus.query(expression));
    const { requests } = scenario;
    expect(requests.dropped, 'the run dropped some arrivals (two connections at 1,000/s)').toBeGreaterThan(0);
    expect(await query(`svc_harness_http_reqs_total{${of}}`)).toBe(requests.completed + requests.failed);
    expect(await query(`svc_harness_http_req_failed_total{${of}, outcome="true"}`)).toBe(requests.failed);
    expect(await query(`svc_harness_http_req_failed_total{${of}, outcome="false"}`)).toBe(requests.completed);
    expect(await query(`svc_harness_dropped_iterations_total{${of}}`)).toBe(requests.dropped);
    expect(scenario.tags.length).toBeGreaterThan(1);
    for (const tag of scenario.tags) {
      const tags = Object.entries(tag.tags).map(([name, value]) => `, ${name}="${value}"`);
      const ofTag = `${of}${tags.join('')}`;
      expect(await query(`svc_harness_http_reqs_total{${ofTag}}`), JSON.stringify(tag.tags)).toBe(
        tag.requests.completed + tag.requests.failed,
      );
      expect(await query(`svc_harness_http_req_failed_total{${ofTag}, outcome="true"}`)).toBe(tag.requests.failed);
      expect(await query(`svc_harness_dropped_iterations_total{${ofTag}}`)).toBe(tag.requests.dropped);
    }
    const checks = new Map<string, { passes: number; fails: number }>();
    for (const check of scenario.checks) {
      const known = checks.get(check.name) ?? { passes: 0, fails: 0 };
      checks.set(check.name, { passes: known.passes + check.passes, fails: known.fails + check.fails });
    }
    expect(checks.size).toBeGreaterThan(0);
    for (const [name, totals] of checks) {
      const ofCheck = `${of}, check="${name}"`;
      expect(await query(`svc_harness_checks_total{${ofCheck}, outcome="true"}`), name).toBe(totals.passes);
      expect(await query(`svc_harness_checks_total{${ofCheck}, outcome="false"}`), name).toBe(totals.fails);
    }
    // One run in this Prometheus: every series of it carries the run's labels.
    const names = await prometheus.query(`count by (__name__, run_id) ({__name__=~"svc_harness_.+"})`);
    expect(new Set(names.map((result) => result.metric.run_id))).toEqual(new Set([runId]));
  });

  test("each second's latency gauges are the report's series points of those seconds, in seconds", async () => {
    const range = async (quantile: string) => {
      const [result] = await prometheus.query(
        `svc_harness_http_req_duration_seconds{run_id="${runId}", scenario="command", quantile="${quantile}"}[10m]`,
      );
      return (result?.values ?? []).map(([, value]) => Number(value) * 1000);
    };
    const [p50, p90, p99, max] = await Promise.all(['0.5', '0.9', '0.99', '1'].map(range));
    expect(p99?.length, 'a gauge sample for most seconds of the 4 s run').toBeGreaterThanOrEqual(3);
    // In time order, each sample is one second of the report's series, in the seconds' order.
    let from = 0;
    let counted = 0;
    const near = (ms: number, reported: number) => Math.abs(ms - reported) < 0.001;
    for (let index = 0; index < (p99?.length ?? 0); index++) {
      const at = scenario.series.findIndex(
        (point, second) =>
          second >= from &&
          near(p50?.[index] ?? -1, point.p50) &&
          near(p90?.[index] ?? -1, point.p90) &&
          near(p99?.[index] ?? -1, point.p99) &&
          near(max?.[index] ?? -1, point.max),
      );
      expect(
        at,
        `sample ${index}: p99 ${p99?.[index]} ms; series ${JSON.stringify(scenario.series)}`,
      ).toBeGreaterThanOrEqual(from);
      counted += scenario.series[at]?.completed ?? 0;
      from = at + 1;
    }
    // The answers they describe: the counter sums the seconds' counts.
    const [count] = await prometheus.query(`svc_harness_http_req_duration_seconds_count{run_id="${runId}"}`);
    expect(Number(count?.value?.[1])).toBe(counted);
  });

  test("every panel's query of examples/grafana/svc-harness-dashboard.json but the messaging ones, set to the run, returns data", async () => {
    const dashboard = await readDashboard();
    const variables = dashboard.templating.list.map((variable) => variable.name);
    expect(variables).toEqual(['datasource', 'run_id', 'scenario']);
    // The messaging panels read a messaging run's series: the messaging test below runs them.
    const expressions = panelExpressions(dashboard).filter((item) => !isMessaging(item.expr));
    // Every panel and query reads the data-source variable's Prometheus; ids are unique.
    const panels = panelsOf(dashboard.panels);
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: dataSourceVariable });
      for (const target of panel.targets) expect(target.datasource, panel.title).toEqual(panel.datasource);
    }
    const titles = expressions.map((item) => item.title).join(' · ');
    for (const wanted of ['Request rate', 'Failure share', 'p99', 'Dropped iterations', 'Checks']) {
      expect(titles).toContain(wanted);
    }
    await expectData(expressions, runId, 'command');
  });
});

const readDashboard = async () =>
  JSON.parse(await readFile(join(repoRoot, 'examples', 'grafana', 'svc-harness-dashboard.json'), 'utf8')) as Dashboard;

const panelExpressions = (dashboard: Dashboard) =>
  panelsOf(dashboard.panels).flatMap((panel) =>
    panel.targets.map((target) => ({ title: panel.title, expr: target.expr })),
  );

const isMessaging = (expr: string) => /svc_harness_messages?_/.test(expr);

/** Each query, its variables set to a run and a scenario, returns finite data from the real Prometheus. */
async function expectData(
  expressions: readonly { readonly title: string; readonly expr: string }[],
  runId: string,
  scenario: string,
): Promise<void> {
  for (const { title, expr } of expressions) {
    const query = expr
      .replaceAll(/\$\{?run_id\}?/g, runId)
      .replaceAll(/\$\{?scenario\}?/g, scenario)
      .replaceAll('$__rate_interval', '1m');
    expect(query, title).not.toContain('$');
    const results = await prometheus.query(query);
    expect(results.length, `${title}: ${query}`).toBeGreaterThan(0);
    for (const result of results) expect(Number.isFinite(Number(result.value?.[1])), `${title}: ${query}`).toBe(true);
  }
}

interface Panel {
  readonly id: number;
  readonly title: string;
  readonly datasource: unknown;
  readonly targets: readonly { readonly expr: string; readonly datasource: unknown }[];
  readonly panels?: readonly Panel[];
}
interface Dashboard {
  readonly templating: { readonly list: readonly { readonly name: string }[] };
  readonly panels: readonly Panel[];
}
/** Panels, rows' panels among them. */
const panelsOf = (panels: readonly Panel[]): Panel[] =>
  panels.flatMap((panel) => [...(panel.targets ? [panel] : []), ...panelsOf(panel.panels ?? [])]);

describe('an endpoint that refuses, hangs or is not a URL', () => {
  let hanging: Server;
  let hangingUrl: string;
  beforeAll(async () => {
    // Takes the request and never answers.
    hanging = createServer(() => {});
    hangingUrl = (await listenOnLoopback(hanging)).url;
  });
  afterAll(async () => {
    hanging.closeAllConnections();
    await closeServer(hanging);
  });

  test('costs the run nothing: its reports are whole, exit 0, one line each, and the end waits at most 5 s', async () => {
    const refused = `http://127.0.0.1:${await findFreePort()}/api/v1/write`;
    const reportDir = join(dir, 'report-bad-endpoints');
    const bad = await runCli(
      [
        'load',
        'command',
        '--duration',
        '1s',
        '--out',
        `prometheus-rw=${refused}`,
        '--out',
        `prometheus-rw=http://user:hunter2@${hangingUrl.replace(/^http:\/\//, '')}/api/v1/write`,
        '--quiet',
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 60_000 },
    );
    const badReport = bad.report as Report;
    expectLoadCompleted(bad.exitCode, badReport.load.scenarios, bad.stderr);
    expect(bad.stderr).toMatch(
      /^load: --out prometheus-rw=http:\/\/127\.0\.0\.1:\d+\/api\/v1\/write: (\d+) of \1 batches dropped \(.*ECONNREFUSED.*\); the run's reports have everything$/m,
    );
    expect(bad.stderr).toMatch(
      /^load: --out prometheus-rw=http:\/\/\*\*\*@127\.0\.0\.1:\d+\/api\/v1\/write: (\d+) of \1 batches dropped \(no answer within 5 s\); the run's reports have everything$/m,
    );
    expect(`${bad.stdout}${bad.stderr}`).not.toContain('hunter2');
    // A second of load, the start and the reports, and at most the 5 s the end waits for an output.
    expect(bad.durationMs, bad.stderr).toBeLessThan(20_000);
  }, 60_000);

  test('a push interval that is no duration is one line, exit 2, before anything starts', async () => {
    const reportDir = join(dir, 'report-bad-interval');
    const out = `prometheus-rw=${prometheus.writeUrl}`;
    expectOneLine(
      await runCli(['load', 'command', '--out', out, '--report-dir', reportDir], {
        timeoutMs: 30_000,
        env: { SVC_PROMETHEUS_RW_PUSH_INTERVAL: 'often' },
      }),
      /^svc-harness: load: SVC_PROMETHEUS_RW_PUSH_INTERVAL is "often": give a duration of at least 100ms \(5s, 500ms\) \[SVC_USAGE\]$/,
    );
  }, 60_000);

  test('a destination that is no http(s) URL is one line, exit 2, before anything starts', async () => {
    const reportDir = join(dir, 'report-not-a-url');
    expectOneLine(
      await runCli(['load', 'command', '--out', 'prometheus-rw=notaurl', '--report-dir', reportDir], {
        timeoutMs: 30_000,
      }),
      /^svc-harness: load: --out "prometheus-rw=…": the prometheus-rw destination is not an http:\/\/ or https:\/\/ URL \[SVC_USAGE\]$/,
    );
    // The same in a config file's outs, its credentials masked.
    const project = join(dir, 'configured');
    await mkdir(project);
    await writeFile(
      join(project, 'svc-harness.config.json'),
      JSON.stringify({ outs: ['prometheus-rw=ftp://u:hunter2@h/'] }),
    );
    const configured = await runCli(['load', 'command'], { cwd: project, timeoutMs: 30_000 });
    expectOneLine(
      configured,
      /config file .*svc-harness\.config\.json: outs "prometheus-rw=…": the prometheus-rw destination is not an http:\/\/ or https:\/\/ URL/,
    );
    expect(configured.stderr).not.toContain('hunter2');
  });
});

describe('load --engine k6 --out prometheus-rw=URL', () => {
  test("k6's points reach Prometheus while k6 runs, and its counts are report.json's exactly", async () => {
    const reportDir = join(dir, 'k6-report');
    const started = startCli(
      [
        'load',
        'command',
        '--engine',
        'k6',
        '--duration',
        '4s',
        '--rate',
        '200',
        '--out',
        `prometheus-rw=${prometheus.writeUrl}`,
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 120_000 },
    );
    let ended = false;
    void started.finished.then(() => {
      ended = true;
    });
    let live = 0;
    while (!ended && live === 0) {
      live = total(await prometheus.query('svc_harness_http_reqs_total{engine="k6"}').catch(() => []));
      await sleep(100);
    }
    const done = await started.finished;
    const context = `${done.stdout.slice(-1500)}\n${done.stderr.slice(-1500)}`;
    const [k6] = (done.report as Report).load.scenarios;
    expectLoadCompleted(done.exitCode, (done.report as Report).load.scenarios, context);
    const requests = k6?.requests ?? { completed: 0, failed: 0, dropped: 0, sent: 0 };
    // A part of the run, read while k6 was still running.
    expect(live, context).toBeGreaterThan(0);
    expect(live).toBeLessThan(requests.completed + requests.failed);
    const ids = await prometheus.query('count by (run_id) (svc_harness_http_reqs_total{engine="k6"})');
    expect(ids).toHaveLength(1);
    const of = `run_id="${ids[0]?.metric.run_id}", engine="k6"`;
    expect(total(await prometheus.query(`svc_harness_http_reqs_total{${of}}`))).toBe(
      requests.completed + requests.failed,
    );
    expect(total(await prometheus.query(`svc_harness_http_req_failed_total{${of}, outcome="true"}`))).toBe(
      requests.failed,
    );
  }, 150_000);
});

describe('a messaging scenario --out prometheus-rw=URL', () => {
  test("each stream's arrivals and repeats reach Prometheus each second, their last samples report.json's totals exactly", async () => {
    const reportDir = join(dir, 'messaging-report');
    const done = await runCli(
      [
        'load',
        'publish-fanout',
        '--duration',
        '3s',
        '--out',
        `prometheus-rw=${prometheus.writeUrl}`,
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 90_000 },
    );
    const context = `${done.stdout.slice(-1500)}\n${done.stderr.slice(-1500)}\n${prometheus.log().slice(-1500)}`;
    const [publish] = (done.report as Report).load.scenarios;
    expectLoadCompleted(done.exitCode, (done.report as Report).load.scenarios, context);
    const delivery = publish?.messaging?.delivery;
    if (delivery === undefined || delivery === null || delivery.unexpectedKeys === undefined)
      throw new Error(`no delivery accounting: ${context}`);
    const ids = await prometheus.query(
      'count by (run_id) (svc_harness_messages_arrived_total{scenario="publish-fanout"})',
    );
    expect(ids, context).toHaveLength(1);
    const of = `run_id="${ids[0]?.metric.run_id}", scenario="publish-fanout", stream="delivery"`;
    const query = async (expression: string) => total(await prometheus.query(expression));
    expect(await query(`svc_harness_messages_arrived_total{${of}}`)).toBe(
      delivery.received + delivery.duplicated + delivery.unexpected,
    );
    expect(await query(`svc_harness_messages_repeated_total{${of}}`)).toBe(
      delivery.duplicated + delivery.unexpected - delivery.unexpectedKeys,
    );
    expect(await query(`svc_harness_messages_received_total{${of}}`)).toBe(delivery.received);
    // Told while the load ran: samples before the end's, the first of them below the total.
    expect(await query(`count_over_time(svc_harness_messages_arrived_total{${of}}[5m])`), context).toBeGreaterThan(2);
    expect(await query(`min_over_time(svc_harness_messages_arrived_total{${of}}[5m])`)).toBeLessThan(
      delivery.received + delivery.duplicated + delivery.unexpected,
    );
    // Each second's latency gauges (and the whole scenario's, the last sample), and the seconds' count.
    expect(
      await query(`count_over_time(svc_harness_message_latency_seconds{${of}, quantile="0.99"}[5m])`),
    ).toBeGreaterThan(2);
    expect(await query(`svc_harness_message_latency_seconds{${of}, quantile="0.99"}`)).toBeCloseTo(
      delivery.latencyMs.p99 / 1000,
      6,
    );
    expect(await query(`svc_harness_message_latency_seconds_count{${of}}`)).toBeGreaterThan(0);
    // The dashboard's messaging panels, set to this run, each return data.
    const messaging = panelExpressions(await readDashboard()).filter((item) => isMessaging(item.expr));
    expect(messaging.map((item) => item.title).join(' · ')).toMatch(/arriving.*Repeated.*latency.*lost/is);
    await expectData(messaging, ids[0]?.metric.run_id ?? '', 'publish-fanout');
  }, 120_000);
});
