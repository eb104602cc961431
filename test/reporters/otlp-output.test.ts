/**
 * The OTLP output's writer against endpoints that fail, on real loopback node:http servers: one that
 * refuses every export (HTTP 400), one that is gone (nothing listens), and one that accepts and never
 * answers. The caller's write never waits on any of them, close() keeps its bound, every failed
 * export is one dropped batch, and the error it reports holds no credential of the URL. A token in
 * OTEL_EXPORTER_OTLP_HEADERS reaches the endpoint and no error line. What a real
 * collector receives is test/cli/outputs-otlp.test.ts's.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import type { LiveRecord } from '../../src/reporters/outputs/live-records.ts';
import { openOtlpOutput, otlpMetricsUrl } from '../../src/reporters/outputs/otlp-output.ts';
import { otlpAttributes } from '../../src/reporters/outputs/otlp-sdk.ts';
import { withoutCredentials } from '../../src/reporters/outputs/shown-url.ts';
import { closeServer, listenOnLoopback } from '../support/loopback.ts';

const labels = { run_id: '1f2e3d4c', scenario: 'command', engine: 'node', target: 'reference' };
const second = (index: number): LiveRecord[] => {
  const time = new Date().toISOString();
  return [
    { type: 'point', metric: 'http_reqs', kind: 'counter', labels, tags: { op: 'GET' }, time, value: 100 },
    {
      type: 'point',
      metric: 'http_req_failed',
      kind: 'rate',
      labels,
      tags: { op: 'GET' },
      time,
      value: 0.01,
      count: 1,
      total: 100,
    },
    {
      type: 'point',
      metric: 'http_req_duration',
      kind: 'trend',
      unit: 'ms',
      labels,
      time,
      second: index,
      count: 100,
      p50: 0.5,
      p90: 0.9,
      p99: 1.9,
      max: 4.1,
    },
    { type: 'event', event: 'problem', labels, time, line: 'not a metric: not sent' },
  ];
};

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => closeServer(server)));
});

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const server = createServer(handler);
  servers.push(server);
  return listenOnLoopback(server);
}

/**
 * Writes a second's records every 100 ms for `forMs` into a writer exporting every 200 ms; returns the
 * slowest write, then closes within 600 ms and returns how long that took and the totals.
 */
async function drive(url: string, forMs: number) {
  const writer = openOtlpOutput(url, { exportIntervalMs: 200, exportTimeoutMs: 200 });
  let slowestWriteMs = 0;
  for (let index = 0; index * 100 < forMs; index++) {
    const started = performance.now();
    writer.write(second(index));
    slowestWriteMs = Math.max(slowestWriteMs, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const started = performance.now();
  const totals = await writer.close(600);
  return { slowestWriteMs, closeMs: performance.now() - started, totals, writer };
}

describe('the OTLP URL and attributes', () => {
  test('the base URL gets /v1/metrics; a URL ending in it is taken as it is; only http(s)', () => {
    expect(otlpMetricsUrl('http://127.0.0.1:4318')).toBe('http://127.0.0.1:4318/v1/metrics');
    expect(otlpMetricsUrl('https://otlp.example/otlp/')).toBe('https://otlp.example/otlp/v1/metrics');
    expect(otlpMetricsUrl('http://127.0.0.1:4318/v1/metrics')).toBe('http://127.0.0.1:4318/v1/metrics');
    expect(otlpMetricsUrl('http://h/prefix/v1/metrics?tenant=a')).toBe('http://h/prefix/v1/metrics?tenant=a');
    expect(() => otlpMetricsUrl('ftp://h/x')).toThrow(/ftp: is not http: or https:/);
  });

  test('attributes: the labels, then the tags; a tag named as a label goes under tag.<name>', () => {
    expect(
      otlpAttributes({
        type: 'point',
        metric: 'checks',
        kind: 'rate',
        labels: { ...labels, check: 'status is 200' },
        tags: { op: 'GET', scenario: 'mine' },
        time: '',
        value: 1,
        count: 1,
        total: 1,
      }),
    ).toEqual({ ...labels, check: 'status is 200', op: 'GET', 'tag.scenario': 'mine' });
  });

  test("a stream's, a process's and a threshold's label is an attribute: their series stay apart", () => {
    const memory = (process: 'implementation' | 'harness') =>
      otlpAttributes({
        type: 'point',
        metric: 'process_resident_memory_bytes',
        kind: 'gauge',
        unit: 'bytes',
        labels: { ...labels, process },
        time: '',
        elapsed_s: 1,
        value: 1,
      });
    expect(memory('implementation')).toEqual({ ...labels, process: 'implementation' });
    expect(memory('harness')).toEqual({ ...labels, process: 'harness' });
    const lost = (stream: 'delivery' | 'callback') =>
      otlpAttributes({
        type: 'point',
        metric: 'messages_lost',
        kind: 'counter',
        labels: { ...labels, stream },
        tags: {},
        time: '',
        value: 0,
        final: true,
      });
    expect(lost('delivery')).toEqual({ ...labels, stream: 'delivery' });
    expect(lost('callback')).toEqual({ ...labels, stream: 'callback' });
    expect(
      otlpAttributes({
        type: 'point',
        metric: 'threshold',
        kind: 'gauge',
        labels: { ...labels, threshold: 'http_req_duration: p(99)<50' },
        time: '',
        value: 3.2,
        ok: true,
        threshold_metric: 'http_req_duration',
        source: 'scenario',
        elapsed_s: 1,
      }),
    ).toEqual({ ...labels, threshold: 'http_req_duration: p(99)<50' });
  });

  test("a printed destination shows no URL's user, password or query", () => {
    expect(withoutCredentials('https://user:s3cret@otlp.example/otlp?token=abc')).toBe(
      'https://***@otlp.example/otlp?***',
    );
    expect(withoutCredentials('http://127.0.0.1:4318')).toBe('http://127.0.0.1:4318/');
    expect(withoutCredentials('live/run.ndjson')).toBe('live/run.ndjson');
  });
});

describe('headers', () => {
  test("a backend's token comes from the SDK's own OTEL_EXPORTER_OTLP_HEADERS, and is in no error", async () => {
    const seen: (string | undefined)[] = [];
    const { url } = await serve((request, response) => {
      seen.push(request.headers.authorization);
      request.resume();
      response.writeHead(401).end();
    });
    const before = process.env.OTEL_EXPORTER_OTLP_HEADERS;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'authorization=Bearer t0ken';
    try {
      const { totals } = await drive(url, 500);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((value) => value === 'Bearer t0ken')).toBe(true);
      expect(totals.error).toMatch(/^HTTP 401/);
      expect(totals.error).not.toContain('t0ken');
    } finally {
      if (before === undefined) delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
      else process.env.OTEL_EXPORTER_OTLP_HEADERS = before;
    }
  }, 15_000);
});

describe('an endpoint that fails never holds the caller', () => {
  test('one that refuses every export (HTTP 400): each export one dropped batch, none written', async () => {
    let requests = 0;
    const { port } = await serve((request, response) => {
      requests++;
      request.resume();
      response.writeHead(400, { 'content-type': 'text/plain' }).end('refused');
    });
    const { slowestWriteMs, closeMs, totals } = await drive(`http://user:s3cret@127.0.0.1:${port}`, 1000);
    expect(requests).toBeGreaterThanOrEqual(2);
    expect(totals.written).toBe(0);
    expect(totals.dropped).toBeGreaterThanOrEqual(2);
    expect(totals.dropped).toBeLessThanOrEqual(requests);
    expect(totals.error ?? '').not.toContain('s3cret');
    expect(slowestWriteMs).toBeLessThan(50);
    expect(closeMs).toBeLessThan(1000);
  }, 15_000);

  test('one that is gone (nothing listens): dropped batches with the connection error', async () => {
    const { port } = await serve(() => {});
    await closeServer(servers.pop() as Server);
    const { slowestWriteMs, closeMs, totals } = await drive(`http://127.0.0.1:${port}`, 1000);
    expect(totals.written).toBe(0);
    expect(totals.dropped).toBeGreaterThanOrEqual(2);
    expect(totals.error).toMatch(/ECONNREFUSED|connect/);
    expect(slowestWriteMs).toBeLessThan(50);
    expect(closeMs).toBeLessThan(1000);
  }, 15_000);

  test('one that accepts and never answers: exports time out as dropped batches; close keeps its bound', async () => {
    let requests = 0;
    const { port } = await serve((request) => {
      requests++;
      request.resume();
      // Never answered: the socket stays open until the test's server closes it.
    });
    const { slowestWriteMs, closeMs, totals, writer } = await drive(`http://127.0.0.1:${port}`, 1500);
    expect(requests).toBeGreaterThanOrEqual(2);
    expect(totals.written).toBe(0);
    expect(totals.dropped).toBeGreaterThanOrEqual(2);
    expect(slowestWriteMs).toBeLessThan(50);
    // The bound given (600 ms) and a little for the timers, never the endpoint's time.
    expect(closeMs).toBeLessThan(900);
    // After close: writes are ignored, totals stay as they were.
    writer.write(second(99));
    expect(writer.totals()).toEqual(totals);
  }, 15_000);
});
