/**
 * Path 2 of the Redis backing: a `redis-server` from PATH on a free loopback port, without
 * persistence, in a temporary directory that is removed on stop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { findFreePort } from '../../shared/free-port.ts';
import type { RedisBacking } from './redis-backing.ts';
import { waitForRedis } from './redis-url.ts';

const startAttempts = 5;
const readyTimeoutMs = 10_000;
const stopTimeoutMs = 5_000;

/**
 * Children still running, with their folders: killed and removed if this process exits without
 * stopping them (a forced exit on a second Ctrl-C), so no server or folder is left behind.
 */
const liveChildren = new Map<ChildProcess, string>();
let exitHookInstalled = false;

/** The first executable `redis-server` on `env.PATH`, or undefined. */
export function findRedisServer(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

export async function startRedisServer(binary: string): Promise<RedisBacking> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-redis-'));
  let lastReason = '';
  for (let attempt = 1; attempt <= startAttempts; attempt++) {
    const port = await findFreePort();
    try {
      return await startOnPort(binary, port, dir);
    } catch (error) {
      lastReason = oneLine(error);
      // Only a port taken between findFreePort and bind is worth another try.
      if (!/address already in use/i.test(lastReason)) break;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw harnessError('SVC_REDIS_UNAVAILABLE', `redis-server (${binary}) did not start: ${lastReason}`);
}

async function startOnPort(binary: string, port: number, dir: string): Promise<RedisBacking> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn(binary, [...args, '--daemonize', 'no', '--loglevel', 'warning'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C goes to the whole foreground group, and redis-server
    // quits on SIGINT; the harness, mid start-up, then waited 10 s for a Redis that was gone and wrote
    // no report (issue 25). The harness stops it itself, in order, and kills it if it exits first.
    detached: true,
  });
  const output = new RecentLines(5);
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  let alive = true;
  // 'exit' may never fire when the spawn itself failed, so an 'error' without a pid also ends it.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output.push(Buffer.from(error.message));
      if (child.pid === undefined) resolve();
    });
  }).then(() => {
    alive = false;
  });
  track(child, dir);

  const url = `redis://127.0.0.1:${port}`;
  try {
    await waitForRedis(url, readyTimeoutMs, () => alive);
  } catch (error) {
    await kill(child, exited);
    throw new Error(output.text() || oneLine(error));
  }

  let stopping: Promise<void> | undefined;
  return {
    url,
    origin: 'redis-server',
    stop: () => {
      stopping ??= kill(child, exited).then(() => rmSync(dir, { recursive: true, force: true }));
      return stopping;
    },
  };
}

/** SIGTERM, then SIGKILL if it has not exited in time; resolves once it has exited. */
async function kill(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  }
  liveChildren.delete(child);
}

function track(child: ChildProcess, dir: string): void {
  liveChildren.set(child, dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [live, folder] of liveChildren) {
      live.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
    }
  });
}

/** The last few output lines of the server, for the error message when it fails to start. */
class RecentLines {
  readonly #max: number;
  #lines: string[] = [];

  constructor(max: number) {
    this.#max = max;
  }

  push(chunk: Buffer): void {
    const lines = chunk
      .toString('utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    this.#lines = [...this.#lines, ...lines].slice(-this.#max);
  }

  text(): string {
    return this.#lines.join(' | ');
  }
}
