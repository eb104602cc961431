/**
 * k6 `--out json` files for the k6 tests, written as k6 v2 writes them (checked against a real
 * k6 v2.2.0 run): a `Metric` line declaring each metric before its first sample, then one `Point` line
 * per sample with k6's key order (`metric`, `type`, `data`) and RFC 3339 nanosecond times. A request
 * comes with the lines k6 writes next to it (`http_reqs`, `http_req_failed`, `iterations`), so the
 * reader is also shown to skip what it does not take. Also: temporary folders named `svc-*` (the
 * global setup checks that none is left behind) and the message of an awaited harness error.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { type ErrorCode, isHarnessError } from '../../../../src/shared/errors.ts';

export type K6Tags = Readonly<Record<string, string>>;

/** A whole second (2026-11-23T08:23:50Z): the first second of every fixture's load. */
export const t0 = Date.UTC(2026, 10, 23, 8, 23, 50);

/** `2026-11-23T08:23:50.263439139Z`: k6 writes nanoseconds; Date.parse keeps the milliseconds. */
export function k6Time(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  return new Date(whole).toISOString().replace(/Z$/, `${String(nanos).padStart(6, '0')}Z`);
}

/** k6's metric types, for the `Metric` declaration lines. */
const metricTypes: Readonly<Record<string, readonly [type: string, contains: string]>> = {
  http_reqs: ['counter', 'default'],
  http_req_duration: ['trend', 'time'],
  http_req_failed: ['rate', 'default'],
  iterations: ['counter', 'default'],
  checks: ['rate', 'default'],
  dropped_iterations: ['counter', 'default'],
  svc_sent: ['counter', 'default'],
  svc_tally: ['counter', 'default'],
  svc_threshold: ['counter', 'default'],
};

/** One sample as k6 writes it. */
export interface K6Point {
  readonly metric: string;
  readonly at: number;
  readonly value: number;
  readonly tags: K6Tags;
  /** What k6 writes beside the sample from the VU's metadata (`svc_fate`'s iteration, send time, ids). */
  readonly metadata?: Readonly<Record<string, string>>;
}

export function point(
  metric: string,
  at: number,
  value: number,
  tags: K6Tags,
  metadata?: Readonly<Record<string, string>>,
): K6Point {
  return { metric, at, value, tags, ...(metadata !== undefined && { metadata }) };
}

/** A request as the harness's k6 script makes it. */
export interface K6Request {
  readonly scenario: string;
  /** Epoch ms of the answer (k6 stamps a request's samples when it ends). */
  readonly at: number;
  readonly latencyMs: number;
  /** The HTTP status; 0 when no answer came (then `errorCode` and `error` say why). @default 200 */
  readonly status?: number;
  /** The `expected_response` tag. @default a 2xx status */
  readonly expected?: boolean;
  readonly errorCode?: string;
  readonly error?: string;
  /** The scenario's own tags (`batch`, `value`). */
  readonly tags?: K6Tags;
  /** The `svc_commands` tag. @default 1 */
  readonly commands?: number;
  /** The script's `svc_sent` sample before the request. @default true */
  readonly sent?: boolean;
}

export interface RequestOptions {
  /** Tags on every sample besides k6's own, as k6-operator's runners add them (`instance_id`, `testrun_name`). */
  readonly extra?: K6Tags;
  /** The samples k6 writes beside `http_req_duration` that the reader skips. @default true */
  readonly companions?: boolean;
}

/** The samples of one request: `svc_sent` when it is sent, then k6's at its answer. */
export function requestPoints(request: K6Request, options: RequestOptions = {}): K6Point[] {
  const status = request.status ?? 200;
  const expected = request.expected ?? (status >= 200 && status < 300);
  const own = { ...request.tags, ...options.extra };
  const tags: K6Tags = {
    ...own,
    ...(request.error !== undefined && { error: request.error }),
    ...(request.errorCode !== undefined && { error_code: request.errorCode }),
    expected_response: String(expected),
    method: 'GET',
    scenario: request.scenario,
    status: String(status),
    svc_commands: String(request.commands ?? 1),
  };
  const sentAt = request.at - request.latencyMs;
  const points: K6Point[] = [];
  if (request.sent ?? true) points.push(point('svc_sent', sentAt, 1, { ...own, scenario: request.scenario }));
  const companions = options.companions ?? true;
  if (companions) points.push(point('http_reqs', request.at, 1, tags));
  points.push(point('http_req_duration', request.at, request.latencyMs, tags));
  if (companions) {
    points.push(point('http_req_failed', request.at, expected ? 0 : 1, tags));
    points.push(point('iterations', request.at, 1, { ...options.extra, scenario: request.scenario }));
  }
  return points;
}

export const checkPoint = (scenario: string, name: string, ok: boolean, at: number) =>
  point('checks', at, ok ? 1 : 0, { check: name, scenario });

export const droppedPoint = (scenario: string, count: number, at: number) =>
  point('dropped_iterations', at, count, { scenario });

export const tallyPoint = (scenario: string, name: string, value: number, at: number) =>
  point('svc_tally', at, value, { scenario, tally: name });

/** From setup, so without a `scenario` tag: the harness threshold text the script was given. */
export const thresholdPoint = (scenario: string, text: string, at: number) =>
  point('svc_threshold', at, 0, { svc_scenario: scenario, threshold: text });

/** The file's lines: each metric declared once before its first sample, as k6 does. */
export function k6Lines(points: readonly K6Point[]): string[] {
  const declared = new Set<string>();
  const lines: string[] = [];
  for (const sample of points) {
    if (!declared.has(sample.metric)) {
      declared.add(sample.metric);
      const [type, contains] = metricTypes[sample.metric] ?? ['counter', 'default'];
      lines.push(
        JSON.stringify({
          type: 'Metric',
          data: { name: sample.metric, type, contains, thresholds: [], submetrics: null },
          metric: sample.metric,
        }),
      );
    }
    lines.push(
      JSON.stringify({
        metric: sample.metric,
        type: 'Point',
        data: {
          time: k6Time(sample.at),
          value: sample.value,
          tags: sample.tags,
          ...(sample.metadata !== undefined && { metadata: sample.metadata }),
        },
      }),
    );
  }
  return lines;
}

/** Writes lines as they are; gzipped when the name ends in `.gz`, as `--out json=x.json.gz` does. */
export async function writeLines(path: string, lines: readonly string[]): Promise<string> {
  const text = `${lines.join('\n')}\n`;
  await writeFile(path, path.endsWith('.gz') ? gzipSync(text) : text);
  return path;
}

/** Writes the samples as k6's JSON output. */
export const writeK6Output = (path: string, points: readonly K6Point[]) => writeLines(path, k6Lines(points));

/** A temporary folder the global setup watches: remove it in afterAll. */
export function tempFolder(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `svc-k6-${label}-`));
}

/** The message of the harness error `promise` rejects with, after checking its code and that it is one line. */
export async function harnessRejection(code: ErrorCode, promise: Promise<unknown>): Promise<string> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(isHarnessError(caught) && caught.code, String(caught)).toBe(code);
  const message = (caught as Error).message;
  expect(message).not.toContain('\n');
  return message;
}
