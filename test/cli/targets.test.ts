/**
 * Where every command's target comes from, end to end on real processes: the SVC_* environment
 * (a CI gate configured by environment must test THAT implementation, not the embedded reference),
 * a file winning over it with one line saying so, and the gates that must not pass without judging:
 * an area the target lacks, a run whose cases all ended skipped.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/reference-service.ts';
import { expectOneLine } from '../support/cli-expect.ts';
import { runCli } from '../support/run-cli.ts';

interface TargetEntry {
  readonly name: string;
  readonly embedded: boolean;
  readonly description: { readonly kv?: { readonly url: string } };
  readonly rootCause: { readonly cause: string; readonly cases: number; readonly of: number } | null;
  readonly cases: readonly { readonly verdict: { readonly kind: string } }[];
}
interface Report {
  readonly exitCode: number;
  readonly problems: readonly string[];
  readonly targets?: readonly TargetEntry[];
  readonly load?: {
    readonly target: string;
    readonly embedded: boolean;
    readonly scenarios: readonly { requests: { completed: number } }[];
  };
}

let dir: string;
let reference: RunningReference;
/** The SVC_* variables of the running reference's kv area. */
let kvEnv: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-targets-'));
  reference = await startReference({ areas: ['kv'] });
  const kv = reference.target.kv;
  if (!kv) throw new Error('the reference serves no kv area');
  kvEnv = { SVC_KV_URL: kv.url, SVC_KV_TOKEN: kv.token };
}, 60_000);
afterAll(async () => {
  await reference?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function cli(name: string, args: readonly string[], env: Record<string, string>, timeoutMs = 90_000) {
  const reportDir = join(dir, name);
  const run = await runCli([...args, '--report-dir', reportDir], { reportDir, env, timeoutMs });
  return { run, report: run.report as Report | undefined };
}

describe('SVC_* environment targets', () => {
  test('conformance tests the server the environment names, and says so', async () => {
    const { run, report } = await cli(
      'env-conformance',
      ['conformance', '--area', 'kv', '--rules', 'B.status.ok-200'],
      {
        ...kvEnv,
        SVC_TARGET_NAME: 'from-env',
      },
    );
    expect(run.exitCode, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toContain(`conformance: target from-env from the environment (SVC_*): kv ${kvEnv.SVC_KV_URL}`);
    const [target] = report?.targets ?? [];
    expect(target).toMatchObject({ name: 'from-env', embedded: false, description: { kv: { url: kvEnv.SVC_KV_URL } } });
    expect(run.stdout).toContain('from-env: ');
    expect(run.stdout + run.stderr).not.toContain(kvEnv.SVC_KV_TOKEN);
  }, 120_000);

  test('a wrong SVC_KV_TOKEN fails the run (the environment is what is tested), the 401 named once, first', async () => {
    const { run, report } = await cli('env-wrong-token', ['conformance', '--area', 'kv'], {
      ...kvEnv,
      SVC_KV_TOKEN: 'not-the-token',
    });
    expect(run.exitCode, run.stdout).toBe(1);
    const [target] = report?.targets ?? [];
    expect(target?.rootCause).toMatchObject({ cause: 'status 401' });
    expect(target?.rootCause?.cases).toBeGreaterThanOrEqual(0.8 * (target?.rootCause?.of ?? 0));
    const first = run.stdout.split('\n')[0];
    expect(first).toMatch(
      /^root cause: environment: \d+ of \d+ cases that failed, blocked or ended in error saw status 401: check the token/,
    );
    expect(run.stdout.match(/root cause:/g)).toHaveLength(1);
  }, 120_000);

  test('load runs against the environment target and names it', async () => {
    const { run, report } = await cli(
      'env-load',
      ['load', 'command', '--duration', '1s', '--rate', '20', '--threshold', 'http_reqs: count>0'],
      kvEnv,
    );
    expect(run.stderr).toContain(`load: target environment from the environment (SVC_*): kv ${kvEnv.SVC_KV_URL}`);
    expect(report?.load).toMatchObject({ target: 'environment', embedded: false });
    expect(report?.load?.scenarios[0]?.requests.completed).toBeGreaterThan(0);
    expect(run.stderr).not.toContain('embedded reference');
  }, 120_000);

  test('run: conformance and load both against the environment target, named once', async () => {
    const { run, report } = await cli('env-run', ['run', '--duration', '1s'], kvEnv, 220_000);
    expect(run.stderr.match(/from the environment/g), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain(`run: target environment from the environment (SVC_*): kv ${kvEnv.SVC_KV_URL}`);
    expect(report?.targets?.[0]).toMatchObject({ name: 'environment', embedded: false });
    expect(report?.load).toMatchObject({ target: 'environment', embedded: false });
    expect(report?.load?.scenarios.length).toBeGreaterThan(0);
    expect(run.stdout).not.toContain('embedded reference');
  }, 240_000);

  test('k6 manifest takes the kv URL from SVC_KV_URL; its token stays out of the manifest', async () => {
    const out = join(dir, 'manifest.yaml');
    const run = await runCli(['k6', 'manifest', 'command', '--out', out], { env: kvEnv, timeoutMs: 60_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `k6 manifest: target environment from the environment (SVC_*): kv ${kvEnv.SVC_KV_URL}`,
    );
    const manifest = await readFile(out, 'utf8');
    expect(manifest).toContain(kvEnv.SVC_KV_URL);
    expect(manifest).not.toContain(kvEnv.SVC_KV_TOKEN);
  }, 90_000);

  test('a target file wins over the environment, with one line naming what was ignored', async () => {
    const file = join(dir, 'file-target.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'from-file', kv: { url: kvEnv.SVC_KV_URL, token: kvEnv.SVC_KV_TOKEN } }),
    );
    const { run, report } = await cli(
      'file-wins',
      ['conformance', '--target', file, '--area', 'kv', '--rules', 'B.status.ok-200'],
      { SVC_KV_URL: 'http://127.0.0.1:1', SVC_KV_TOKEN: 'env-token' },
    );
    expect(run.exitCode, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toContain(
      `conformance: --target ${file} wins over the environment's target; ignored: SVC_KV_URL, SVC_KV_TOKEN`,
    );
    expect(report?.targets?.map((target) => target.name)).toEqual(['from-file']);
  }, 120_000);

  test('a malformed environment target is one SVC_CONFIG line', async () => {
    const run = await runCli(['conformance', '--area', 'kv'], { env: { SVC_KV_URL: 'ftp://nowhere' } });
    expectOneLine(run, /^svc-harness: target environment \(SVC_\*\): kv.* \[SVC_CONFIG\]$/);
  });
});

describe('gates that would pass without judging', () => {
  // The time allowed is for a busy CI machine (the package and image tests build beside it), not the command.
  test('--area messaging against a kv-only target: one SVC_CONFIG line, exit 2, nothing run', async () => {
    const run = await runCli(['conformance', '--area', 'messaging'], { env: kvEnv, timeoutMs: 110_000 });
    // One line: the environment's target is told only once the run's checks passed.
    const lines = run.stderr.split('\n').filter((line) => line !== '');
    expect(lines, run.stderr).toEqual([
      'svc-harness: conformance: --area messaging: the target environment has no messaging area (it has kv) [SVC_CONFIG]',
    ]);
    expect(run.exitCode).toBe(2);
  }, 120_000);

  test('a run whose every case was skipped judged nothing: exit 2 with one line', async () => {
    // The reference's kv target without its admin endpoint: the daily-limit case needs it, and skips.
    const { run, report } = await cli(
      'all-skipped',
      ['conformance', '--area', 'kv', '--rules', 'B.limits.daily-limit'],
      kvEnv,
    );
    expect(report?.targets?.[0]?.cases.map((result) => result.verdict.kind)).toEqual(['skip']);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toContain('gate: error (exit code 2)');
    expect(report?.problems).toEqual([
      expect.stringMatching(/^environment: judged nothing: none of its 1 cases passed or failed \(1 skip\); first: /),
    ]);
  }, 120_000);
});
