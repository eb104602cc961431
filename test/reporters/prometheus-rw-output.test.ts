/**
 * The prometheus-rw writer (src/reporters/outputs/prometheus-rw-output.ts) against real loopback
 * servers (node:http), each case bounded in time: a receiver that takes the batches (remote write 1.0's
 * headers, basic authentication from the URL, each series' samples rising in time, counters' last
 * samples the sums); one that refuses (a closed port, a 500), one that vanishes mid-run, one that never
 * answers, and one slower than the run (the queue's bound): `write` never waits, the batches lost are
 * counted, close() ends within its time, and the first reason is one line without the URL's secret.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import type { LiveRecord } from '../../src/reporters/outputs/live-records.ts';
import type { OutputWriter } from '../../src/reporters/outputs/output-writer.ts';
import { openPrometheusRwOutput } from '../../src/reporters/outputs/prometheus-rw-output.ts';
import { decodeWriteRequest, type TimeSeries } from '../../src/reporters/outputs/remote-write.ts';
import { withoutCredentials } from '../../src/reporters/outputs/shown-url.ts';
import { findFreePort } from '../../src/shared/free-port.ts';
import { closeServer, listenOnLoopback } from '../support/loopback.ts';

const labels = { run_id: 'r1', scenario: 'command', engine: 'node', target: 'reference' };
/** One second's http_reqs of two tag sets, all made at the same instant (timestamps must still rise). */
const second = (time: Date): LiveRecord[] =>
  ['GET', 'SET'].map((op) => ({
    type: 'point',
    metric: 'http_reqs',
    kind: 'counter',
    labels,
    tags: { op },
    time: time.toISOString(),
    value: op === 'GET' ? 3 : 1,
  }));

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly series: TimeSeries[];
}

const servers: Server[] = [];
const writers: OutputWriter[] = [];
afterEach(async () => {
  await Promise.all(writers.splice(0).map((writer) => writer.close(100)));
  await Promise.all(servers.splice(0).map(closeServer));
});

async function serve(answer: (request: IncomingMessage, body: Buffer, respond: (status: number) => void) => void) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () =>
      answer(request, Buffer.concat(chunks), (status) => {
        response.statusCode = status;
        response.end(status >= 300 ? 'out of bounds\nsecond line' : '');
      }),
    );
  });
  servers.push(server);
  return (await listenOnLoopback(server)).url;
}

function open(url: string, options: Parameters<typeof openPrometheusRwOutput>[1] = {}): OutputWriter {
  const writer = openPrometheusRwOutput(url, options);
  writers.push(writer);
  return writer;
}

/** Writes `seconds` seconds' records, one call each, and how long the longest call took (ms). */
function writeSeconds(writer: OutputWriter, seconds: number, time = new Date('2026-12-01T20:00:00Z')): number {
  let longest = 0;
  for (let index = 0; index < seconds; index++) {
    const started = performance.now();
    writer.write(second(new Date(time.getTime() + Math.floor(index / 2) * 1000)));
    longest = Math.max(longest, performance.now() - started);
  }
  return longest;
}

describe('openPrometheusRwOutput', () => {
  test("sends remote write 1.0's batches on a timer; each series rises in time; the last samples are the sums", async () => {
    const received: Received[] = [];
    const url = await serve((request, body, respond) => {
      received.push({ headers: request.headers, series: decodeWriteRequest(body) });
      respond(204);
    });
    const writer = open(`${url.replace('http://', 'http://rw:s%3Acret@')}/api/v1/write`, { flushEveryMs: 30 });
    writeSeconds(writer, 3);
    // Sealed by the timer, before any close (waited for up to 5 s: a loaded machine delays timers).
    for (let waited = 0; received.length === 0 && waited < 5000; waited += 25) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(received.length).toBeGreaterThan(0);
    writeSeconds(writer, 3, new Date('2026-12-01T20:00:02Z'));
    const totals = await writer.close(2000);
    expect(totals).toEqual({ written: received.length, dropped: 0 });
    expect(received[0]?.headers).toMatchObject({
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
      authorization: `Basic ${Buffer.from('rw:s:cret').toString('base64')}`,
    });
    const byOp = new Map<string, { value: number; timestamp: number }[]>();
    for (const series of received.flatMap((item) => item.series)) {
      const op = series.labels.find((label) => label.name === 'op')?.value ?? '';
      byOp.set(op, [...(byOp.get(op) ?? []), ...series.samples]);
    }
    for (const [op, samples] of byOp) {
      const times = samples.map((sample) => sample.timestamp);
      expect(
        times.every((time, index) => index === 0 || time > (times[index - 1] ?? 0)),
        op,
      ).toBe(true);
    }
    expect(byOp.get('GET')?.at(-1)?.value).toBe(18);
    expect(byOp.get('SET')?.at(-1)?.value).toBe(6);
  });

  test('a refusing endpoint (a closed port, a 500) costs its batches, counted, with the first reason in one line', async () => {
    const closed = open(`http://127.0.0.1:${await findFreePort()}/api/v1/write`, { flushEveryMs: 20 });
    const url = await serve((_request, _body, respond) => respond(500));
    const failing = open(`${url}/api/v1/write`, { flushEveryMs: 20 });
    for (const writer of [closed, failing]) {
      expect(writeSeconds(writer, 4)).toBeLessThan(50);
      await new Promise((resolve) => setTimeout(resolve, 100));
      writeSeconds(writer, 2, new Date('2026-12-01T20:00:05Z'));
    }
    const [refused, answered] = await Promise.all([closed.close(2000), failing.close(2000)]);
    expect(refused.written).toBe(0);
    expect(refused.dropped).toBeGreaterThanOrEqual(2);
    expect(refused.error).toMatch(/ECONNREFUSED/);
    expect(answered).toMatchObject({ written: 0, error: 'HTTP 500: out of bounds' });
    expect(answered.dropped).toBeGreaterThanOrEqual(2);
  });

  test('an endpoint that vanishes mid-run: what it took is written, what came after is dropped and counted', async () => {
    let taken = 0;
    const url = await serve((_request, _body, respond) => {
      taken++;
      respond(200);
    });
    const writer = open(`${url}/api/v1/write`, { flushEveryMs: 20 });
    writeSeconds(writer, 2);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(taken).toBeGreaterThan(0);
    const server = servers.pop();
    if (server) await closeServer(server);
    expect(writeSeconds(writer, 4, new Date('2026-12-01T20:00:05Z'))).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const totals = await writer.close(2000);
    expect(totals.written).toBe(taken);
    expect(totals.dropped).toBeGreaterThanOrEqual(1);
    expect(totals.error).toMatch(/ECONNREFUSED|ECONNRESET|socket|closed/i);
  });

  test('an endpoint that never answers: each request ends at its deadline, close() within its time, nothing waits', async () => {
    const url = await serve(() => {});
    const writer = open(`http://rw:hunter2@${url.slice('http://'.length)}/api/v1/write`, {
      flushEveryMs: 20,
      requestTimeoutMs: 200,
    });
    expect(writeSeconds(writer, 6)).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeSeconds(writer, 2, new Date('2026-12-01T20:00:05Z'));
    const started = performance.now();
    const totals = await writer.close(300);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(totals.written).toBe(0);
    expect(totals.dropped).toBeGreaterThanOrEqual(2);
    expect(totals.error).toBe('no answer within 0.2 s');
    expect(withoutCredentials(`http://rw:hunter2@${url.slice('http://'.length)}/api/v1/write`)).not.toContain(
      'hunter2',
    );
  });

  test('an endpoint slower than the run: the queue is bounded, the oldest batches dropped, and the newest carries the totals', async () => {
    const received: TimeSeries[][] = [];
    const url = await serve((_request, body, respond) => {
      received.push(decodeWriteRequest(body));
      setTimeout(() => respond(200), 150);
    });
    // Every write seals a batch (2 samples each); two may wait behind the one in flight.
    const writer = open(`${url}/api/v1/write`, { flushEveryMs: 10_000, maxBatchSamples: 2, maxQueuedBatches: 2 });
    writeSeconds(writer, 10);
    const totals = await writer.close(3000);
    expect(totals.written).toBe(received.length);
    expect(totals.written + totals.dropped).toBe(10);
    expect(totals.dropped).toBeGreaterThanOrEqual(5);
    expect(totals.error).toMatch(/queue was full/);
    const last = received.at(-1)?.flatMap((series) => series.samples.map((sample) => sample.value));
    expect(last).toEqual([30, 10]);
  });
});
