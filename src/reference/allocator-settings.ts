/**
 * The reference in a process of its own (`svc-harness serve`), and a conformance run, run with glibc's
 * mmap threshold fixed at 32 KiB, so they give memory back once a burst is over (issue 25).
 *
 * Why: Node reads every socket into a fresh 64 KiB allocation. glibc's default threshold starts at
 * 128 KiB and rises with the largest block freed, so those reads, and the bigger blocks a burst of
 * 1 MiB messages leaves behind, come from the main heap. Freed out of order, they fragment it, and glibc
 * only gives back its top: after 100 slow SSE readers were sent 100 × 1 MiB, RSS stayed 100 to 220 MB
 * above idle with the heap and the ArrayBuffers back at their idle figures (bench/sse-slow-subscribers.ts).
 * With the threshold fixed at 32 KiB (which also stops it rising) each of those blocks is a mapping of
 * its own, unmapped when freed: RSS was back within 13 MB of idle before any collection. It cost the
 * reference 3 to 4% of its pipeline throughput (bench/load-reference-ceiling.ts, within the noise), and
 * the load engine about 10% more CPU per request, so the commands that run load (`load`, `run`) keep
 * glibc's defaults. A conformance run waits on the network: with the setting, one whose limits cases
 * send two 10 MB values peaked 20 to 35 MB lower, and one against a target answering 10 MB to every
 * request 40 to 60 MB lower.
 *
 * glibc reads its tunables once, when the process starts, so `serve` starts itself again under them
 * with process.execve (the same pid, the same arguments; nothing is open yet). A GLIBC_TUNABLES that
 * already sets the threshold is the user's choice and is kept; another libc, or a Node without execve,
 * runs as it is.
 */
export const mmapThresholdTunable = 'glibc.malloc.mmap_threshold=32768';

/** The environment to start the process with, or undefined when it already has the setting. */
export function allocatorEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | undefined {
  const current = env.GLIBC_TUNABLES ?? '';
  if (current.includes('glibc.malloc.mmap_threshold=')) return undefined;
  return { ...env, GLIBC_TUNABLES: current === '' ? mmapThresholdTunable : `${current}:${mmapThresholdTunable}` };
}

/** Whether this process runs on glibc (its report names the runtime's version only there). */
function onGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return typeof report.header?.glibcVersionRuntime === 'string';
}

/**
 * Replaces this process with itself under the allocator setting, when it lacks it. Returns only when
 * nothing is to be done (or the platform cannot); otherwise the process image is replaced.
 */
export function relaunchUnderAllocatorSettings(): void {
  const env = allocatorEnvironment(process.env);
  if (env === undefined || typeof process.execve !== 'function' || !onGlibc()) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
}
