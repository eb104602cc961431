/**
 * End-to-end helpers: run a program of this repository as a child process (Node from
 * node_modules/.bin first on PATH) and collect its exit, output and, when a report folder is given,
 * the report. `startCli` for a process the test talks to while it runs (serve), `runCli` for one
 * that runs to its end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  /** With `interrupt`: how long it ran after the signal (undefined when it ended before it was sent). */
  readonly afterSignalMs?: number;
  /** report.json of `reportDir`, parsed; undefined when there is none. */
  readonly report?: unknown;
}

export interface RunCliOptions {
  /** Read `<reportDir>/report.json` after the run. */
  readonly reportDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Stop the process after this long: SIGTERM, then SIGKILL (the test fails on its exit). @default 60_000 */
  readonly timeoutMs?: number;
  readonly cwd?: string;
  /**
   * Start it as the leader of its own process group, as a shell starts a foreground job, so a test can
   * signal the whole group (`process.kill(-pid, …)`) as a terminal's Ctrl-C does.
   */
  readonly group?: boolean;
  /**
   * Send a signal to the process this long after it starts, and not before it first printed anything
   * (to test interruption): by then its handlers are set, however slowly a loaded machine started it.
   */
  readonly interrupt?: { readonly afterMs: number; readonly signal?: NodeJS.Signals };
}

export interface StartedProcess {
  readonly child: ChildProcess;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  readonly finished: Promise<CliRun>;
}

/** How long a process past its budget has, after SIGTERM, before SIGKILL. */
const stopGraceMs = 15_000;

/** Starts `program` (a path, or a name on PATH) with node_modules/.bin first on PATH. */
export function startProcess(program: string, args: readonly string[], options: RunCliOptions = {}): StartedProcess {
  const started = performance.now();
  const env = {
    ...process.env,
    PATH: [join(repoRoot, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
    ...options.env,
  };
  const child = spawn(program, [...args], {
    cwd: options.cwd ?? repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group === true,
  });
  let stdout = '';
  let stderr = '';
  let signalledAt: number | undefined;
  let anyPrinted = false;
  let due = false;
  const signal = () => {
    if (signalledAt !== undefined || !anyPrinted || !due || options.interrupt === undefined) return;
    signalledAt = performance.now();
    child.kill(options.interrupt.signal ?? 'SIGINT');
  };
  const interrupter = options.interrupt
    ? setTimeout(() => {
        due = true;
        signal();
      }, options.interrupt.afterMs)
    : undefined;
  const printed = () => {
    anyPrinted = true;
    signal();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    printed();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    printed();
  });
  // Past its budget it is asked to stop as a user's Ctrl-C asks (SIGTERM: it ends its run, writes what it
  // measured and stops its Redis), and killed only if it has not within `stopGraceMs`: a SIGKILL first
  // left the embedded reference's redis-server behind, which failed the whole step (leftovers.ts).
  let stopper: NodeJS.Timeout | undefined;
  const killer = setTimeout(() => {
    stderr += `\n[run-cli: past its ${options.timeoutMs ?? 60_000} ms budget: SIGTERM]\n`;
    child.kill('SIGTERM');
    stopper = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
  }, options.timeoutMs ?? 60_000);
  const finished = (async (): Promise<CliRun> => {
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (code, sig) => resolve([code, sig])),
    );
    clearTimeout(killer);
    clearTimeout(stopper);
    clearTimeout(interrupter);
    const report = options.reportDir ? await readReport(options.reportDir) : undefined;
    return {
      exitCode,
      signal,
      stdout,
      stderr,
      durationMs: performance.now() - started,
      ...(signalledAt !== undefined && { afterSignalMs: performance.now() - signalledAt }),
      ...(report !== undefined && { report }),
    };
  })();
  return { child, stdout: () => stdout, stderr: () => stderr, finished };
}

async function readReport(reportDir: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Starts `node bin/svc-harness.js …`. */
export function startCli(args: readonly string[], options: RunCliOptions = {}): StartedProcess {
  return startProcess('node', [join(repoRoot, 'bin', 'svc-harness.js'), ...args], options);
}

/** Runs `node bin/svc-harness.js …` to its end. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  return startCli(args, options).finished;
}
