/**
 * Watching processes from a test: the redis-server children of a process, whether a pid still runs,
 * and waiting for a condition with a deadline (the interrupt tests of conformance and load).
 */
import { execFileSync } from 'node:child_process';

/** The redis-server processes whose parent is `pid`. */
export function redisChildren(pid: number): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((line) => line.includes('redis-server'))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
  } catch {
    return [];
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false;
  }
}

export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
