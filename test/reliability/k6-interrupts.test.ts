/**
 * Interrupting a k6 load run: SIGINT to the harness while `load command --engine k6 --duration 20s`
 * is sending. The harness passes it on to its k6 process, exits with code 2 well before the 20 s are
 * up, and writes a report marked interrupted that keeps what k6 measured until then (every request
 * sent is counted as answered or failed). Nothing it started is left: no k6 process, no k6 run
 * folder, no redis-server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { findK6, type K6Binary } from '../../src/engines/load/k6/k6-binary.ts';
import { alive, redisChildren, waitFor } from '../support/processes.ts';
import { startCli } from '../support/run-cli.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

let dir: string;
let k6: K6Binary;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-k6-interrupts-'));
  k6 = await findK6({ build: false });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The children of `pid` running `program`, with their command lines. */
function childrenRunning(pid: number, program: string): { pid: number; args: string }[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' });
    return out
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null && (match[2] ?? '').startsWith(program))
      .map((match) => ({ pid: Number(match[1]), args: match[2] ?? '' }));
  } catch {
    return [];
  }
}

/** Live processes whose command line mentions `text` (pgrep -f), other than zombies. */
function running(text: string): number[] {
  try {
    const out = execFileSync('pgrep', ['-f', text], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => alive(pid));
  } catch {
    // pgrep exits 1 when nothing matches.
    return [];
  }
}

interface Report {
  readonly aborted: string | null;
  readonly exitCode: number;
  readonly gate: string;
  readonly load: {
    readonly aborted: string | null;
    readonly scenarios: readonly {
      readonly name: string;
      readonly engine: string;
      readonly problem: string | null;
      readonly settings: { readonly k6Version: string | null };
      readonly requests: { sent: number; completed: number; failed: number; dropped: number };
      readonly series: readonly unknown[];
    }[];
  };
}

describe('interrupting a k6 load run', () => {
  test('SIGINT during `load command --engine k6 --duration 20s`: exit 2, an interrupted report with the counts, no k6 or redis-server left', async () => {
    const reportDir = join(dir, 'k6-sigint');
    const run = startCli(['load', 'command', '--engine', 'k6', '--duration', '20s', '--report-dir', reportDir], {
      timeoutMs: 45_000,
      env: { REDIS_URL: '' },
    });
    const pid = run.child.pid ?? 0;
    expect(await waitFor(() => redisChildren(pid).length > 0, 20_000)).toBe(true);
    const [redis] = redisChildren(pid);
    expect(await waitFor(() => childrenRunning(pid, k6.path).length > 0, 20_000)).toBe(true);
    const [k6Child] = childrenRunning(pid, k6.path);
    // k6 runs the harness's generated entry from a run folder of its own.
    const entry = /(\S+\/svc-harness-k6-[^/\s]+)\/entry\.ts/.exec(k6Child?.args ?? '');
    expect(entry, k6Child?.args).not.toBeNull();
    const runFolder = entry?.[1] ?? '';
    // k6 takes a moment to start its VUs; two seconds later hundreds of requests have been sent.
    await sleep(2_500);
    expect(alive(k6Child?.pid ?? 0)).toBe(true);
    const signalledAt = performance.now();
    run.child.kill('SIGINT');
    const done = await run.finished;
    expect(done.exitCode, done.stderr).toBe(2);
    expect(performance.now() - signalledAt).toBeLessThan(15_000);
    expect(done.stderr).toContain('SIGINT: stopping the run');

    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as Report;
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.exitCode).toBe(2);
    expect(report.gate).toBe('error');
    expect(report.aborted).toBe('interrupted (SIGINT)');
    expect(report.load.aborted).toBe('interrupted (SIGINT)');
    expect(report.load.scenarios).toHaveLength(1);
    const [scenario] = report.load.scenarios;
    expect(scenario?.name).toBe('command');
    expect(scenario?.engine).toBe('k6');
    expect(scenario?.settings.k6Version).toBe(k6.version);
    expect(scenario?.problem).toContain('interrupted');
    // What k6 measured until the signal is kept, every request sent accounted for.
    expect(scenario?.requests.completed).toBeGreaterThan(0);
    expect(scenario?.requests.sent).toBe((scenario?.requests.completed ?? 0) + (scenario?.requests.failed ?? 0));
    // command sends 200/s: stopped well before the 20 s schedule's 4,000 arrivals.
    expect(scenario?.requests.sent).toBeLessThan(3_000);
    expect(scenario?.series.length).toBeGreaterThan(0);

    // Nothing left: the k6 process, its run folder, the redis-server.
    expect(await waitFor(() => !alive(k6Child?.pid ?? 0), 5_000)).toBe(true);
    expect(running(runFolder)).toEqual([]);
    expect(existsSync(runFolder)).toBe(false);
    expect(await waitFor(() => !alive(redis ?? 0), 5_000)).toBe(true);
  }, 60_000);
});
