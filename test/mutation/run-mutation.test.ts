/**
 * The mutation runner end to end, as CI runs it but tiny: the key-value suite's auth and pipeline
 * cases recorded through the proxies of two real references, three mutants run through the CLI, the
 * score printed. Also: bad options are one line and exit 2.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type CliRun, repoRoot, startProcess } from '../support/run-cli.ts';
import type { MutantResult } from './mutant-run.ts';

const script = join(repoRoot, 'test', 'mutation', 'run-mutation.ts');
const caughtIds = ['auth.missing-accepted @ kv POST /pipeline', 'status.2xx-to-500 @ kv POST /pipeline'];
const thirdId = 'json.items-reversed@0 @ kv POST /pipeline';
let dir = '';
let run: CliRun;
let results: MutantResult[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-mutation-test-'));
  const out = join(dir, 'results.json');
  const only = [...caughtIds, thirdId].flatMap((id) => ['--only', id]);
  run = await startProcess(
    'node',
    [script, '--area', 'kv', '--rules', 'B.pipeline.*,B.auth.*', ...only, '--out', out],
    { timeoutMs: 170_000 },
  ).finished;
  results = JSON.parse(await readFile(out, 'utf8').catch(() => '[]')) as MutantResult[];
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a tiny mutation run on the key-value suite', () => {
  test('records the clean run, runs exactly the three mutants asked for and exits 0', () => {
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^clean kv: \d+ cases, \d+ exchanges recorded$/m);
    expect(results.map((item) => item.mutant.id).sort()).toEqual([...caughtIds, thirdId].sort());
  });

  test('auth relaxed and a status changed on /pipeline fire and are caught by a failing case', () => {
    for (const id of caughtIds) {
      const result = results.find((item) => item.mutant.id === id);
      expect(result?.fired, id).toBeGreaterThan(0);
      expect(result?.outcome, `${id}: ${result?.detail.join('; ')}`).toBe('caught');
      expect(result?.detail.join(' ')).toMatch(/\[B\.[a-z.-]+/);
    }
    const auth = results.find((item) => item.mutant.id === caughtIds[0]);
    expect(auth?.detail.join(' ')).toContain('B.auth.');
  });

  test('the third fires and is judged (caught or survived, never an error)', () => {
    const third = results.find((item) => item.mutant.id === thirdId);
    expect(third?.fired).toBeGreaterThan(0);
    expect(['caught', 'survived']).toContain(third?.outcome);
  });

  test('prints the table per family and area and the score, with no secret', async () => {
    expect(run.stdout).toMatch(/^family\s+area\s+tried\s+fired\s+caught\s+survived\s+equivalent\s+error\s+not fired$/m);
    expect(run.stdout).toMatch(/^auth\s+kv\s+1\s+1\s+1\s+0/m);
    expect(run.stdout).toMatch(/^mutation score: \d+ caught of \d+ fired/m);
    // The proxied target's tokens never appear: the lines name method, path and status only.
    expect(run.stdout).not.toMatch(/Bearer|token=/);
  });
});

describe('a saved run', () => {
  test('--rescore prints the score of an --out file again', async () => {
    const out = join(dir, 'results.json');
    const again = await startProcess('node', [script, '--rescore', out], { timeoutMs: 20_000 }).finished;
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^auth\s+kv\s+1\s+1\s+1\s+0/m);
  });
});

describe('bad options', () => {
  test.each([
    [['--area', 'nope'], /--area: unknown area "nope"/],
    [['--max', '0'], /--max must be a positive integer/],
    [['--all', '--max', '3'], /--all and --max exclude each other/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['--rescore', '/nonexistent/results.json'], /--rescore \/nonexistent\/results.json: ENOENT/],
  ])('%j', async (args, message) => {
    const bad = await startProcess('node', [script, ...args], { timeoutMs: 20_000 }).finished;
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(message);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(bad.stdout).toBe('');
  });
});
