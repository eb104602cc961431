/**
 * Shared pieces of the load-engine benchmarks (bench/load-*.ts): the test server as a child
 * process, a temp target file, child runs timed by /usr/bin/time (CPU of that process only), and a
 * fixed-width table. Every wait is bounded.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const benchDir = fileURLToPath(new URL('.', import.meta.url));
export const scenariosDir = join(benchDir, 'load-scenarios');
export const driverFile = join(benchDir, 'load-engine-driver.ts');
export const autocannonBin = fileURLToPath(new URL('../node_modules/.bin/autocannon', import.meta.url));

export interface TestServer {
  readonly pid: number;
  /** Stalls when started with a stall; else the same as plainUrl. */
  readonly url: string;
  readonly plainUrl: string;
  stop(): Promise<void>;
}

/** Starts bench/load-test-server.ts in its own process. */
export function startTestServer(stall?: { everyMs: number; stallMs: number }): Promise<TestServer> {
  const args = [join(benchDir, 'load-test-server.ts')];
  if (stall) args.push('--stall-every', String(stall.everyMs), '--stall', String(stall.stallMs));
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('the test server did not start within 10 s'));
    }, 10_000);
    child.once('exit', (code) => reject(new Error(`the test server exited with code ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const { port, plainPort } = JSON.parse(line) as { port: number; plainPort: number };
      resolve({
        pid: child.pid ?? 0,
        url: `http://127.0.0.1:${port}`,
        plainUrl: `http://127.0.0.1:${plainPort}`,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
            setTimeout(() => {
              child.kill('SIGKILL');
              done();
            }, 3000).unref();
          }),
      });
    });
  });
}

/** A temp folder, removed by the returned function. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'svc-load-bench-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A target file naming only a kv area at `url` (the test server ignores the token). */
export function writeTarget(dir: string, url: string, name = 'bench', token = 't'): string {
  const path = join(dir, `${name}-target.json`);
  writeFileSync(path, JSON.stringify({ name, kv: { url, token } }), { mode: 0o600 });
  return path;
}

export interface TimedRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From /usr/bin/time: wall, user and system seconds of the child process (and its waited-for children). */
  readonly wallS: number;
  readonly userS: number;
  readonly sysS: number;
  /** Times the process (every thread) waited for something (voluntary context switches, `%w`): its wake-ups. */
  readonly waits: number;
  readonly pid: number;
}

/**
 * Runs a command under `/usr/bin/time -f '%e %U %S %w'`, killed after `timeoutMs`. `onStart` gets the
 * command's own pid (the child of time) once it is known, for sampling /proc.
 */
export function runTimed(
  command: string,
  args: readonly string[],
  timeoutMs: number,
  dir: string,
  onStart?: (pid: number) => void,
): Promise<TimedRun> {
  const timeFile = join(dir, `time-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`);
  const child = spawn('/usr/bin/time', ['-f', '%e %U %S %w', '-o', timeFile, command, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let pid = 0;
  const findPid = setInterval(() => {
    pid = childPidOf(child.pid ?? 0);
    if (pid > 0) {
      clearInterval(findPid);
      onStart?.(pid);
    }
  }, 20);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      if (pid > 0) process.kill(pid, 'SIGKILL');
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      clearInterval(findPid);
      let wallS = Number.NaN;
      let userS = Number.NaN;
      let sysS = Number.NaN;
      let waits = Number.NaN;
      try {
        const last = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1) ?? '';
        [wallS, userS, sysS, waits] = last.split(/\s+/).map(Number) as [number, number, number, number];
        rmSync(timeFile, { force: true });
      } catch {
        // no time file: the run was killed before time wrote it
      }
      if (code !== 0 && timedOut(wallS, timeoutMs)) {
        reject(new Error(`${command} was stopped after ${timeoutMs / 1000} s`));
        return;
      }
      resolve({ code, stdout, stderr, wallS, userS, sysS, waits, pid });
    });
  });
}

const timedOut = (wallS: number, timeoutMs: number) => !Number.isFinite(wallS) || wallS * 1000 >= timeoutMs;

/** The first child of `pid` (the command /usr/bin/time runs), or 0 while there is none. */
function childPidOf(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return Number(children.split(/\s+/)[0] ?? 0) || 0;
  } catch {
    return 0;
  }
}

/** VmRSS of a process in bytes, or undefined when it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CPU seconds (user + system, every thread) a process has used so far, from /proc/PID/stat, or
 * undefined when it is gone. In clock ticks (10 ms here): a figure over seconds, not milliseconds.
 */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command's name (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return undefined;
  }
}

/** USER_HZ: Linux reports /proc times in hundredths of a second on every architecture it runs on here. */
const clockTicks = 100;

/** The driver's result: the last stdout line that is JSON. */
export function lastJsonLine<T>(stdout: string, what: string): T {
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((item) => item.startsWith('{'));
  if (line === undefined) throw new Error(`${what}: no result line in its output: ${stdout.slice(-300)}`);
  return JSON.parse(line) as T;
}

export function shellLine(args: readonly string[]): string {
  return args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(' ');
}

/** Fixed-width table: the first column left-aligned, the rest right-aligned. */
export function renderTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((title, i) => Math.max(title.length, ...rows.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const whole = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const mb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : 'n/a');

/** A flag that must be a number above zero; another is one line and exit code 2 (it is read before any run). */
export function positive(text: string | undefined, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`svc-harness bench: --${flag} "${text}" is not a number above zero`);
    process.exit(2);
  }
  return value;
}

/** Stops the process after `ms` whatever happens (a run that hangs). */
export function hardStop(ms: number, what: string): void {
  setTimeout(() => {
    console.error(`svc-harness bench: ${what} stopped after ${Math.round(ms / 1000)} s (something hung)`);
    process.exit(2);
  }, ms).unref();
}

/** Whether a command is on PATH (a peer such as wrk may not be installed). */
export async function hasCommand(name: string): Promise<boolean> {
  const { spawnSync } = await import('node:child_process');
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}
