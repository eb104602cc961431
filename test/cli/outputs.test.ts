/**
 * `--out json=FILE` end to end (issue 38): a load run against the embedded reference writes NDJSON as
 * it goes, whose counts, read back line by line, add up to report.json's exactly (in all, per tag set,
 * per check), with the run's events in order; a run killed by SIGKILL mid-way leaves every complete
 * line readable; an unknown kind is one line, exit 2; a destination that cannot be written (a folder,
 * a full disk) is one line and the run goes on; `--quiet` and `--verbose` say less and more.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/reference-service.ts';
import { expectLoadCompleted, expectOneLine } from '../support/cli-expect.ts';
import type { Report, ReportScenario } from '../support/load-report.ts';
import { waitFor } from '../support/processes.ts';
import { runCli, startCli } from '../support/run-cli.ts';

interface Line {
  readonly type: 'point' | 'event';
  readonly time: string;
  readonly metric?: string;
  readonly event?: string;
  readonly kind?: string;
  readonly value?: number;
  readonly count?: number;
  readonly total?: number;
  readonly second?: number;
  readonly p99?: number;
  readonly final?: boolean;
  readonly elapsed_s?: number;
  readonly ok?: boolean;
  readonly phase?: string;
  readonly expression?: string;
  readonly labels: Record<string, string>;
  readonly tags?: Record<string, string>;
  readonly [fact: string]: unknown;
}

const tagKey = (tags: Record<string, string> = {}) =>
  Object.keys(tags)
    .sort()
    .map((key) => `${key}=${tags[key]}`)
    .join(',');

const readLines = async (path: string): Promise<Line[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

/**
 * The points of a scenario's lines add up to its report exactly (in all, per tag set, per check), live
 * points came before its end, and each second's latency is the report's series point of that second
 * (on k6, of the samples read by then: a late sample may still join its second).
 */
function expectPointsAddUp(lines: readonly Line[], scenario: ReportScenario, context: string): void {
  // Points came while the load ran: before the scenario's end, live ones (with their seconds).
  const endAt = lines.findIndex((line) => line.event === 'scenario_end');
  const live = lines.slice(0, endAt).filter((line) => line.metric === 'http_reqs' && line.final === undefined);
  expect(live.length, context).toBeGreaterThan(0);
  expect(live.every((line) => typeof line.elapsed_s === 'number')).toBe(true);

  const points = lines.filter((line) => line.type === 'point');
  const sum = (metric: string, field: 'value' | 'count' | 'total', of: (line: Line) => boolean = () => true) =>
    points.filter((line) => line.metric === metric && of(line)).reduce((total, line) => total + (line[field] ?? 0), 0);
  const { requests } = scenario;
  expect(sum('http_reqs', 'value')).toBe(requests.completed + requests.failed);
  expect(sum('http_req_failed', 'count')).toBe(requests.failed);
  expect(sum('http_req_failed', 'total')).toBe(requests.completed + requests.failed);
  expect(sum('dropped_iterations', 'value')).toBe(requests.dropped);
  expect(scenario.tags.length).toBeGreaterThan(1);
  for (const tag of scenario.tags) {
    const ofTag = (line: Line) => tagKey(line.tags) === tagKey(tag.tags);
    expect(sum('http_reqs', 'value', ofTag), tagKey(tag.tags)).toBe(tag.requests.completed + tag.requests.failed);
    expect(sum('http_req_failed', 'count', ofTag)).toBe(tag.requests.failed);
  }
  const checks = new Map<string, { passes: number; fails: number }>();
  for (const check of scenario.checks) {
    const known = checks.get(check.name) ?? { passes: 0, fails: 0 };
    checks.set(check.name, { passes: known.passes + check.passes, fails: known.fails + check.fails });
  }
  for (const [name, totals] of checks) {
    const ofCheck = (line: Line) => line.labels.check === name;
    expect(sum('checks', 'count', ofCheck), name).toBe(totals.passes);
    expect(sum('checks', 'total', ofCheck), name).toBe(totals.passes + totals.fails);
  }
  // Each second's latency is the report's series point of that second.
  const trends = points.filter((line) => line.metric === 'http_req_duration');
  expect(trends.length).toBeGreaterThan(0);
  for (const trend of trends) {
    const point = scenario.series.find((item) => item.second === trend.second);
    if (scenario.engine === 'k6') {
      expect(trend.count, `second ${trend.second}`).toBeLessThanOrEqual(point?.completed ?? 0);
    } else {
      expect(trend.p99, `second ${trend.second}`).toBe(point?.p99);
      expect(trend.count).toBe(point?.completed);
    }
  }
  const liveTotal = live.reduce((total, line) => total + (line.value ?? 0), 0);
  expect(liveTotal, context).toBeGreaterThan(0);
}

/**
 * Each threshold's value came once a second while the load ran (a gauge before the scenario's end),
 * and a crossing event says each change of its state, the end's judgement included.
 */
function expectLiveThresholds(lines: readonly Line[], scenario: ReportScenario): void {
  const endAt = lines.findIndex((line) => line.event === 'scenario_end');
  for (const threshold of scenario.thresholds) {
    const gauges = lines
      .slice(0, endAt)
      .filter((line) => line.metric === 'threshold' && line.labels.threshold === threshold.expression);
    expect(gauges.length, threshold.expression).toBeGreaterThan(0);
    expect(gauges.every((line) => line.kind === 'gauge' && typeof line.ok === 'boolean')).toBe(true);
    const states = [...gauges.map((line) => line.ok), threshold.ok];
    const changes = states.filter((ok, index) => index > 0 && ok !== states[index - 1]).length;
    const crossings = lines.filter(
      (line) => line.event === 'threshold_crossed' && line.expression === threshold.expression,
    );
    expect(crossings.length, threshold.expression).toBe(changes);
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-outputs-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('load --out json=FILE', () => {
  test('the NDJSON, read back line by line, adds up to report.json exactly; two outputs hold the same; --verbose prints each second', async () => {
    const reportDir = join(dir, 'report');
    const file = join(dir, 'run.ndjson');
    const again = join(dir, 'again.ndjson');
    const run = await runCli(
      [
        'load',
        'command',
        '--duration',
        '3s',
        '--out',
        `json=${file}`,
        '--out',
        `json=${again}`,
        '--verbose',
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 90_000 },
    );
    const report = run.report as Report;
    const context = `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
    expectLoadCompleted(run.exitCode, report.load.scenarios, context);
    const lines = await readLines(file);
    const runId = lines[0]?.labels.run_id;
    expect(runId).toMatch(/^[0-9a-f]{8}$/);
    expect(lines.every((line) => line.labels.run_id === runId && !Number.isNaN(Date.parse(line.time)))).toBe(true);

    // The events, in order: the run, the scenario, its phases (the warm-up, the measured load), its
    // thresholds, its end, the run's end (a threshold crossing, should one cross, between them).
    const events = lines
      .filter((line) => line.type === 'event' && line.event !== 'threshold_crossed')
      .map((line) => [line.event, line.phase]);
    const [scenario] = report.load.scenarios;
    if (scenario === undefined) throw new Error('no scenario in the report');
    expect(events).toEqual([
      ['run_start', undefined],
      ['scenario_start', undefined],
      ['phase_start', 'warmup'],
      ['phase_end', 'warmup'],
      ['phase_start', 'load'],
      ['phase_end', 'load'],
      ...scenario.thresholds.map(() => ['threshold', undefined]),
      ['scenario_end', undefined],
      ['run_end', undefined],
    ]);
    expectLiveThresholds(lines, scenario);
    expect(lines.at(-1)).toMatchObject({ event: 'run_end', exit_code: report.exitCode, dropped_lines: 0 });
    const start = lines.find((line) => line.event === 'scenario_start');
    expect(start?.labels).toEqual({ run_id: runId, scenario: 'command', engine: 'node', target: 'reference' });

    expectPointsAddUp(lines, scenario, context);
    expect(lines.find((line) => line.event === 'scenario_end')).toMatchObject({ requests: scenario.requests });

    // The second output holds the same records.
    const second = await readLines(again);
    expect(second.map((line) => [line.type, line.metric ?? line.event])).toEqual(
      lines.map((line) => [line.type, line.metric ?? line.event]),
    );
    // --verbose: a progress line each second, on stderr.
    expect(run.stderr.match(/^command: \d+\/3 s · \d+ req\/s/gm)?.length ?? 0, run.stderr).toBeGreaterThanOrEqual(2);
  }, 100_000);

  test('on k6 (two segments): live points while k6 runs, labelled engine=k6, adding up to report.json exactly', async () => {
    const reportDir = join(dir, 'report-k6');
    const file = join(dir, 'k6.ndjson');
    const run = await runCli(
      [
        'load',
        'command',
        '--engine',
        'k6',
        '--segments',
        '2',
        '--duration',
        '4s',
        '--out',
        `json=${file}`,
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 90_000 },
    );
    const report = run.report as Report;
    const context = `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
    expectLoadCompleted(run.exitCode, report.load.scenarios, context);
    const [scenario] = report.load.scenarios;
    if (scenario === undefined) throw new Error('no scenario in the report');
    const lines = await readLines(file);
    const start = lines.find((line) => line.event === 'scenario_start');
    expect(start?.labels).toMatchObject({ scenario: 'command', engine: 'k6', target: 'reference' });
    expect(lines.filter((line) => line.type === 'point').every((line) => line.labels.engine === 'k6')).toBe(true);
    expectPointsAddUp(lines, scenario, context);
    expectLiveThresholds(lines, scenario);
    const phases = lines.filter((line) => line.event?.startsWith('phase_')).map((line) => [line.event, line.phase]);
    expect(phases).toEqual([
      ['phase_start', 'load'],
      ['phase_end', 'load'],
    ]);
    // Most of the load was told while it ran: the final points carry only the last moments.
    const live = lines.filter((line) => line.metric === 'http_reqs' && line.final === undefined);
    const told = live.reduce((total, line) => total + (line.value ?? 0), 0);
    expect(told, context).toBeGreaterThan((scenario.requests.completed + scenario.requests.failed) / 2);
    expect(new Set(live.map((line) => line.elapsed_s)).size, context).toBeGreaterThanOrEqual(2);
  }, 100_000);

  // Both engines share the sink, so both have the streams' live points.
  test.each(['node', 'k6'])(
    "a messaging scenario on %s: each stream's arrivals live during the load, live + final equal to report.json's, and the end's accounting",
    async (engine) => {
      const reportDir = join(dir, `report-messaging-${engine}`);
      const file = join(dir, `messaging-${engine}.ndjson`);
      const durationS = 3;
      const run = await runCli(
        [
          'load',
          'publish-fanout',
          '--engine',
          engine,
          '--duration',
          `${durationS}s`,
          '--out',
          `json=${file}`,
          '--report-dir',
          reportDir,
        ],
        { reportDir, timeoutMs: 90_000 },
      );
      const report = run.report as Report;
      const context = `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
      expectLoadCompleted(run.exitCode, report.load.scenarios, context);
      const [scenario] = report.load.scenarios;
      const messaging = scenario?.messaging;
      if (scenario === undefined || messaging === undefined) throw new Error(`no messaging accounting: ${context}`);
      const lines = await readLines(file);
      const ended = lines
        .filter((line) => line.metric === 'http_reqs')
        .reduce((total, line) => total + (line.value ?? 0), 0);
      expect(ended).toBe(scenario.requests.completed + scenario.requests.failed);
      const endAt = lines.findIndex((line) => line.event === 'scenario_end');
      const names = {
        delivery: 'delivery',
        callbacks: 'callback',
        failureCallbacks: 'failure_callback',
        waiters: 'waiter',
      };
      let streams = 0;
      for (const [key, stream] of Object.entries(names)) {
        const accounting = messaging[key as keyof typeof names];
        const points = lines.filter((line) => line.type === 'point' && line.labels.stream === stream);
        // report.json writes a stream the scenario lacks as null.
        if (accounting === undefined || accounting === null) {
          expect(points, stream).toEqual([]);
          continue;
        }
        streams++;
        // What only the end knows (which keys were expected) is final only.
        const final = (metric: string) => points.filter((line) => line.metric === metric && line.final === true);
        const value = (metric: string) => {
          const all = points.filter((line) => line.metric === metric);
          expect(all.every((line) => line.final === true)).toBe(true);
          return all.map((line) => line.value);
        };
        expect(value('messages_expected'), stream).toEqual([accounting.expected]);
        expect(value('messages_received'), stream).toEqual([accounting.received]);
        expect(value('messages_lost'), stream).toEqual([accounting.lost]);
        expect(value('messages_duplicated'), stream).toEqual([accounting.duplicated]);
        expect(value('messages_unexpected'), stream).toEqual([accounting.unexpected]);
        expect(final('message_latency')).toMatchObject([
          { count: accounting.latencyMs.count, p99: accounting.latencyMs.p99 },
        ]);

        // The arrivals came while the load ran: live points before the scenario's end, within its duration.
        const arrived = points.filter((line) => line.metric === 'messages_arrived');
        const live = arrived.filter((line) => line.final === undefined && lines.indexOf(line) < endAt);
        expect(live.length, `${stream}: ${context}`).toBeGreaterThan(0);
        const during = live.filter((line) => (line.elapsed_s ?? Number.POSITIVE_INFINITY) < durationS);
        const toldDuring = during.reduce((total, line) => total + (line.value ?? 0), 0);
        expect(toldDuring, `${stream} arrivals told during the load`).toBeGreaterThan(0);
        expect(live.every((line) => typeof line.rate === 'number' && typeof line.elapsed_s === 'number')).toBe(true);
        // Each second's latency of first arrivals, live.
        const seconds = points.filter((line) => line.metric === 'message_latency' && line.final === undefined);
        expect(seconds.length, stream).toBeGreaterThan(0);
        expect(seconds.every((line) => typeof line.second === 'number' && (line.count ?? 0) > 0)).toBe(true);

        // Live + final = the end's totals, exactly.
        const sum = (metric: string) =>
          points.filter((line) => line.metric === metric).reduce((total, line) => total + (line.value ?? 0), 0);
        const unexpectedKeys = accounting.unexpectedKeys;
        if (unexpectedKeys === undefined) throw new Error(`${stream}: no unexpectedKeys in report.json`);
        expect(sum('messages_arrived'), stream).toBe(
          accounting.received + accounting.duplicated + accounting.unexpected,
        );
        expect(sum('messages_repeated'), stream).toBe(accounting.duplicated + accounting.unexpected - unexpectedKeys);
        expect(final('messages_arrived'), stream).toHaveLength(1);
      }
      expect(streams).toBeGreaterThan(0);
      expect(messaging.delivery?.expected ?? 0, context).toBeGreaterThan(0);
    },
    100_000,
  );

  test('an unknown kind, or a value that is no KIND=DESTINATION, is one line naming the kinds, exit 2, and nothing starts', async () => {
    for (const [value, line] of [
      [
        'csv=out.csv',
        /^svc-harness: load: --out "csv=out.csv": unknown output kind "csv" \(kinds: json, prometheus-rw, otlp\) \[SVC_USAGE\]$/,
      ],
      [
        'run.ndjson',
        /^svc-harness: load: --out "run\.ndjson" is not KIND=DESTINATION \(kinds: json, prometheus-rw, otlp\) \[SVC_USAGE\]$/,
      ],
      // A URL kind's destination that is no http(s) URL: refused before the run, the value not repeated.
      [
        'otlp=notaurl',
        /^svc-harness: load: --out "otlp=…": the otlp destination is not an http:\/\/ or https:\/\/ URL \[SVC_USAGE\]$/,
      ],
    ] as const) {
      const reportDir = join(dir, `bad-${value.split('=')[0]}`);
      const run = await runCli(['load', 'command', '--out', value, '--report-dir', reportDir], { timeoutMs: 30_000 });
      expectOneLine(run, line);
      expect(existsSync(reportDir)).toBe(false);
    }
  }, 60_000);

  test("outs in a config file: the same kinds, a file's destination relative to the config file", async () => {
    const project = join(dir, 'configured');
    await mkdir(project);
    const config = join(project, 'svc-harness.config.json');
    await writeFile(config, JSON.stringify({ outs: ['csv=x'] }));
    const bad = await runCli(['load', 'command'], { cwd: project, timeoutMs: 30_000 });
    expectOneLine(
      bad,
      /config file .*svc-harness\.config\.json: outs "csv=x": unknown output kind "csv" \(kinds: json/,
    );
    await writeFile(config, JSON.stringify({ outs: 'json=live/run.ndjson', duration: 1, reportDir: 'reports' }));
    // Run from elsewhere: the destination is the config file's folder's, not the working folder's.
    const run = await runCli(['load', 'command', '--config', config, '--quiet'], { timeoutMs: 90_000 });
    expect(run.exitCode, run.stderr).not.toBe(2);
    const lines = await readLines(join(project, 'live', 'run.ndjson'));
    expect(lines.at(-1)?.event).toBe('run_end');
  }, 100_000);

  test('a destination that cannot be written (a folder, a full disk) is one line; the run goes on and writes its reports; --quiet says only the gate', async () => {
    const folder = join(dir, 'a-folder');
    await mkdir(folder);
    const reportDir = join(dir, 'report-unwritable');
    const outs = ['--out', `json=${folder}`, ...(existsSync('/dev/full') ? ['--out', 'json=/dev/full'] : [])];
    const run = await runCli(['load', 'command', '--duration', '1s', ...outs, '--quiet', '--report-dir', reportDir], {
      reportDir,
      timeoutMs: 90_000,
    });
    const report = run.report as Report;
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr);
    expect(run.stderr).toMatch(
      /^load: --out json=.*a-folder: cannot be written \(EISDIR.*\); the run goes on without this output$/m,
    );
    if (existsSync('/dev/full')) {
      expect(run.stderr).toMatch(
        /^load: --out json=\/dev\/full: (\d+) of \1 lines dropped \(ENOSPC.*\); the run's reports have everything$/m,
      );
    }
    // Quiet: nothing else on stderr (no scenario line, no progress), and the gate line alone on stdout.
    expect(run.stderr.split('\n').filter(Boolean).length, run.stderr).toBe(existsSync('/dev/full') ? 2 : 1);
    expect(run.stdout.trim(), run.stdout).toMatch(/^gate: passed \(exit code 0\) in [\d.]+ s$/);
  }, 100_000);

  test('--quiet and --verbose together are one line, exit 2', async () => {
    expectOneLine(
      await runCli(['load', 'command', '--quiet', '--verbose'], { timeoutMs: 30_000 }),
      /^svc-harness: load: --quiet and --verbose ask for opposite consoles; give one \[SVC_USAGE\]$/,
    );
  });
});

describe('a run killed with SIGKILL', () => {
  let reference: RunningReference;
  beforeAll(async () => {
    // Its own process serves the target: the killed run leaves nothing of the reference's behind.
    reference = await startReference();
  });
  afterAll(() => reference?.stop());

  test('leaves every complete line of its NDJSON readable', async () => {
    const target = join(dir, 'target.json');
    await writeFile(target, JSON.stringify(reference.target));
    const file = join(dir, 'killed.ndjson');
    const started = startCli(
      [
        'load',
        'command',
        '--target',
        target,
        '--duration',
        '30s',
        '--rate',
        '300',
        '--out',
        `json=${file}`,
        '--report-dir',
        join(dir, 'killed'),
      ],
      { timeoutMs: 90_000 },
    );
    const liveLines = () =>
      (existsSync(file) ? readFileSync(file, 'utf8') : '').split('\n').filter((line) => line.includes('"http_reqs"'))
        .length;
    // Some seconds of points written: then killed, mid-run, with no chance to flush or end.
    const underWay = await waitFor(() => liveLines() >= 6, 60_000);
    expect(underWay, started.stderr()).toBe(true);
    started.child.kill('SIGKILL');
    const done = await started.finished;
    expect(done.signal).toBe('SIGKILL');
    const text = await readFile(file, 'utf8');
    const complete = text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean);
    expect(complete.length).toBeGreaterThanOrEqual(8);
    const lines = complete.map((line) => JSON.parse(line) as Line);
    expect(lines[0]?.event).toBe('run_start');
    expect(lines.some((line) => line.event === 'scenario_start')).toBe(true);
    // Killed, it never ended: no scenario_end, no run_end.
    expect(lines.some((line) => line.event === 'run_end')).toBe(false);
    expect(lines.filter((line) => line.metric === 'http_reqs').every((line) => (line.value ?? -1) >= 0)).toBe(true);
  }, 100_000);
});
