/**
 * vitest globalSetup of the project's tests: nothing may be left behind by any test. It notes the
 * redis-server and prometheus processes and `svc-*` temporary folders that exist before the run, and fails the run
 * when new ones are still there after every test has ended (a test that forgot to stop what it
 * started, or code under test that leaks).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';

interface Snapshot {
  readonly redis: ReadonlySet<number>;
  readonly folders: ReadonlySet<string>;
}

let before: Snapshot | undefined;

/** Live redis-server and prometheus processes (zombies, already dead, are not leftovers). */
function redisServers(): Set<number> {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,comm='], { encoding: 'utf8' });
  const pids = out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, command]) => (command === 'redis-server' || command === 'prometheus') && !stat?.startsWith('Z'))
    .map(([pid]) => Number(pid));
  return new Set(pids);
}

function tempFolders(): Set<string> {
  return new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('svc-')));
}

function snapshot(): Snapshot {
  return { redis: redisServers(), folders: tempFolders() };
}

export function setup(): void {
  before = snapshot();
}

export async function teardown(): Promise<void> {
  if (!before) return;
  // Servers stopped at the very end of a test may take a moment to exit.
  for (let attempt = 0; attempt < 20; attempt++) {
    const after = snapshot();
    const redis = [...after.redis].filter((pid) => !before?.redis.has(pid));
    const folders = [...after.folders].filter((name) => !before?.folders.has(name));
    if (redis.length === 0 && folders.length === 0) return;
    if (attempt === 19) {
      throw new Error(
        `left behind by the tests: ${redis.length} redis-server or prometheus (${redis.join(', ')}), ${folders.length} temporary folders (${folders.join(', ')})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
