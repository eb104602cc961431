/**
 * The open model's wake-ups (src/engines/load/arrival-ticks.ts): sparse arrivals are sent when due,
 * dense ones together on the next tick's edge, and none before it is due; through `runOpenPart` on a
 * real server, every arrival is sent at or after its due time, every one is counted, and its latency
 * is measured from that due time.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { arrivalTickMs, nextWakeAt } from '../../../src/engines/load/arrival-ticks.ts';
import { runOpenPart } from '../../../src/engines/load/open-model.ts';
import { constantSchedule } from '../../../src/engines/load/schedule.ts';
import { defineScenario } from '../../../src/protocol/scenario.ts';
import { decodeHistogram, summarize } from '../../../src/results/histogram.ts';

describe('nextWakeAt', () => {
  test('an arrival further away than a tick is woken for when due', () => {
    expect(nextWakeAt(1000.3, 1010, 1000, 4)).toBe(1010);
  });

  test('a dense arrival waits for the next tick edge from the origin', () => {
    // Due 0.5 ms after a wake at 1001 ms: the edge after 1001 is 1004.
    expect(nextWakeAt(1001, 1001.5, 1000, 4)).toBe(1004);
    // A wake exactly on an edge waits for the one after it.
    expect(nextWakeAt(1004, 1004.2, 1000, 4)).toBe(1008);
  });

  test('never before the arrival is due', () => {
    for (const [now, due] of [
      [0, 0.1],
      [3.9, 4.5],
      [7.99, 9],
      [12, 50],
    ] as const) {
      expect(nextWakeAt(now, due, 0, 4)).toBeGreaterThanOrEqual(due);
    }
  });

  test('a tick of 0 wakes for every arrival', () => {
    expect(nextWakeAt(1001, 1001.5, 1000, 0)).toBe(1001.5);
  });
});

describe('the open model on ticks', () => {
  let url = '';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"result":"OK"}');
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const scenario = defineScenario<null, undefined>({
    name: 'tick-probe',
    title: 'GET /',
    area: 'kv',
    defaults: { rate: 1, durationS: 1, batch: [1], valueSize: [0] },
    thresholds: [],
    setup: async () => null,
    request: () => ({ method: 'GET', path: '/', tags: {}, commands: 1, meta: undefined }),
    check: (_state, _request, answer) => [{ name: 'answered', ok: answer?.status === 200 }],
    finish: async () => ({}),
  });

  test('2,000 req/s for 0.5 s: each arrival sent at or after its due time, all counted, latency from due', async () => {
    const rate = 2000;
    const schedule = constantSchedule(rate, 0.5);
    const origin = performance.now();
    const sentLate: number[] = [];
    const recorder = await runOpenPart(
      scenario,
      null,
      { baseUrl: url, headers: {}, headerPrefix: 'Svc-', maxAnswerBytes: 1024 * 1024 },
      'net',
      {
        schedule,
        connections: 1000,
        timeoutMs: 5000,
        seed: 1,
        part: { index: 0, count: 1 },
        origin,
        drainMs: 5000,
      },
      new AbortController().signal,
      {
        observer: {
          sent: (n, at) => sentLate.push(at - (origin + schedule.dueAt(n) * 1000)),
          answered: () => {},
        },
      },
    );
    const part = recorder.part();
    recorder.destroy();
    expect(part.counts).toEqual({ sent: 1000, completed: 1000, failed: 0, dropped: 0 });
    expect(sentLate).toHaveLength(1000);
    // Never early, whatever the machine's load.
    expect(Math.min(...sentLate)).toBeGreaterThanOrEqual(0);
    // Dense at 2,000/s (0.5 ms apart): most wait for a tick edge, some for most of a tick.
    expect(sentLate.filter((late) => late > arrivalTickMs / 2).length).toBeGreaterThan(0);
    expect(part.checks).toEqual([{ name: 'answered', passes: 1000, fails: 0 }]);
    // Each latency runs from the due time, so the wait for the tick is in it: the slowest answer took
    // at least the longest wait for a wake-up (each end comes after its send).
    const histogram = decodeHistogram(part.histogram);
    const latency = summarize(histogram);
    histogram.destroy();
    expect(latency.max).toBeGreaterThanOrEqual(Math.floor(Math.max(...sentLate) * 100) / 100);
  });
});
