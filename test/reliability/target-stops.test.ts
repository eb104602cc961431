/**
 * A target that crashes mid-suite (issue 35, item 7): `serve` is killed (SIGKILL, no goodbye) while the
 * key-value suite runs against it. The cases left end at once as "not run", and both their reason and
 * the root cause say the target stopped answering during the run, after which case and when, instead
 * of "connection refused: nothing listens at a target URL" as for a URL where nothing ever listened.
 */
import { readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { alive, redisChildren, waitFor } from '../support/processes.ts';
import { type CliRun, type StartedProcess, startCli } from '../support/run-cli.ts';

interface ReportCase {
  readonly id: string;
  readonly verdict: { readonly kind: string; readonly reason?: string };
}
interface Report {
  readonly targets: {
    readonly rootCause: { readonly cause: string; readonly hint: string; readonly line: string } | null;
    readonly cases: readonly ReportCase[];
  }[];
}

let dir = '';
let serve: StartedProcess | undefined;
let redis: number[] = [];
let folders: string[] = [];
let run: CliRun;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-target-stops-'));
  const file = join(dir, 'target.json');
  // Its own redis-server (no REDIS_URL), removed below; every answer 20 ms late, so the suite runs
  // about 30 s and is well under way at its first progress line (every 10 s).
  serve = startCli(['serve', '--kv-latency', '20ms', '--write-target', file], {
    timeoutMs: 200_000,
    env: { REDIS_URL: '' },
  });
  const started = serve;
  if (!(await waitFor(() => started.stdout().includes('Stop with Ctrl-C'), 30_000))) {
    throw new Error(`serve did not start: ${started.stdout()}`);
  }
  redis = redisChildren(started.child.pid ?? 0);
  // Its folder, which a killed serve cannot remove.
  folders = redis.flatMap((pid) => {
    try {
      return [readlinkSync(`/proc/${pid}/cwd`)];
    } catch {
      return [];
    }
  });
  const reportDir = join(dir, 'report');
  const conformance = startCli(['conformance', '--area', 'kv', '--target', file, '--report-dir', reportDir], {
    reportDir,
    timeoutMs: 150_000,
  });
  // The progress line (every 10 s, on stderr without a terminal) says cases have run.
  let progress = '';
  conformance.child.stderr?.on('data', (chunk: Buffer) => {
    progress += chunk.toString();
  });
  // Killed once a progress line says at least 20 cases are done (slower beside other work: a later line).
  const done = () => Math.max(0, ...[...progress.matchAll(/conformance: \[(\d+)\//g)].map((match) => Number(match[1])));
  const underWay = await waitFor(() => done() >= 20, 90_000);
  started.child.kill('SIGKILL');
  if (!underWay) throw new Error(`no progress line before the end: ${conformance.stdout()}`);
  run = await conformance.finished;
}, 240_000);

afterAll(async () => {
  serve?.child.kill('SIGKILL');
  for (const pid of redis) if (alive(pid)) process.kill(pid, 'SIGTERM');
  await waitFor(() => redis.every((pid) => !alive(pid)), 5_000);
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a target killed mid-suite', () => {
  test('the root cause says it stopped answering during the run: its last answer, the first case with none, when', () => {
    expect(run.exitCode, run.stdout.slice(-2000)).toBe(2);
    const [target] = (run.report as Report).targets;
    const cases = target?.cases ?? [];
    const byId = new Map(cases.map((item) => [item.id, item]));
    const cause = target?.rootCause;
    expect(cause?.cause, run.stdout.slice(-2000)).toBe('the target stop answering during the run');
    const stamp = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
    const said = cause?.hint.match(
      new RegExp(
        `^its last answer came at (${stamp}) \\(to ([\\w.-]+)\\); the first case to get none: ([\\w.-]+), at (${stamp})`,
      ),
    );
    expect(said, cause?.hint).not.toBeNull();
    const [, lastAt, lastCase, firstCase, firstAt] = said as RegExpMatchArray;
    // The case that got the last answer is one that ran; the first with none ended without one.
    expect(byId.get(lastCase ?? '')?.verdict.kind).toMatch(/^(pass|observation|fail|blocked|error)$/);
    expect(byId.get(firstCase ?? '')?.verdict.kind).toBe('error');
    expect(Date.parse(firstAt ?? '')).toBeGreaterThanOrEqual(Date.parse(lastAt ?? ''));
    expect(run.stdout).toContain(`root cause: ${cause?.line.replace(/^root cause: /, '')}`);
    expect(run.stdout).not.toContain('nothing listens at a target URL');
  });

  test('the cases left are not run, each saying when the target stopped, and some ran before it', () => {
    const cases = (run.report as Report).targets[0]?.cases ?? [];
    const notRun = cases.filter((item) => item.verdict.reason?.startsWith('not run: the target stopped answering'));
    expect(notRun.length).toBeGreaterThan(0);
    for (const item of notRun) {
      expect(item.verdict.kind).toBe('error');
      expect(item.verdict.reason).toMatch(/during the run: its last answer came at .+; the first case to get none: /);
    }
    expect(cases.filter((item) => item.verdict.kind === 'pass').length).toBeGreaterThanOrEqual(15);
  });
});
