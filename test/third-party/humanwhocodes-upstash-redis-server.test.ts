/**
 * The key-value suite against a real third-party implementation installed from npm,
 * `@humanwhocodes/upstash-redis-server` (in the upstash dialect), on a redis-server of its own. Its
 * verdict table, one row per case (the verdict and the rule it blames, with the reason reviewed against
 * the spec), is checked in beside this file: any difference fails, so a false failure, a lost true
 * failure or a failure blamed on the wrong rule breaks the build. With SVC_UPDATE_VERDICTS=1 the test
 * rewrites the table to the run (unchanged rows keep their reasons, the others are marked UNREVIEWED)
 * and still fails until every row is reviewed.
 *
 * The run has the reference as a second target, so its report is the worked example of the rules ×
 * implementations matrix (summary.md and index.html): the rules where the two disagree come first.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runConformance } from '../../src/engines/conformance/run-conformance.ts';
import { type EmbeddedReference, startEmbeddedReference } from '../../src/reference/embedded.ts';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import { createReporters } from '../../src/reporters/registry.ts';
import type { ConformanceRun } from '../../src/results/conformance-run.ts';
import { startTestRedis } from '../support/reference-fixture.ts';
import { repoRoot, type StartedProcess, startProcess } from '../support/run-cli.ts';
import { measuredVerdicts, tableDifferences, unreviewed, updatedTable, type VerdictTable } from './case-verdicts.ts';

const tableFile = join(import.meta.dirname, 'humanwhocodes-upstash-redis-server.verdicts.json');
const token = 'hwc-test-token-0123456789';
const database = 3;

let redis: RedisBacking;
let server: StartedProcess;
let dir: string;
let run: ConformanceRun;
let reference: EmbeddedReference;
/** The third party's results alone (the reference's are the matrix's other column). */
let results: ConformanceRun['results'];

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
    // Database 3, not 0: it runs every command on ONE ioredis connection, so `SELECT 0` of the refusal
    // case really moves it, and the case must put it back (see the last test).
    env: { URS_TOKEN: token, REDIS_URL: `${redis.url.replace(/\/+$/, '')}/${database}` },
    timeoutMs: 170_000,
  });
  const port = await waitForPort(server, 15_000);
  dir = await mkdtemp(join(tmpdir(), 'svc-hwc-'));
  const target = join(dir, 'hwc.json');
  await writeFile(
    target,
    JSON.stringify({ name: 'hwc', dialect: 'upstash', kv: { url: `http://127.0.0.1:${port}`, token } }),
  );
  reference = await startEmbeddedReference([], ['kv']);
  const referenceTarget = join(dir, 'reference.json');
  await writeFile(referenceTarget, JSON.stringify({ ...reference.target, name: 'reference' }));
  run = await runConformance({
    targets: [target, referenceTarget],
    areas: ['kv'],
    reportDir: join(dir, 'report'),
    reporters: createReporters(['json', 'junit', 'markdown', 'html']),
  });
  results = run.results.filter((result) => result.target === 'hwc');
}, 240_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.finished;
  await reference?.stop();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('@humanwhocodes/upstash-redis-server against the key-value suite', () => {
  test('every case has the verdict and blames the rule its reviewed verdict table gives', async () => {
    const table = JSON.parse(await readFile(tableFile, 'utf8')) as VerdictTable;
    const measured = measuredVerdicts(results);
    const reasonOf = (id: string) => {
      const verdict = results.find((result) => result.caseId === id)?.verdict;
      return verdict && 'reason' in verdict ? verdict.reason.slice(0, 300) : '';
    };
    const differences = tableDifferences(table, measured, reasonOf);
    if (differences.length > 0 && process.env.SVC_UPDATE_VERDICTS === '1') {
      await writeFile(tableFile, `${JSON.stringify(updatedTable(table, measured, reasonOf), null, 2)}\n`);
    }
    expect(differences, differences.join('\n')).toEqual([]);
    const pending = Object.entries(table.cases).filter(([, row]) => row.reason.startsWith(unreviewed));
    expect(
      pending.map(([id]) => id),
      'rows still to review against the spec',
    ).toEqual([]);
  });

  test('the SELECT it runs on its shared connection is undone, so later cases see the same database', () => {
    const select = results.find((result) => result.caseId === 'kv.commands.refused.select');
    expect(select?.verdict).toMatchObject({ kind: 'fail', rule: 'B.commands.connection-only-ping-echo' });
    expect(select?.notes.join('\n')).toContain(`database ${database} selected again`);
  });

  test('the rules × implementations matrix puts the rules where they disagree first, and links a failing cell to its case', async () => {
    const summary = await readFile(join(dir, 'report', 'summary.md'), 'utf8');
    const matrix = summary.slice(summary.indexOf('Rules × implementations'));
    expect(matrix).toMatch(/^\d+ of \d+ rules where the implementations disagree:/m);
    // SELECT is refused by the reference and run by the third party: a rule they disagree on.
    const row = matrix.split('\n').find((line) => line.includes('`B.commands.connection-only-ping-echo`'));
    expect(row).toMatch(
      /^\| ⚠ `B\.commands\.connection-only-ping-echo` \| \*\*fail\*\* \(.*`kv\.commands\.refused\.select`.*\) \| pass \|$/,
    );
    const html = await readFile(join(dir, 'report', 'index.html'), 'utf8');
    const link =
      /<tr class="disagree"><td>⚠ <code>B\.commands\.connection-only-ping-echo<\/code><\/td><td class="bad"[^>]*><a href="#([^"]+)">/.exec(
        html,
      );
    expect(link, 'a link from the failing cell').not.toBeNull();
    expect(html).toContain(`id="${link?.[1]}"`);
  });

  test('the run reports no harness error and no problem', () => {
    const harness = run.results.filter((result) => result.verdict.kind === 'error');
    expect(
      harness.map((result) => `${result.caseId}: ${'reason' in result.verdict ? result.verdict.reason : ''}`),
    ).toEqual([]);
    expect(run.problems).toEqual([]);
  });
});
