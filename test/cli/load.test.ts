/**
 * `svc-harness load` end to end: bad input is one line, exit 2, before anything starts (no report
 * folder, no reference); `--help` lists the options and the scenarios; real runs on the embedded
 * reference write report.json (valid against the schema), summary.md with the batch curve and
 * junit.xml with a testcase per threshold; a failed command-line threshold exits 99; the closed
 * model runs through autocannon.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { escapeXml } from '../../src/reporters/junit-xml.ts';
import { expectLoadCompleted, expectOneLine } from '../support/cli-expect.ts';
import { runCli } from '../support/run-cli.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-load-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface ScenarioEntry {
  readonly name: string;
  readonly model: string;
  readonly engine: string;
  readonly problem: string | null;
  readonly settings: { connections: number; workers: number; rate: number | null; batch: number[] | null };
  readonly requests: { sent: number; completed: number; failed: number; dropped: number };
  readonly tags: readonly { tags: Record<string, string>; requests: { sent: number } }[];
  readonly thresholds: readonly { expression: string; source: string; ok: boolean; value: number | null }[];
}

interface Report {
  readonly exitCode: number;
  readonly gate: string;
  readonly load: { readonly scenarios: readonly ScenarioEntry[] };
}

describe('load: bad input gives one line, exit 2, and starts nothing', () => {
  const cases: readonly { name: string; args: readonly string[]; line: RegExp }[] = [
    { name: 'an unknown scenario', args: ['nosuch'], line: /no scenario "nosuch" \(known: .*command.*\)/ },
    {
      name: 'a threshold without its number',
      args: ['command', '--threshold', 'http_req_duration:p(99)<'],
      line: /threshold "http_req_duration:p\(99\)<": missing the number/,
    },
    {
      name: 'a threshold on an unknown metric',
      args: ['command', '--threshold', 'nosuch:rate<1'],
      line: /threshold "nosuch:rate<1": unknown metric nosuch/,
    },
    {
      name: 'the same threshold twice',
      args: ['command', '--threshold', 'checks:rate>0.5', '--threshold', 'checks: rate > 0.50'],
      line: /duplicate of "checks:rate>0.5"/,
    },
    { name: 'a rate that is not a number', args: ['command', '--rate', 'abc'], line: /--rate "abc"/ },
    { name: 'a ramp stage without a rate', args: ['command', '--ramp', '10s'], line: /--ramp "10s"/ },
    { name: 'a negative duration', args: ['command', '--duration=-1'], line: /--duration "-1"/ },
    {
      name: 'a negative duration as a separate word',
      args: ['command', '--duration', '-1'],
      line: /--duration/,
    },
    {
      name: 'a sink URL with a query',
      args: ['publish-fanout', '--sink-url', 'http://127.0.0.1:9/sink?x=1'],
      line: /--sink-url takes a base URL/,
    },
    {
      name: 'a messaging threshold on a stream that does not exist',
      args: ['publish-fanout', '--threshold', 'messages_lost{stream:deliveries}:count==0'],
      line: /unknown stream deliveries; streams: delivery, callback, failureCallback, waiter/,
    },
    {
      name: 'a rate with the closed model',
      args: ['command', '--model', 'closed', '--rate', '5'],
      line: /closed model has no arrival rate/,
    },
    {
      name: 'the fan-out with the closed model',
      args: ['kv-fanout', '--model', 'closed'],
      line: /kv-fanout accounts for every publish at every subscriber, which needs the open model/,
    },
    {
      name: 'notify-fanout with the closed model',
      args: ['notify-fanout', '--model', 'closed'],
      line: /load: notify-fanout needs the open model: setup creates the waiters of every notify the plan sends/,
    },
    {
      name: 'a parameter without its value',
      args: ['publish-fanout', '--param', 'endpoints'],
      line: /load: --param "endpoints" is not NAME=NUMBER/,
    },
    {
      name: 'a parameter no scenario of the run declares',
      args: ['publish-fanout', 'command', '--param', 'waiters=5'],
      line: /load: --param waiters=5: no scenario of this run declares waiters \(publish-fanout takes endpoints\)/,
    },
    {
      name: 'a parameter out of its bounds',
      args: ['--param', 'fail-share=2'],
      line: /load: --param fail-share=2: callback-throughput's fail-share is a number from 0 to 1/,
    },
  ];

  test.each(cases)('$name', async ({ name, args, line }) => {
    const reportDir = join(dir, `bad-${name.replaceAll(' ', '-')}`);
    const run = await runCli(['load', ...args, '--report-dir', reportDir], { timeoutMs: 20_000 });
    expectOneLine(run, new RegExp(`^svc-harness: .*${line.source}.* \\[SVC_USAGE\\]$`));
    // Checked before anything starts: no report folder, so no run (and no reference) began.
    expect(existsSync(reportDir)).toBe(false);
    expect(run.stdout).toBe('');
  });

  test('a target file that does not exist is one SVC_CONFIG line', async () => {
    const reportDir = join(dir, 'bad-missing-target');
    const run = await runCli(['load', 'command', '--target', join(dir, 'missing.json'), '--report-dir', reportDir], {
      timeoutMs: 20_000,
    });
    expectOneLine(run, /^svc-harness: target file .*missing\.json: no such file \[SVC_CONFIG\]$/);
    expect(existsSync(reportDir)).toBe(false);
  });
});

describe('load --help', () => {
  test('lists the options and the scenario names', async () => {
    const run = await runCli(['load', '--help']);
    expect(run.exitCode).toBe(0);
    for (const option of [
      '--target',
      '--model',
      '--rate',
      '--duration',
      '--ramp',
      '--connections',
      '--workers',
      '--batch',
      '--value-size',
      '--seed',
      '--timeout',
      '--param',
      '--list',
      '--threshold',
      '--report-dir',
      '--reporter',
    ]) {
      expect(run.stdout).toContain(option);
    }
    for (const scenario of ['command', 'pipeline', 'transaction', 'kv-fanout']) expect(run.stdout).toContain(scenario);
  });
});

describe('load --list', () => {
  test('prints every scenario with its parameters and exits 0, starting nothing', async () => {
    const run = await runCli(['load', '--list']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('publish-fanout  (messaging; 20/s for 5 s by default)');
    expect(run.stdout).toMatch(/^ {2}--param endpoints=8 {2}/m);
    expect(run.stdout).toMatch(/^ {2}--param fail-share=0\.05 {2}/m);
    expect(run.stdout).toMatch(/^ {2}--param waiters=100 {2}/m);
    const one = await runCli(['load', 'notify-fanout', '--list']);
    expect(one.stdout).toMatch(/^notify-fanout {2}\(messaging; 2\/s for 5 s by default; open model only\)\n/);
    expect(one.stdout).not.toContain('publish-fanout');
    expectOneLine(await runCli(['load', 'nosuch', '--list']), /no scenario "nosuch"/);
  });
});

describe('load on the embedded reference', () => {
  async function load(name: string, args: readonly string[]) {
    const reportDir = join(dir, name);
    const run = await runCli(['load', ...args, '--report-dir', reportDir], {
      reportDir,
      timeoutMs: 60_000,
      env: { REDIS_URL: '' },
    });
    expect(run.report, run.stderr).toBeDefined();
    expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
    const report = run.report as Report;
    const [scenario] = report.load.scenarios;
    if (!scenario) throw new Error('no scenario in report.json');
    const junit = await readFile(join(reportDir, 'junit.xml'), 'utf8');
    const summary = await readFile(join(reportDir, 'summary.md'), 'utf8');
    return { run, report, scenario, junit, summary };
  }

  test('pipeline with batches 1 and 10: exit 0, tags per batch, the batch curve, a testcase per threshold', async () => {
    const { run, report, scenario, junit, summary } = await load('pipeline', [
      'pipeline',
      '--duration',
      '1s',
      '--rate',
      '20',
      '--batch',
      '1,10',
    ]);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr + run.stdout);
    expect(scenario.problem).toBeNull();
    expect(scenario.settings.batch).toEqual([1, 10]);
    expect(scenario.requests.sent).toBe(20);
    expect(scenario.requests.completed).toBe(20);
    const batches = [...new Set(scenario.tags.map((tag) => tag.tags.batch))].sort();
    expect(batches).toEqual(['1', '10']);
    expect(summary).toContain('Batch-size curve of `pipeline`');
    expect(summary).toMatch(/^\| 1 \|/m);
    expect(summary).toMatch(/^\| 10 \|/m);
    const testcases = junit.match(/<testcase /g) ?? [];
    expect(scenario.thresholds.length).toBeGreaterThan(0);
    expect(testcases).toHaveLength(scenario.thresholds.length);
    for (const threshold of scenario.thresholds) {
      expect(junit).toContain(`<testcase name="${escapeXml(threshold.expression)}"`);
    }
    // A failure only where a threshold failed (a latency one, beside other tests: expectLoadCompleted).
    expect((junit.match(/<failure /g) ?? []).length).toBe(scenario.thresholds.filter((item) => !item.ok).length);
  });

  test('a command-line threshold that fails: exit 99, failed in report.json, a <failure in junit.xml', async () => {
    const { run, report, scenario, junit } = await load('pipeline-threshold', [
      'pipeline',
      '--duration',
      '1s',
      '--rate',
      '20',
      '--batch',
      '1,10',
      '--threshold',
      'http_req_duration:p(99)<0.001',
    ]);
    expect(run.exitCode, run.stderr + run.stdout).toBe(99);
    expect(report.exitCode).toBe(99);
    expect(report.gate).toBe('failed');
    const failed = scenario.thresholds.filter((threshold) => !threshold.ok);
    expect(failed).toEqual([
      expect.objectContaining({ expression: 'http_req_duration: p(99) < 0.001', source: 'cli', ok: false }),
    ]);
    expect(failed[0]?.value).toBeGreaterThan(0.001);
    expect(junit.match(/<failure /g) ?? []).toHaveLength(1);
    expect(junit).toMatch(/<failure type="threshold" message="http_req_duration: p\(99\) &lt; 0\.001: value /);
  });

  test('--model closed --connections 2 runs through autocannon: model "closed", 2 connections, exit 0', async () => {
    const { run, report, scenario } = await load('closed', [
      'command',
      '--model',
      'closed',
      '--connections',
      '2',
      '--duration',
      '1s',
    ]);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr + run.stdout);
    expect(scenario.model).toBe('closed');
    expect(scenario.engine).toBe('node');
    expect(scenario.settings.connections).toBe(2);
    expect(scenario.settings.rate).toBeNull();
    expect(scenario.problem).toBeNull();
    expect(scenario.requests.completed).toBeGreaterThan(0);
    expect(scenario.requests.sent).toBe(scenario.requests.completed + scenario.requests.failed);
  });

  test('--workers 2 splits one schedule exactly: every arrival sent once, none dropped; plain progress lines off a terminal', async () => {
    const { run, report, scenario } = await load('workers', [
      'command',
      '--workers',
      '2',
      '--rate',
      '40',
      '--duration',
      '6s',
    ]);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr + run.stdout);
    expect(scenario.settings.workers).toBe(2);
    // 40/s for 6 s: 240 arrivals, each sent by exactly one of the two threads.
    expect(scenario.requests.sent).toBe(240);
    expect(scenario.requests.dropped).toBe(0);
    // Not a terminal: a plain line every 5 s (elapsed, rate, p99, errors, drops), no rewritten line.
    expect(run.stderr).toMatch(/command: 5\/6 s · \d+ req\/s · p99 \(last second\) [\d.]+ ms · errors 0 · dropped 0\n/);
    expect(run.stderr).not.toContain('\r');
  });

  test('--param endpoints=3: a group of 3, each publish delivered 3 times, the params in report.json', async () => {
    const { run, report, scenario } = await load('param', [
      'publish-fanout',
      '--param',
      'endpoints=3',
      '--rate',
      '5',
      '--duration',
      '1s',
    ]);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr + run.stdout);
    const entry = scenario as ScenarioEntry & {
      settings: { params: Record<string, number> | null };
      messaging: { accepted: number; delivery: { expected: number; received: number; byTags: unknown[] } };
    };
    expect(entry.settings.params).toEqual({ endpoints: 3 });
    expect(entry.messaging.accepted).toBe(5);
    expect(entry.messaging.delivery).toMatchObject({ expected: 15, received: 15 });
    expect(entry.messaging.delivery.byTags).toHaveLength(3);
  });

  test('the same --seed sends the same requests', async () => {
    const mix = async (name: string) => {
      const { scenario } = await load(name, ['command', '--seed', '7', '--rate', '100', '--duration', '1s']);
      return Object.fromEntries(scenario.tags.map((tag) => [tag.tags.op ?? '', tag.requests.sent]));
    };
    const first = await mix('seed-1');
    expect(Object.keys(first).sort()).toEqual(['GET', 'SET']);
    expect(await mix('seed-2')).toEqual(first);
  });
});
