/**
 * A ceiling on a k6 process's resident memory. A k6 without the harness's extension (k6-extension.ts)
 * reads answer bodies whole, and its core has no cap on an answer's size (the node engine stops at
 * `maxAnswerBytes`): against a target answering 50 MB bodies, such a k6 grew by 0.6 to 1 GB a second
 * until the machine killed it (the harness's own build held 54 MB there). The guard reads the
 * process's VmRSS from /proc twice a second and kills it past the ceiling, so the harness reports why
 * k6 ended instead of "k6 exited SIGKILL". Where /proc is missing (not Linux) it does nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Per k6 process. SVC_K6_MAX_RSS_MB overrides it (the tests set it low). */
export const defaultK6MaxRssMb = 2048;

export function k6MaxRssBytes(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.SVC_K6_MAX_RSS_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : defaultK6MaxRssMb) * 1024 * 1024;
}

/**
 * Go's soft memory limit for a k6 process: half the guard's ceiling, unless the user's environment sets
 * GOMEMLIMIT. Without it Go lets its heap double what survived the last collection, so against 50 MB
 * answers at 50/s for 12 s k6 passed the 2 GB ceiling within seconds and was stopped (3.1 GB with the
 * guard raised); with 1 GiB it peaked at 1.7 GB and the run ended on its own, judging those answers as
 * node does (garbage past the cap). A lower limit saves more there (512 MiB: 1.1 GB; 200 MiB: 0.7 GB),
 * but an ordinary pipeline run at 300/s holds 420 MB, and a limit under what a run needs makes Go
 * collect without end, which is the load engine's CPU.
 */
export function k6GoMemoryLimit(env: NodeJS.ProcessEnv = process.env): string {
  return env.GOMEMLIMIT ?? `${Math.floor(k6MaxRssBytes(env) / 2 / 1024 / 1024)}MiB`;
}

function rssOf(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Watches `child`; returns what it saw: the highest RSS, and whether it killed the process for it. */
export function guardMemory(
  child: ChildProcess,
  maxBytes: number,
): { readonly stop: () => { peakBytes: number; killed: boolean } } {
  let peakBytes = 0;
  let killed = false;
  const timer = setInterval(() => {
    if (child.pid === undefined || child.exitCode !== null) return;
    const rss = rssOf(child.pid);
    if (rss === undefined) return;
    peakBytes = Math.max(peakBytes, rss);
    if (rss > maxBytes && !killed) {
      killed = true;
      child.kill('SIGKILL');
    }
  }, 500);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      return { peakBytes, killed };
    },
  };
}
