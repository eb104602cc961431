/**
 * `svc-harness load --engine k6` and the `k6` commands end to end, on the real k6 binary the harness
 * finds by itself (the cache CI fills with `svc-harness k6 install`): a run on the embedded reference
 * writes a report valid against the schema with the engine, the k6 version and the counts; `--segments 2`
 * splits one arrival schedule over two k6 processes and merges it (every batch's tag, the pipeline's
 * 40/s kept); all scenarios skip kv-fanout with a reason and run the rest; bad input is one line, exit
 * 2, and starts nothing; a failed command-line threshold exits 99; and no credential of the target
 * reaches a file written or the console.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { installNote } from '../../src/cli/commands/k6-install.ts';
import { findK6, type K6Binary } from '../../src/engines/load/k6/k6-binary.ts';
import { type RunningReference, startReference } from '../../src/reference/reference-service.ts';
import { expectLoadCompleted, expectOneLine, isLatencyThreshold } from '../support/cli-expect.ts';
import { type CliRun, runCli } from '../support/run-cli.ts';
import { expectNoSecrets } from '../support/secret-scan.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

interface Requests {
  readonly sent: number;
  readonly completed: number;
  readonly failed: number;
  readonly dropped: number;
}

interface ScenarioEntry {
  readonly name: string;
  readonly engine: string;
  readonly model: string;
  readonly problem: string | null;
  readonly settings: {
    readonly rate: number | null;
    readonly durationS: number;
    readonly segments: number | null;
    readonly k6Version: string | null;
  };
  readonly requests: Requests;
  readonly errors: readonly unknown[];
  readonly checks: readonly { readonly name: string; readonly passes: number; readonly fails: number }[];
  readonly tags: readonly { readonly tags: Readonly<Record<string, string>>; readonly requests: Requests }[];
  readonly thresholds: readonly {
    readonly expression: string;
    readonly source: string;
    readonly ok: boolean;
    readonly value: number | null;
  }[];
}

interface Report {
  readonly exitCode: number;
  readonly gate: string;
  readonly aborted: string | null;
  readonly load: {
    readonly aborted: string | null;
    readonly skipped: readonly { readonly name: string; readonly reason: string }[] | null;
    readonly scenarios: readonly ScenarioEntry[];
  };
}

let dir: string;
let k6: K6Binary;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-k6-'));
  // The k6 the harness finds in the children below: the test only reads its version.
  k6 = await findK6({ build: false });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `load …` into a fresh report folder under `dir`, with a redis-server of its own. */
async function load(name: string, args: readonly string[], env: Readonly<Record<string, string>> = {}) {
  const reportDir = join(dir, name);
  const run = await runCli(['load', ...args, '--report-dir', reportDir], {
    reportDir,
    timeoutMs: 50_000,
    env: { REDIS_URL: '', ...env },
  });
  return { run, reportDir };
}

/** report.json of a finished run, checked against the schema. */
function reportOf(run: CliRun): Report {
  expect(run.report, run.stderr.slice(-2000)).toBeDefined();
  expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
  return run.report as Report;
}

function only(report: Report): ScenarioEntry {
  expect(report.load.scenarios).toHaveLength(1);
  const [scenario] = report.load.scenarios;
  if (!scenario) throw new Error('no scenario in report.json');
  return scenario;
}

/** Every request accounted for, and every check and threshold of the scenario passing. */
function expectClean(scenario: ScenarioEntry): void {
  expect(scenario.problem, scenario.name).toBeNull();
  expect(scenario.engine, scenario.name).toBe('k6');
  expect(scenario.requests.completed, scenario.name).toBeGreaterThan(0);
  expect(scenario.requests.failed, scenario.name).toBe(0);
  expect(scenario.requests.sent, scenario.name).toBe(scenario.requests.completed);
  expect(scenario.errors, scenario.name).toEqual([]);
  expect(scenario.checks.length, scenario.name).toBeGreaterThan(0);
  for (const check of scenario.checks) {
    expect(check.fails, `${scenario.name}: ${check.name}`).toBe(0);
    expect(check.passes, `${scenario.name}: ${check.name}`).toBeGreaterThan(0);
  }
  expect(scenario.thresholds.length, scenario.name).toBeGreaterThan(0);
  // Latency thresholds may fail on a machine shared with other tests (expectLoadCompleted); no other may.
  expect(
    scenario.thresholds.filter((threshold) => !threshold.ok && !isLatencyThreshold(threshold)),
    scenario.name,
  ).toEqual([]);
}

describe('load --engine k6 on the embedded reference', () => {
  test('command for 2 s: exit 0, engine k6 with its version, every request answered, checks passing, four report files', async () => {
    const { run, reportDir } = await load('command', ['command', '--engine', 'k6', '--duration', '2s']);
    const report = reportOf(run);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr.slice(-2000));
    expect(report.aborted).toBeNull();
    const scenario = only(report);
    expect(scenario.name).toBe('command');
    expect(scenario.model).toBe('open');
    expect(scenario.settings.k6Version).toBe(k6.version);
    expect(scenario.settings.segments).toBe(1);
    expect(scenario.settings.durationS).toBe(2);
    expectClean(scenario);
    expect((await readdir(reportDir)).sort()).toEqual(['index.html', 'junit.xml', 'report.json', 'summary.md']);
    expect(await readFile(join(reportDir, 'summary.md'), 'utf8')).toContain('command');
    expect(await readFile(join(reportDir, 'junit.xml'), 'utf8')).toContain('<testsuite name="load.command"');
    expect(run.stderr).toContain(`k6 v${k6.version}, open model on reference (embedded reference)`);
  });

  test('pipeline over 2 segments for 2 s: exit 0, segments 2, a tag entry per batch, 40/s kept over both', async () => {
    const { run } = await load('pipeline-segments', [
      'pipeline',
      '--engine',
      'k6',
      '--segments',
      '2',
      '--duration',
      '2s',
    ]);
    const scenario = only(reportOf(run));
    expectLoadCompleted(run.exitCode, [scenario], run.stderr.slice(-2000));
    expect(scenario.settings.segments).toBe(2);
    expect(scenario.settings.k6Version).toBe(k6.version);
    expect(scenario.settings.rate).toBe(40);
    expectClean(scenario);
    // The two segments split one schedule: 40/s for 2 s is 80 arrivals, not 80 each (160). On a busy
    // machine k6 drops what no VU is free for (CI once sent 66 of the 80, with four test files at a time),
    // so the floor is half: what is checked is the split, not k6's pace.
    expect(scenario.requests.sent).toBeGreaterThanOrEqual(40);
    expect(scenario.requests.sent + scenario.requests.dropped).toBeLessThanOrEqual(90);
    const batches = [...new Set(scenario.tags.map((tag) => tag.tags.batch))].sort((a, b) => Number(a) - Number(b));
    expect(batches).toEqual(['1', '10', '100', '1000']);
    for (const tag of scenario.tags) expect(tag.requests.sent, JSON.stringify(tag.tags)).toBeGreaterThan(0);
    const tagged = scenario.tags.reduce((sum, tag) => sum + tag.requests.sent, 0);
    expect(tagged).toBe(scenario.requests.sent);
    expect(run.stderr).toContain(`k6 v${k6.version} × 2 segments`);
  });

  test('every scenario for 1 s: kv-fanout is skipped with its reason, the others run (messaging ones too)', async () => {
    const { run } = await load('all', ['--engine', 'k6', '--duration', '1s']);
    expect(run.stderr).toMatch(/load: kv-fanout is skipped on k6: its subscribers read server-sent events/);
    const report = reportOf(run);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr.slice(-2000));
    expect(report.load.skipped).toEqual([
      { name: 'kv-fanout', reason: expect.stringMatching(/server-sent events.*--engine node/) },
    ]);
    expect(report.load.scenarios.map((scenario) => scenario.name).sort()).toEqual([
      'callback-throughput',
      'command',
      'notify-fanout',
      'pipeline',
      'publish-fanout',
      'transaction',
    ]);
    for (const scenario of report.load.scenarios) expectClean(scenario);
  });

  test('--engine node,k6: each scenario on both engines, side by side in one report, one junit suite each', async () => {
    const { run, reportDir } = await load('both', ['command', '--engine', 'node,k6', '--duration', '1s']);
    const report = reportOf(run);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr.slice(-2000));
    expect(report.load.scenarios.map((scenario) => [scenario.name, scenario.engine])).toEqual([
      ['command', 'node'],
      ['command', 'k6'],
    ]);
    for (const scenario of report.load.scenarios) {
      expect(scenario.problem).toBeNull();
      expect(scenario.requests.completed).toBeGreaterThan(0);
    }
    const junit = await readFile(join(reportDir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="load.command.node"');
    expect(junit).toContain('<testsuite name="load.command.k6"');
    const page = await readFile(join(reportDir, 'index.html'), 'utf8');
    expect(page).toContain('<small>on node</small>');
    expect(page).toContain('<small>on k6</small>');
  });

  test('a command-line threshold that fails on k6: exit 99, the threshold failed with its value', async () => {
    const { run } = await load('threshold', [
      'command',
      '--engine',
      'k6',
      '--duration',
      '1s',
      '--threshold',
      'http_req_duration: p(99)<0.001',
    ]);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(99);
    const report = reportOf(run);
    expect(report.exitCode).toBe(99);
    expect(report.gate).toBe('failed');
    const scenario = only(report);
    // k6 fails the threshold too (its exit 99); the harness takes that as a completed run, judged by itself.
    expect(scenario.problem).toBeNull();
    const failed = scenario.thresholds.filter((threshold) => !threshold.ok);
    expect(failed).toEqual([
      expect.objectContaining({ expression: 'http_req_duration: p(99) < 0.001', source: 'cli', ok: false }),
    ]);
    expect(failed[0]?.value).toBeGreaterThan(0.001);
  });
});

describe('k6 bad input gives one line, exit 2, and starts nothing', () => {
  const cases: readonly { name: string; args: readonly string[]; line: RegExp; reportDir?: boolean }[] = [
    {
      name: 'load kv-fanout alone on k6',
      args: ['load', 'kv-fanout', '--engine', 'k6'],
      line: /load: nothing to run: kv-fanout on k6: its subscribers read server-sent events/,
      reportDir: true,
    },
    {
      name: 'load --segments above 64',
      args: ['load', 'command', '--engine', 'k6', '--segments', '65'],
      line: /--segments "65" is not at most 64/,
      reportDir: true,
    },
    {
      name: 'load --engine with an unknown engine',
      args: ['load', 'command', '--engine', 'node,gatling'],
      line: /--engine "node,gatling" is not node, node-undici, k6 or a list of them \(node,k6\)/,
      reportDir: true,
    },
    {
      name: 'load --segments without k6',
      args: ['load', 'command', '--segments', '2'],
      line: /--segments splits the load over k6 processes: it needs --engine k6/,
      reportDir: true,
    },
    {
      name: 'load --workers with k6',
      args: ['load', 'command', '--engine', 'k6', '--workers', '2'],
      line: /--workers sets the node engine’s threads/,
      reportDir: true,
    },
    {
      name: 'load --segments 0',
      args: ['load', 'command', '--engine', 'k6', '--segments', '0'],
      line: /--segments "0" is not a whole number above zero/,
      reportDir: true,
    },
    { name: 'k6 alone', args: ['k6'], line: /k6: which one\? \(k6 install, k6 merge, k6 manifest\)/ },
    { name: 'k6 nosuch', args: ['k6', 'nosuch'], line: /unknown command "k6 nosuch"/ },
    {
      name: 'k6 merge with no file',
      args: ['k6', 'merge'],
      line: /k6 merge: name the k6 JSON output files to merge/,
      reportDir: true,
    },
    {
      name: 'k6 merge of a file that does not exist',
      args: ['k6', 'merge', '/nonexistent.json'],
      line: /k6 merge: no file \/nonexistent\.json/,
      reportDir: true,
    },
    {
      name: 'k6 manifest without --target or --base-url',
      args: ['k6', 'manifest', 'command'],
      line: /k6 manifest: give the URL the pods load, with --target FILE, --base-url URL or SVC_KV_URL \(one of them\)/,
    },
    {
      name: 'k6 manifest with a name Kubernetes refuses',
      args: ['k6', 'manifest', 'command', '--base-url', 'http://x', '--name', 'Bad_Name'],
      line: /k6 manifest: --name "Bad_Name" is not a Kubernetes name/,
    },
    {
      name: 'k6 manifest of kv-fanout',
      args: ['k6', 'manifest', 'kv-fanout', '--base-url', 'http://127.0.0.1:1'],
      line: /k6 manifest: kv-fanout cannot run on k6: its subscribers read server-sent events/,
    },
  ];

  test.each(cases)('$name', async ({ name, args, line, reportDir: takesReportDir }) => {
    const reportDir = join(dir, `bad-${name.replaceAll(' ', '-')}`);
    const out = join(dir, `bad-${name.replaceAll(' ', '-')}.yaml`);
    const extra = takesReportDir ? ['--report-dir', reportDir] : args[1] === 'manifest' ? ['--out', out] : [];
    const run = await runCli([...args, ...extra], { timeoutMs: 20_000, env: { REDIS_URL: '' } });
    expectOneLine(run, new RegExp(`^svc-harness: .*${line.source}.* \\[SVC_USAGE\\]$`));
    expect(run.stdout).toBe('');
    // Checked before anything starts: no report folder (so no reference, no k6) and no manifest.
    expect(existsSync(reportDir)).toBe(false);
    expect(existsSync(out)).toBe(false);
  });

  test('K6_BINARY naming a file that does not exist: one line naming K6_BINARY, before the reference starts', async () => {
    const reportDir = join(dir, 'bad-k6-binary');
    const run = await runCli(['load', 'command', '--engine', 'k6', '--report-dir', reportDir], {
      timeoutMs: 20_000,
      env: { REDIS_URL: '', K6_BINARY: '/nonexistent' },
    });
    expectOneLine(run, /^svc-harness: K6_BINARY names \/nonexistent, which does not exist \[SVC_K6_UNAVAILABLE\]$/);
    expect(existsSync(reportDir)).toBe(false);
  });
});

describe('k6 install', () => {
  test('finds the k6 the harness uses and prints its version, path and source', async () => {
    const run = await runCli(['k6', 'install'], { timeoutMs: 20_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe(`k6 v${k6.version} ${k6.path} (${k6.source}, ${installNote(k6.boundedReads)})\n`);
  });
});

describe('k6 and the target’s credentials', () => {
  let reference: RunningReference;
  beforeAll(async () => {
    reference = await startReference({});
  });
  afterAll(() => reference.stop());

  test('after a k6 run over two segments, no credential of the target is in a file written or the console', async () => {
    const target = join(dir, 'target.json');
    await writeFile(target, JSON.stringify(reference.target));
    const { run, reportDir } = await load('secrets', [
      'command',
      'pipeline',
      '--engine',
      'k6',
      '--segments',
      '2',
      '--duration',
      '1s',
      '--target',
      target,
    ]);
    const report = reportOf(run);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr.slice(-2000));
    // The token reached k6: every request was answered (a missing token is a 401).
    for (const scenario of report.load.scenarios) expectClean(scenario);
    const names = await expectNoSecrets(reference.target, reportDir, run);
    expect(names.sort()).toEqual(['index.html', 'junit.xml', 'report.json', 'summary.md']);
  });
});
