import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { alive, redisChildren, waitFor } from '../support/processes.ts';
import { startCli } from '../support/run-cli.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-load-interrupts-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Report {
  readonly aborted: string | null;
  readonly exitCode: number;
  readonly settings?: unknown;
  readonly load?: {
    readonly aborted: string | null;
    readonly scenarios: readonly {
      readonly name: string;
      readonly problem: string | null;
      readonly requests: { sent: number; completed: number; failed: number };
      readonly series: readonly unknown[];
    }[];
  };
}

describe('interrupting load on the embedded reference', () => {
  test('SIGTERM during `load command --duration 30s`: exit 2, an aborted report that keeps the counts, no redis-server left', async () => {
    const reportDir = join(dir, 'load-sigterm');
    const run = startCli(['load', 'command', '--duration', '30s', '--report-dir', reportDir], {
      timeoutMs: 40_000,
      env: { REDIS_URL: '' },
    });
    const pid = run.child.pid ?? 0;
    expect(await waitFor(() => redisChildren(pid).length > 0, 20_000)).toBe(true);
    const [redis] = redisChildren(pid);
    // Setup is quick; about 4 s in, the load has been running for a few seconds.
    await sleep(4_000);
    run.child.kill('SIGTERM');
    const done = await run.finished;
    expect(done.exitCode, done.stderr).toBe(2);
    expect(done.durationMs).toBeLessThan(40_000);
    expect(done.stderr).toContain('SIGTERM: stopping the run');
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as Report;
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.exitCode).toBe(2);
    expect(report.aborted).toContain('SIGTERM');
    expect(report.load?.aborted).toContain('SIGTERM');
    const [scenario] = report.load?.scenarios ?? [];
    expect(scenario?.name).toBe('command');
    expect(scenario?.problem).toContain('interrupted');
    // What was measured is kept.
    expect(scenario?.requests.sent).toBeGreaterThan(0);
    expect(scenario?.requests.completed).toBeGreaterThan(0);
    expect(scenario?.requests.sent).toBe((scenario?.requests.completed ?? 0) + (scenario?.requests.failed ?? 0));
    expect(scenario?.series.length).toBeGreaterThan(0);
    expect(await waitFor(() => !alive(redis ?? 0), 5_000)).toBe(true);
  }, 60_000);

  test('SIGINT during the conformance part of `svc-harness run`: exit 2, an aborted report, no redis-server left', async () => {
    const reportDir = join(dir, 'run-sigint');
    const run = startCli(['run', '--report-dir', reportDir], { timeoutMs: 60_000, env: { REDIS_URL: '' } });
    const pid = run.child.pid ?? 0;
    expect(await waitFor(() => redisChildren(pid).length > 0, 20_000)).toBe(true);
    const [redis] = redisChildren(pid);
    await sleep(500);
    run.child.kill('SIGINT');
    const done = await run.finished;
    expect(done.exitCode, done.stderr).toBe(2);
    expect(done.stderr).toContain('SIGINT: stopping the run');
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as Report;
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.exitCode).toBe(2);
    expect(report.aborted).toBe('interrupted (SIGINT)');
    // Stopped during conformance: its part is there, the load never started.
    expect(report.settings).toBeDefined();
    expect(report.load).toBeUndefined();
    expect(await waitFor(() => !alive(redis ?? 0), 5_000)).toBe(true);
  }, 60_000);
});
