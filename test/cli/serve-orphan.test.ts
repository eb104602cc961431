/**
 * `serve` ends, with the Redis it started, when the process that started it ends without passing a
 * signal on (issue 36): `npx svc-harness serve &` then `kill $!` ends npm only. Here a shell stands in
 * for npm: it starts serve in the background, prints its pid, and is killed with SIGKILL.
 */
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

test('serve and its Redis stop once the process that started them is gone', async () => {
  const target = join(dir, 'target.json');
  const bin = join(repoRoot, 'bin', 'svc-harness.js');
  const parent = startProcess(
    'bash',
    [
      '-c',
      `node ${JSON.stringify(bin)} serve --write-target ${JSON.stringify(target)} > /dev/null 2>&1 & echo $!; wait`,
    ],
    { timeoutMs: 60_000 },
  );
  let serve = 0;
  let redis: number[] = [];
  try {
    expect(await waitFor(() => /^\d+\n/.test(parent.stdout()) && existsSync(target), 30_000), parent.stdout()).toBe(
      true,
    );
    serve = Number(parent.stdout().trim());
    expect(await waitFor(() => redisChildren(serve).length > 0, 10_000)).toBe(true);
    redis = redisChildren(serve);
    parent.child.kill('SIGKILL');
    await parent.finished;
    expect(await waitFor(() => !alive(serve), 15_000), `serve (pid ${serve}) still runs`).toBe(true);
    expect(await waitFor(() => redis.every((pid) => !alive(pid)), 10_000), 'its redis-server still runs').toBe(true);
  } finally {
    // A failing assertion above must leave nothing running.
    parent.child.kill('SIGKILL');
    for (const pid of [serve, ...redis]) if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
  }
}, 60_000);
