/**
 * `serve` ends, with the Redis it started, when the npm that started it ends without passing a signal
 * on (issue 36): `npx svc-harness serve &` then `kill $!` ends npm only. Started from a shell that goes
 * on or ends (a CI step starting the implementation for the next step), it keeps running.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { alive, redisChildren, waitFor } from '../support/processes.ts';
import { repoRoot, startProcess } from '../support/run-cli.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-serve-orphan-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The pid of the node process serving with this target file, found by its command line. */
function servePid(target: string): number | undefined {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  const line = out.split('\n').find((row) => row.includes(`serve --write-target ${target}`) && /\bnode\b/.test(row));
  return line === undefined ? undefined : Number(line.trim().split(/\s+/)[0]);
}

test('npx svc-harness serve & then kill $!: npm ends, and serve and its Redis stop with it', async () => {
  const target = join(dir, 'npx-target.json');
  const parent = startProcess(
    'bash',
    ['-c', `npx svc-harness serve --write-target ${JSON.stringify(target)} > /dev/null 2>&1 & echo $!; wait`],
    { timeoutMs: 60_000, cwd: repoRoot },
  );
  let serve: number | undefined;
  let redis: number[] = [];
  try {
    expect(await waitFor(() => /^\d+\n/.test(parent.stdout()) && existsSync(target), 40_000), parent.stdout()).toBe(
      true,
    );
    const npm = Number(parent.stdout().trim());
    serve = servePid(target);
    expect(serve, 'the serve process').toBeGreaterThan(0);
    const pid = serve ?? 0;
    expect(await waitFor(() => redisChildren(pid).length > 0, 10_000)).toBe(true);
    redis = redisChildren(pid);
    process.kill(npm, 'SIGTERM');
    await parent.finished;
    expect(await waitFor(() => !alive(pid), 15_000), `serve (pid ${pid}) still runs`).toBe(true);
    expect(await waitFor(() => redis.every((one) => !alive(one)), 10_000), 'its redis-server still runs').toBe(true);
  } finally {
    // A failing assertion above must leave nothing running.
    parent.child.kill('SIGKILL');
    for (const pid of [serve ?? 0, ...redis]) if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
  }
}, 90_000);
