/**
 * A real OpenTelemetry Collector for the OTLP output's tests: the binary scripts/otelcol.sh builds
 * once from the Go module proxy (OTLP receiver, file exporter), started on a free loopback port with a
 * config of its own in a temporary folder, writing what it receives as JSON lines (one
 * ExportMetricsServiceRequest a line), read back by `metrics()`. `OTELCOL_BINARY` names another build.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../src/shared/free-port.ts';
import { portAnswers } from './loopback.ts';
import { repoRoot } from './run-cli.ts';

const run = promisify(execFile);

/** The collector release scripts/otelcol.sh pins. */
export const otelcolRelease = '0.161.0';

export function cachedOtelcolPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const cache = env.SVC_HARNESS_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc-harness');
  return join(cache, 'otelcol', `v${otelcolRelease}`, 'otelcol');
}

/** The collector: OTELCOL_BINARY, else the cache, else built now by scripts/otelcol.sh (minutes, once). */
export async function findOtelcol(): Promise<string> {
  if (process.env.OTELCOL_BINARY) return process.env.OTELCOL_BINARY;
  const cached = cachedOtelcolPath();
  if (existsSync(cached)) return cached;
  const { stdout } = await run('bash', [join(repoRoot, 'scripts', 'otelcol.sh')], { timeout: 15 * 60_000 });
  return stdout.trim().split('\n').at(-1) ?? cached;
}

/** An attribute list of OTLP JSON, as the file exporter writes it. */
type OtlpAttributes = readonly { readonly key: string; readonly value: { readonly stringValue?: string } }[];

export interface OtlpDataPoint {
  readonly attributes?: OtlpAttributes;
  readonly timeUnixNano: string;
  readonly asInt?: string;
  readonly asDouble?: number;
}

export interface OtlpMetric {
  readonly name: string;
  readonly unit?: string;
  readonly sum?: {
    readonly dataPoints: readonly OtlpDataPoint[];
    readonly aggregationTemporality: number;
    readonly isMonotonic?: boolean;
  };
  readonly gauge?: { readonly dataPoints: readonly OtlpDataPoint[] };
}

export interface OtlpRequest {
  readonly resourceMetrics: readonly {
    readonly resource: { readonly attributes: OtlpAttributes };
    readonly scopeMetrics: readonly { readonly metrics: readonly OtlpMetric[] }[];
  }[];
}

/** A data point's attributes as an object. */
export const attributesOf = (attributes: OtlpAttributes = []): Record<string, string> =>
  Object.fromEntries(attributes.map((item) => [item.key, item.value.stringValue ?? '']));

export const pointValue = (point: OtlpDataPoint): number =>
  point.asInt !== undefined ? Number(point.asInt) : (point.asDouble ?? 0);

export interface RunningCollector {
  /** The OTLP/HTTP base URL (`http://127.0.0.1:PORT`). */
  readonly url: string;
  /** Every export request the collector wrote so far. */
  requests(): Promise<OtlpRequest[]>;
  /** Stops it (SIGTERM, which flushes the file; SIGKILL after 10 s) and waits for its exit. */
  stop(): Promise<void>;
  /** Stops it and removes its folder (config and file): for afterAll. */
  dispose(): Promise<void>;
  /** What it printed, for a failing test's message. */
  output(): string;
}

export async function startCollector(): Promise<RunningCollector> {
  const binary = await findOtelcol();
  const dir = await mkdtemp(join(tmpdir(), 'svc-otelcol-'));
  const file = join(dir, 'metrics.jsonl');
  // A port taken between the check and the collector's listen: try another, a few times.
  for (let attempt = 0; ; attempt++) {
    const port = await findFreePort();
    const config = join(dir, 'config.json');
    // JSON is YAML: the collector reads it as its config. No service::telemetry: the build's own is
    // warnings on stderr and nothing else (no :8888 listener).
    await writeFile(
      config,
      JSON.stringify({
        receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
        exporters: { file: { path: file, flush_interval: '100ms' } },
        service: { pipelines: { metrics: { receivers: ['otlp'], exporters: ['file'] } } },
      }),
    );
    const child = spawn(binary, ['--config', `file:${config}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // A worker that dies mid-test takes its collector with it: nothing is left running.
    const orphaned = () => child.kill('SIGKILL');
    process.once('exit', orphaned);
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        process.off('exit', orphaned);
        resolve();
      }),
    );
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    let up = false;
    while (!up && child.exitCode === null && Date.now() < deadline) {
      up = await portAnswers(url);
      if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (up) return collector(child, exited, url, file, dir, () => output);
    child.kill('SIGKILL');
    await exited;
    if (attempt >= 2) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(`the collector did not start on ${url}: ${output.slice(-1500)}`);
    }
  }
}

function collector(
  child: ChildProcess,
  exited: Promise<void>,
  url: string,
  file: string,
  dir: string,
  output: () => string,
): RunningCollector {
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
    })();
    return stopped;
  };
  return {
    url,
    output,
    async requests() {
      const text = existsSync(file) ? await readFile(file, 'utf8') : '';
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as OtlpRequest);
    },
    stop,
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
