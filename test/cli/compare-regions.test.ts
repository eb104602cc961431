/**
 * `compare`, `--baseline` and `regions` as users run them, against real references (`serve`): a
 * known slowdown (`--kv-latency`) caught and exiting 98 with every report showing it, identical reports
 * unchanged, a fault switch's rule listed as newly failing, regions with injected latency ranked and two
 * equal regions not told apart, and bad input as one line.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { waitFor } from '../support/processes.ts';
import { runCli, type StartedProcess, startCli } from '../support/run-cli.ts';

const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

let dir: string;
const servers: StartedProcess[] = [];

async function serve(name: string, args: readonly string[]): Promise<string> {
  const target = join(dir, `${name}.json`);
  const started = startCli(['serve', '--retry-backoff', '10ms', '--write-target', target, ...args], {
    timeoutMs: 600_000,
  });
  servers.push(started);
  if (!(await waitFor(() => started.stdout().includes('Stop with Ctrl-C'), 60_000))) {
    throw new Error(`serve ${name} did not start: ${started.stdout()}`);
  }
  return target;
}

let base: string;
let slow: string;
let regional: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-compare-'));
  [base, slow, regional] = await Promise.all([
    serve('base', ['--kv-latency', '2ms']),
    // 13 ms slower than the base: past the 5 ms latency floor with room on a busy machine.
    serve('slow', ['--kv-latency', '15ms']),
    serve('regional', ['--regions', 'eu-central-1,us-east-1', '--region-latency', 'eu-central-1=2ms,us-east-1=40ms']),
  ]);
}, 120_000);

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.finished));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const load = (target: string, reportDir: string, extra: readonly string[] = []) =>
  runCli(
    ['load', 'command', '--target', target, '--duration', '3s', '--rate', '100', '--report-dir', reportDir, ...extra],
    {
      timeoutMs: 120_000,
      reportDir,
    },
  );

describe('baseline comparison', () => {
  test('load --baseline: a slowdown regresses p50, exits 98, and every report shows it', async () => {
    const baseline = join(dir, 'baseline');
    expect((await load(base, baseline)).exitCode).toBe(0);
    const current = join(dir, 'current');
    const done = await load(slow, current, ['--baseline', baseline]);
    expect(done.exitCode, done.stderr).toBe(98);
    expect(done.stdout).toMatch(/^compare: REGRESSED against the baseline: .*command p50/m);
    expect(done.stdout).toMatch(/gate: failed \(exit code 98\)/);
    expect(validate(done.report), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    const compare = (
      done.report as {
        compare: { regressed: boolean; scenarios: { metrics: { metric: string; verdict: string }[] }[] };
      }
    ).compare;
    expect(compare.regressed).toBe(true);
    const verdicts = Object.fromEntries(compare.scenarios[0]?.metrics.map((m) => [m.metric, m.verdict]) ?? []);
    // The median moves from about 3 ms to about 11 ms; p90 and p99 of 300 requests on a machine other
    // tests share may stay inside their intervals, and are not asserted.
    expect(verdicts).toMatchObject({ p50: 'regressed', 'error-rate': 'unchanged' });
    const summary = await readFile(join(current, 'summary.md'), 'utf8');
    expect(summary).toContain('## Against the baseline');
    expect(summary).toMatch(/\| command \| {2}\| p50 \| .* \| \*\*regressed\*\* \|/);
    const html = await readFile(join(current, 'index.html'), 'utf8');
    expect(html).toContain('id="compare"');
    expect(html).toContain('data-chart="compare-command-0"');
  }, 260_000);

  test('compare: identical reports are unchanged (exit 0); two runs of the slow one against the fast exit 98, as JSON and into files', async () => {
    const baseline = join(dir, 'baseline');
    const current = join(dir, 'current');
    const same = await runCli(['compare', baseline, join(baseline, 'report.json')]);
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/compare: no regression against the baseline/);
    const json = await runCli(['compare', baseline, current, '--json', '--report-dir', join(dir, 'compared')]);
    expect(json.exitCode).toBe(98);
    expect(JSON.parse(json.stdout).regressed).toBe(true);
    expect(await readFile(join(dir, 'compared', 'compare.md'), 'utf8')).toContain('## Against the baseline');
    const tolerant = await runCli([
      'compare',
      baseline,
      current,
      '--tolerance',
      'p50=1000%',
      '--tolerance',
      'p90=1000%',
      '--tolerance',
      'p99=1000%',
    ]);
    expect(tolerant.exitCode, tolerant.stdout).toBe(0);
  }, 60_000);

  test('compare of two conformance reports lists the rule a fault switch breaks as newly failing', async () => {
    const run = (reportDir: string, extra: readonly string[]) =>
      runCli(['conformance', '--area', 'kv', '--rules', 'B.pipeline.*', '--report-dir', reportDir, ...extra], {
        timeoutMs: 180_000,
      });
    expect((await run(join(dir, 'conf-a'), [])).exitCode).toBe(0);
    expect((await run(join(dir, 'conf-b'), ['--fault', 'pipeline-reversed-order'])).exitCode).toBe(1);
    const done = await runCli(['compare', join(dir, 'conf-a'), join(dir, 'conf-b')]);
    expect(done.exitCode).toBe(98);
    expect(done.stdout).toMatch(/newly failing +reference: B\.pipeline\.order \(pass → fail\)/);
    expect(done.stdout).toMatch(/0 newly passing, 0 newly blocked/);
  }, 400_000);

  test('bad input is one line and exit 2', async () => {
    const baseline = join(dir, 'baseline');
    const cases: [readonly string[], RegExp][] = [
      [
        ['compare', baseline, join(dir, 'nowhere')],
        /^svc-harness: current report .*nowhere: no such file or folder \[SVC_CONFIG\]$/,
      ],
      [['compare', baseline], /^svc-harness: compare: expected BASELINE CURRENT .*got 1 \[SVC_USAGE\]$/],
      [
        ['compare', baseline, baseline, '--tolerance', 'p99=lots'],
        /^svc-harness: --tolerance "p99=lots": expected METRIC=VALUE/,
      ],
      [['load', '--tolerance', 'p99=10%'], /^svc-harness: --tolerance needs --baseline \[SVC_USAGE\]$/],
    ];
    const notReport = join(dir, 'not-a-report.json');
    await writeFile(notReport, '{"hello": 1}');
    cases.push([
      ['compare', notReport, baseline],
      /^svc-harness: baseline .*not-a-report\.json: not an svc-harness report\.json \(.*\) \[SVC_CONFIG\]$/,
    ]);
    for (const [args, line] of cases) {
      const done = await runCli(args);
      expect(done.exitCode, args.join(' ')).toBe(2);
      expect(done.stderr.trim(), args.join(' ')).toMatch(line);
    }
  }, 60_000);
});

describe('regions', () => {
  test("2 ms against 40 ms: ranked, and the first beats the second beyond the noise (10 ms apart was within a slow, busy machine's noise)", async () => {
    const reportDir = join(dir, 'regions');
    const done = await runCli(
      ['regions', '--target', regional, '--duration', '4s', '--rounds', '8', '--report-dir', reportDir],
      {
        timeoutMs: 120_000,
        reportDir,
      },
    );
    expect(done.exitCode, done.stderr).toBe(0);
    expect(validate(done.report), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    const regions = (
      done.report as {
        regions: { ranking: string[]; significant: boolean; operations: { region: string; operation: string }[] };
      }
    ).regions;
    expect(regions.ranking).toEqual(['eu-central-1', 'us-east-1']);
    expect(regions.significant).toBe(true);
    expect(regions.operations.map((item) => `${item.region} ${item.operation}`).sort()).toEqual([
      'eu-central-1 publish',
      'eu-central-1 publish → delivery',
      'us-east-1 publish',
      'us-east-1 publish → delivery',
    ]);
    expect(done.stdout).toMatch(/regions: eu-central-1 is faster than us-east-1 by .* beyond the noise/);
    expect(await readFile(join(reportDir, 'index.html'), 'utf8')).toContain('id="regions"');
  }, 130_000);

  test('two regions on the same server: no significant difference', async () => {
    const target = JSON.parse(await readFile(base, 'utf8')) as { kv: { url: string; token: string } };
    const equal = join(dir, 'equal.json');
    await writeFile(
      equal,
      JSON.stringify({
        name: 'equal',
        kv: { ...target.kv, regions: { 'region-a': target.kv.url, 'region-b': target.kv.url } },
      }),
    );
    const reportDir = join(dir, 'equal-regions');
    const done = await runCli(
      ['regions', '--target', equal, '--duration', '4s', '--rounds', '8', '--report-dir', reportDir],
      {
        timeoutMs: 120_000,
        reportDir,
      },
    );
    expect(done.exitCode, done.stderr).toBe(0);
    const regions = (done.report as { regions: { significant: boolean; operations: unknown[] } }).regions;
    expect(regions.significant).toBe(false);
    expect(regions.operations).toHaveLength(6);
    expect(done.stdout).toMatch(/do not differ beyond the noise/);
  }, 130_000);
});
