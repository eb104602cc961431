/**
 * End-to-end helper: runs `node bin/svc-harness.js …` as a child process (Node from node_modules/.bin
 * first on PATH) and returns its exit code, output and, when a report folder is given, the report.
 */
import { spawn } from 'node:child_process';
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
  /** report.json of `reportDir`, parsed; undefined when there is none. */
  readonly report?: unknown;
}

export interface RunCliOptions {
  /** Read `<reportDir>/report.json` after the run. */
  readonly reportDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Kill the process after this long (the test then fails on a null exit code). @default 60_000 */
  readonly timeoutMs?: number;
  readonly cwd?: string;
  /** Send a signal to the process this long after it starts (to test interruption). */
  readonly interrupt?: { readonly afterMs: number; readonly signal?: NodeJS.Signals };
}

export async function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  const started = performance.now();
  const env = {
    ...process.env,
    PATH: [join(repoRoot, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
    ...options.env,
  };
  const child = spawn('node', [join(repoRoot, 'bin', 'svc-harness.js'), ...args], {
    cwd: options.cwd ?? repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const interrupter = options.interrupt
    ? setTimeout(() => child.kill(options.interrupt?.signal ?? 'SIGINT'), options.interrupt.afterMs)
    : undefined;
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, sig) => resolve([code, sig])),
  );
  clearTimeout(killer);
  clearTimeout(interrupter);
  let report: unknown;
  if (options.reportDir) {
    try {
      report = JSON.parse(await readFile(join(options.reportDir, 'report.json'), 'utf8'));
    } catch {
      report = undefined;
    }
  }
  return {
    exitCode,
    signal,
    stdout,
    stderr,
    durationMs: performance.now() - started,
    ...(report !== undefined && { report }),
  };
}
