/**
 * An implementation the soak starts itself (a target file's `process` section, issue 39), and the
 * process faults done to it: SIGKILL and start again, a graceful restart (SIGTERM, then SIGKILL after
 * `stopTimeoutMs`), SIGSTOP and SIGCONT. It runs in a process group of its own, and every signal goes
 * to the group: an implementation started through npx or a shell has children (its server, its Redis),
 * and a pause or a kill that reached only the parent would leave them serving. Ready means the probe
 * answered: any HTTP answer below 500 from `ready.url` (a kv answering 401 unauthenticated is up), or a
 * TCP connection to `ready.port`. Each fault reports what it measured: when the process was down and
 * how long until it was ready again. An exit nobody asked for is counted and kept (the soak reports it:
 * a crash under load is a finding, not a fault of the harness). Nothing outlives the harness: on its
 * exit the group is SIGCONT'ed and SIGKILL'ed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { oneLine } from '../../shared/errors.ts';
import { groupPids } from './process-group.ts';

/** How the soak starts the implementation and knows it is up. */
export interface ProcessSpec {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the harness's own environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly ready: { readonly url: string } | { readonly port: number; readonly host?: string };
  /** How long a start may take before the soak gives up on it. @default 30000 */
  readonly readyTimeoutMs?: number;
  /** How long a graceful stop may take before SIGKILL. @default 10000 */
  readonly stopTimeoutMs?: number;
}

/** What one process fault measured, ms on the harness's clock (performance.now()). */
export interface ProcessFaultTiming {
  readonly action: 'kill' | 'restart' | 'pause';
  readonly startedAt: number;
  /** The old process gone (kill, restart) or continued (pause). */
  readonly healedAt: number;
  /** Ready again: the probe answered (equal to healedAt for a pause, which starts nothing). */
  readonly readyAt: number;
  /** The process before and after (a pause keeps it). */
  readonly pidBefore: number | undefined;
  readonly pidAfter: number | undefined;
}

/** An exit the soak did not cause. */
export interface UnexpectedExit {
  readonly at: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines it wrote. */
  readonly output: string;
}

const probeEveryMs = 50;
const probeTimeoutMs = 1000;
const keptOutputLines = 8;

/** Every group still running: killed if the harness exits without stopping them (a second Ctrl-C). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already: nothing to signal.
  }
}

/**
 * Whether any process of group `pgid` still runs (zombies do not count: process-group.ts). Read from
 * /proc where there is one; elsewhere, whether the group takes a signal at all.
 */
function groupAlive(pgid: number | undefined): boolean {
  if (pgid === undefined) return false;
  const pids = groupPids(pgid);
  if (pids !== undefined) return pids.length > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) {
      signalGroup(group, 'SIGCONT');
      signalGroup(group, 'SIGKILL');
    }
  });
}

/** Whether the implementation answers its readiness probe now (HTTP below 500, or a TCP connect). */
export async function answers(spec: ProcessSpec['ready']): Promise<boolean> {
  if ('url' in spec) {
    try {
      const answer = await request(spec.url, {
        headersTimeout: probeTimeoutMs,
        bodyTimeout: probeTimeoutMs,
        signal: AbortSignal.timeout(probeTimeoutMs),
      });
      await answer.body.dump();
      return answer.statusCode < 500;
    } catch {
      return false;
    }
  }
  return new Promise((resolve) => {
    const socket = connect({ port: spec.port, host: spec.host ?? '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(probeTimeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * A pause of `windowMs` (cut short by `signal`) between `freeze` and `thaw`, timed as a fault: the thaw
 * runs whatever happens, and nothing starts again, so ready is healed.
 */
export async function timedPause(
  pid: number | undefined,
  windowMs: number,
  signal: AbortSignal | undefined,
  freeze: () => void | Promise<void>,
  thaw: () => void | Promise<void>,
): Promise<ProcessFaultTiming> {
  const startedAt = performance.now();
  await freeze();
  try {
    await sleep(windowMs, undefined, { signal }).catch(() => undefined);
  } finally {
    await thaw();
  }
  const healedAt = performance.now();
  return { action: 'pause', startedAt, healedAt, readyAt: healedAt, pidBefore: pid, pidAfter: pid };
}

/**
 * What the nemesis does process faults to: a process the soak started (ManagedProcess) or a container
 * (container-process.ts, `soak --image`).
 */
export interface FaultableProcess {
  /** The process to sample (the group leader, or the container's first process); undefined when none runs. */
  readonly pid: number | undefined;
  /** Ready and not being ended: the sampler leaves a start-up out of a lifetime's trend. */
  readonly ready: boolean;
  readonly unexpectedExits: readonly UnexpectedExit[];
  kill(): Promise<ProcessFaultTiming>;
  restart(): Promise<ProcessFaultTiming>;
  pause(windowMs: number, signal?: AbortSignal): Promise<ProcessFaultTiming>;
  /** The end of the soak; never throws. */
  stop(): Promise<void>;
}

export class ManagedProcess implements FaultableProcess {
  readonly #spec: ProcessSpec;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  /** Set while the soak itself ends the process, so its exit is not counted as unexpected. */
  #stopping = false;
  #paused = false;
  /** The probe answered the current process, and nothing is ending it. */
  #ready = false;
  #output: string[] = [];
  readonly unexpectedExits: UnexpectedExit[] = [];
  readonly faults: ProcessFaultTiming[] = [];

  private constructor(spec: ProcessSpec) {
    this.#spec = spec;
  }

  /** Starts the implementation and waits until it is ready; throws one line when it is not in time. */
  static async start(spec: ProcessSpec): Promise<ManagedProcess> {
    const managed = new ManagedProcess(spec);
    await managed.#launch();
    return managed;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /**
   * The current process answered its probe and is not being ended: false from a kill or restart until
   * the new process is ready (the sampler leaves a start-up out of a lifetime's trend).
   */
  get ready(): boolean {
    return this.#ready;
  }

  /** The last lines the implementation wrote (stdout and stderr), for a one-line reason. */
  get recentOutput(): string {
    return this.#output.join(' | ');
  }

  async #launch(): Promise<void> {
    this.#ready = false;
    const spec = this.#spec;
    const child = spawn(spec.command, [...(spec.args ?? [])], {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.#child = child;
    const keep = (chunk: Buffer) => {
      const lines = chunk
        .toString('utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      this.#output = [...this.#output, ...lines].slice(-keptOutputLines);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let gone = false;
    this.#exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        gone = true;
        if (child.pid !== undefined) liveGroups.delete(child.pid);
        if (!this.#stopping) {
          this.unexpectedExits.push({ at: performance.now(), code, signal, output: this.recentOutput });
        }
        resolve();
      });
      child.once('error', (error) => {
        keep(Buffer.from(error.message));
        if (child.pid === undefined) {
          gone = true;
          resolve();
        }
      });
    });
    if (child.pid !== undefined) trackGroup(child.pid);
    const deadline = performance.now() + (spec.readyTimeoutMs ?? 30_000);
    while (!(await answers(spec.ready))) {
      if (gone) throw new Error(`${spec.command} exited before it was ready: ${this.recentOutput || 'no output'}`);
      if (performance.now() > deadline) {
        await this.#end('SIGKILL');
        throw new Error(
          `${spec.command} was not ready within ${(spec.readyTimeoutMs ?? 30_000) / 1000} s: ${this.recentOutput || 'no output'}`,
        );
      }
      await sleep(probeEveryMs);
    }
    this.#ready = true;
  }

  /** Ends the current process: `signal` to the group, SIGKILL after the stop timeout; waits for the exit. */
  async #end(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    this.#ready = false;
    this.#stopping = true;
    try {
      if (this.#paused) this.#continue();
      const deadline = performance.now() + (this.#spec.stopTimeoutMs ?? 10_000);
      signalGroup(child.pid, signal);
      const timer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), this.#spec.stopTimeoutMs ?? 10_000);
      await this.#exited;
      clearTimeout(timer);
      // The rest of the group (a shell's or npx's children) is given the same time to end on the signal
      // (a parent shell may exit before its server has said goodbye), then killed; either way it is
      // gone when this returns, so the next start finds its port free.
      while (groupAlive(child.pid) && performance.now() < deadline) await sleep(20);
      signalGroup(child.pid, 'SIGKILL');
      while (groupAlive(child.pid)) await sleep(10);
    } finally {
      this.#stopping = false;
    }
  }

  #continue(): void {
    signalGroup(this.#child?.pid, 'SIGCONT');
    this.#paused = false;
  }

  async #replace(action: 'kill' | 'restart'): Promise<ProcessFaultTiming> {
    const startedAt = performance.now();
    const pidBefore = this.pid;
    await this.#end(action === 'kill' ? 'SIGKILL' : 'SIGTERM');
    const healedAt = performance.now();
    await this.#launch();
    const timing = { action, startedAt, healedAt, readyAt: performance.now(), pidBefore, pidAfter: this.pid };
    this.faults.push(timing);
    return timing;
  }

  /** SIGKILL, then start again and wait until ready. */
  kill(): Promise<ProcessFaultTiming> {
    return this.#replace('kill');
  }

  /** A graceful restart: SIGTERM (SIGKILL after the stop timeout), start again, wait until ready. */
  restart(): Promise<ProcessFaultTiming> {
    return this.#replace('restart');
  }

  /** SIGSTOP for `windowMs` (cut short by `signal`), then SIGCONT. */
  async pause(windowMs: number, signal?: AbortSignal): Promise<ProcessFaultTiming> {
    const pid = this.pid;
    const freeze = () => {
      signalGroup(pid, 'SIGSTOP');
      this.#paused = true;
    };
    const timing = await timedPause(pid, windowMs, signal, freeze, () => this.#continue());
    this.faults.push(timing);
    return timing;
  }

  /** The end of the soak: continued if paused, SIGTERM, SIGKILL after the stop timeout. Never throws. */
  async stop(): Promise<void> {
    try {
      await this.#end('SIGTERM');
    } catch (error) {
      this.#output.push(`stop: ${oneLine(error)}`);
    }
  }
}
