import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { alive, redisChildren, waitFor } from '../support/processes.ts';
import { startCli } from '../support/run-cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-interrupts-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('interrupting a conformance run on the embedded reference', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: the partial report is marked aborted by it, exit 2, and no redis-server is left',
    async (signal) => {
      const reportDir = join(dir, signal);
      const run = startCli(['conformance', '--report-dir', reportDir], { timeoutMs: 60_000, env: { REDIS_URL: '' } });
      const pid = run.child.pid ?? 0;
      expect(await waitFor(() => redisChildren(pid).length > 0, 20_000)).toBe(true);
      const [redis] = redisChildren(pid);
      await new Promise((resolve) => setTimeout(resolve, 500));
      run.child.kill(signal);
      const done = await run.finished;
      expect(done.exitCode, done.stderr).toBe(2);
      expect(done.stderr).toContain(`${signal}: stopping the run`);
      const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
        aborted: string;
        targets: { cases: { verdict: { kind: string; reason?: string } }[] }[];
      };
      expect(report.aborted).toBe(`interrupted (${signal})`);
      const notRun = report.targets.flatMap((target) => target.cases).filter((item) => item.verdict.kind === 'error');
      for (const item of notRun) expect(item.verdict.reason).toContain(signal);
      expect(await waitFor(() => !alive(redis ?? 0), 5_000)).toBe(true);
    },
    60_000,
  );

  test('a second signal exits at once with 130, and the redis-server still goes', async () => {
    const run = startCli(['conformance', '--report-dir', join(dir, 'twice')], {
      timeoutMs: 60_000,
      env: { REDIS_URL: '' },
    });
    const pid = run.child.pid ?? 0;
    expect(await waitFor(() => redisChildren(pid).length > 0, 20_000)).toBe(true);
    const [redis] = redisChildren(pid);
    run.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    run.child.kill('SIGINT');
    const done = await run.finished;
    expect(done.exitCode).toBe(130);
    expect(done.stderr).toContain('again: exiting now');
    expect(await waitFor(() => !alive(redis ?? 0), 5_000)).toBe(true);
  }, 60_000);
});
