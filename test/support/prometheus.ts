/**
 * A real Prometheus for the prometheus-rw output's tests: Debian's `prometheus` (scripts/setup.sh
 * installs it), started on a free loopback port with its remote-write receiver on, a temporary
 * `--storage.tsdb.path` and a config that scrapes nothing; `stop()` ends it (SIGTERM, then SIGKILL) and
 * removes its folder. Its HTTP API is read through `query` (an instant query, /api/v1/query).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../../src/shared/free-port.ts';

export interface QueryResult {
  readonly metric: Readonly<Record<string, string>>;
  /** An instant vector's [time, value]. */
  readonly value?: readonly [number, string];
  /** A range vector's samples (a query ending in `[…]`). */
  readonly values?: readonly (readonly [number, string])[];
}

export interface RunningPrometheus {
  readonly url: string;
  /** The remote-write receiver's URL. */
  readonly writeUrl: string;
  readonly child: ChildProcess;
  /** An instant query at `time` (seconds; now by default): its result, or a thrown error naming the query. */
  query(expression: string, time?: number): Promise<QueryResult[]>;
  /** What it printed, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/** Whether `prometheus` is on PATH and new enough to receive remote write (2.33+, the flag's name). */
export function prometheusVersion(): string | undefined {
  try {
    return /version (\d+\.\d+\.\d+)/.exec(execFileSync('prometheus', ['--version'], { encoding: 'utf8' }))?.[1];
  } catch {
    return undefined;
  }
}

export async function startPrometheus(): Promise<RunningPrometheus> {
  if (prometheusVersion() === undefined) {
    throw new Error(
      'no prometheus on PATH: bash scripts/setup.sh installs it (apt-get install prometheus, 2.42 or newer)',
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'svc-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  await writeFile(config, 'global:\n  scrape_interval: 1m\n');
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited at its start: ${log.slice(-1000)}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 20 s: ${log.slice(-1000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    writeUrl: `${url}/api/v1/write`,
    child,
    async query(expression, time) {
      const params = new URLSearchParams({ query: expression, ...(time !== undefined && { time: String(time) }) });
      const answer = await fetch(`${url}/api/v1/query`, { method: 'POST', body: params });
      const body = (await answer.json()) as { status: string; error?: string; data?: { result: QueryResult[] } };
      if (body.status !== 'success') throw new Error(`query ${expression}: ${body.error ?? answer.status}`);
      return body.data?.result ?? [];
    },
    log: () => log,
    stop,
  };
}
