/**
 * The key-value suite against a real third-party implementation installed from npm,
 * `@humanwhocodes/upstash-redis-server` (in the upstash dialect), on a redis-server of its own. Its
 * verdict table, each rule holds / broken / not-checked with the reason reviewed against the spec, is
 * checked in beside this file: any difference fails, so a false failure or a lost true failure of the
 * suite breaks the build.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadRuleCatalog } from '../../src/engines/conformance/rule-catalog.ts';
import { runConformance } from '../../src/engines/conformance/run-conformance.ts';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import type { ConformanceRun } from '../../src/results/conformance-run.ts';
import { fileReporters } from '../engines/conformance/fixture-run.ts';
import { startTestRedis } from '../support/reference-fixture.ts';
import { repoRoot, type StartedProcess, startProcess } from '../support/run-cli.ts';
import { type RuleStatus, ruleStatuses } from './rule-status.ts';

interface VerdictTable {
  readonly implementation: string;
  readonly version: string;
  readonly rules: Readonly<Record<string, { readonly status: RuleStatus; readonly reason: string }>>;
}

const tableFile = join(import.meta.dirname, 'humanwhocodes-upstash-redis-server.verdicts.json');
const token = 'hwc-test-token-0123456789';

let redis: RedisBacking;
let server: StartedProcess;
let dir: string;
let run: ConformanceRun;

async function waitForPort(started: StartedProcess, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const port = /listening (\d+)/.exec(started.stdout())?.[1];
    if (port !== undefined) return Number(port);
    if (Date.now() > deadline || started.child.exitCode !== null)
      throw new Error('the third-party server did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  redis = await startTestRedis();
  server = startProcess('node', [join(repoRoot, 'test/third-party/hwc-server.ts')], {
    env: { URS_TOKEN: token, REDIS_URL: redis.url },
    timeoutMs: 170_000,
  });
  const port = await waitForPort(server, 15_000);
  dir = await mkdtemp(join(tmpdir(), 'svc-hwc-'));
  const target = join(dir, 'hwc.json');
  await writeFile(
    target,
    JSON.stringify({ name: 'hwc', dialect: 'upstash', kv: { url: `http://127.0.0.1:${port}`, token } }),
  );
  run = await runConformance({
    targets: [target],
    areas: ['kv'],
    reportDir: join(dir, 'report'),
    reporters: fileReporters(),
  });
}, 180_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.finished;
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('@humanwhocodes/upstash-redis-server against the key-value suite', () => {
  test('every rule has the status its reviewed verdict table gives', async () => {
    const table = JSON.parse(await readFile(tableFile, 'utf8')) as VerdictTable;
    const catalog = await loadRuleCatalog();
    const measured = ruleStatuses(catalog.byArea('kv'), run.results);
    const differences = Object.entries(measured)
      .filter(([rule, status]) => table.rules[rule]?.status !== status)
      .map(([rule, status]) => {
        const why = run.results
          .filter((result) => result.rules.includes(rule) && result.verdict.kind !== 'pass')
          .map(
            (result) =>
              `${result.caseId}: ${result.verdict.kind} ${'reason' in result.verdict ? result.verdict.reason.slice(0, 200) : ''}`,
          );
        return `${rule}: measured ${status}, table ${table.rules[rule]?.status ?? 'missing'} (${why.join(' | ') || 'all passed'})`;
      });
    expect(differences, differences.join('\n')).toEqual([]);
    expect(Object.keys(table.rules).sort()).toEqual(Object.keys(measured).sort());
  });

  test('the run reports no harness error and no problem', () => {
    const harness = run.results.filter((result) => result.verdict.kind === 'error');
    expect(
      harness.map((result) => `${result.caseId}: ${'reason' in result.verdict ? result.verdict.reason : ''}`),
    ).toEqual([]);
    expect(run.problems).toEqual([]);
  });
});
