/**
 * A LoadRun for the renderers' tests: six scenarios (commands by op, a pipeline by batch size, a
 * contended transaction, a fan-out, a publish fan-out to 8 endpoints, callbacks) with real HDR histograms recorded from a seeded pseudo-random
 * sequence, so every run of the tests sees the same numbers, and one threshold that fails.
 */

import { seededRandom } from '../../src/protocol/scenario.ts';
import { combinedExitCode, type HarnessRun } from '../../src/results/harness-run.ts';
import { encodeHistogram, type Histogram, newHistogram, recordMs, summarize } from '../../src/results/histogram.ts';
import type {
  ErrorClass,
  LoadRun,
  RequestCounts,
  ScenarioResult,
  SeriesPoint,
  TagMetrics,
} from '../../src/results/load-run.ts';
import { sampleMessaging } from './sample-messaging.ts';
import { sampleRun } from './sample-run.ts';

/** A secret that must never reach a report: it stands in a run problem and in an error example. */
export const sampleSecret = 'some-secret';

/** Log-normal around `medianMs`, with a rare tail ten times slower (a GC pause, a retransmit). */
function latency(next: () => number, medianMs: number, spread = 0.35): number {
  const gaussian = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const tail = next() < 0.003 ? 10 : 1;
  return medianMs * Math.exp(spread * gaussian) * tail;
}

interface Request {
  readonly tags: Readonly<Record<string, string>>;
  readonly commands: number;
  readonly ms: number;
  readonly failed?: ErrorClass;
}

interface Simulated {
  readonly requests: RequestCounts;
  readonly commands: number;
  readonly histogram: Histogram;
  readonly series: SeriesPoint[];
  readonly tags: TagMetrics[];
}

const seconds = 10;

/**
 * Runs `draw` for about `perSecond` requests in each of 10 seconds (±10 %, as a real target wobbles)
 * and keeps what the engines would; untagged requests get no tag set.
 */
function simulate(perSecond: number, dropped: number, next: () => number, draw: () => Request): Simulated {
  const histogram = newHistogram();
  const byTag = new Map<
    string,
    { tags: Request['tags']; histogram: Histogram; completed: number; failed: number; commands: number }
  >();
  const series: SeriesPoint[] = [];
  let completed = 0;
  let failed = 0;
  let commands = 0;
  for (let second = 0; second < seconds; second++) {
    const perSecondHistogram = newHistogram();
    const sent = Math.round(perSecond * (0.9 + 0.2 * next()));
    let secondFailed = 0;
    for (let index = 0; index < sent; index++) {
      const request = draw();
      const key = JSON.stringify(request.tags);
      let tag = byTag.get(key);
      if (!tag && Object.keys(request.tags).length > 0) {
        tag = { tags: request.tags, histogram: newHistogram(), completed: 0, failed: 0, commands: 0 };
        byTag.set(key, tag);
      }
      if (request.failed) {
        failed++;
        secondFailed++;
        if (tag) tag.failed++;
        continue;
      }
      completed++;
      commands += request.commands;
      recordMs(histogram, request.ms);
      recordMs(perSecondHistogram, request.ms);
      if (tag) {
        tag.completed++;
        tag.commands += request.commands;
        recordMs(tag.histogram, request.ms);
      }
    }
    const summary = summarize(perSecondHistogram);
    perSecondHistogram.destroy();
    series.push({
      second,
      sent,
      completed: sent - secondFailed,
      failed: secondFailed,
      dropped: second === seconds - 1 ? dropped : 0,
      p50: summary.p50,
      p90: summary.p90,
      p99: summary.p99,
      max: summary.max,
    });
  }
  const tags = [...byTag.values()].map((tag) => {
    const metrics: TagMetrics = {
      tags: tag.tags,
      requests: { sent: tag.completed + tag.failed, completed: tag.completed, failed: tag.failed, dropped: 0 },
      commands: tag.commands,
      latencyMs: summarize(tag.histogram),
      histogram: encodeHistogram(tag.histogram),
    };
    tag.histogram.destroy();
    return metrics;
  });
  return { requests: { sent: completed + failed, completed, failed, dropped }, commands, histogram, series, tags };
}

type ScenarioParts = Pick<ScenarioResult, 'name' | 'title' | 'model' | 'settings'> &
  Partial<Pick<ScenarioResult, 'checks' | 'errors' | 'counters' | 'accounting' | 'thresholds' | 'problem'>>;

function scenario(parts: ScenarioParts, simulated: Simulated): ScenarioResult {
  const durationMs = seconds * 1000;
  const result: ScenarioResult = {
    engine: 'node',
    startedAt: '2026-11-21T00:00:02.000Z',
    durationMs,
    requests: simulated.requests,
    commands: simulated.commands,
    throughput: {
      requestsPerSecond: simulated.requests.completed / seconds,
      commandsPerSecond: simulated.commands / seconds,
    },
    latencyMs: summarize(simulated.histogram),
    histogram: encodeHistogram(simulated.histogram),
    series: simulated.series,
    tags: simulated.tags,
    checks: [],
    errors: [],
    counters: {},
    accounting: {},
    thresholds: [],
    ...parts,
  };
  simulated.histogram.destroy();
  return result;
}

const settings = { durationS: seconds, workers: 2, seed: 7 };

function commandScenario(): ScenarioResult {
  const next = seededRandom(1);
  const simulated = simulate(500, 3, next, () => {
    const get = next() < 0.7;
    const failed = next() < 0.001 ? ('timeout' as const) : undefined;
    return {
      tags: { op: get ? 'GET' : 'SET' },
      commands: 1,
      ms: latency(next, get ? 0.8 : 1.1),
      ...(failed && { failed }),
    };
  });
  const p99 = summarize(simulated.histogram).p99;
  const failRate = simulated.requests.failed / simulated.requests.sent;
  return scenario(
    {
      name: 'command',
      title: 'Single commands, GET and SET',
      model: 'open',
      settings: { ...settings, rate: 500, connections: 32 },
      checks: [{ name: 'status is 200', passes: simulated.requests.completed, fails: 0 }],
      errors: [
        {
          kind: 'timeout',
          count: simulated.requests.failed,
          example: `POST /kv?_token=${sampleSecret} did not answer within 1000 ms`,
        },
      ],
      thresholds: [
        {
          expression: 'http_req_duration: p(99)<5',
          metric: 'http_req_duration',
          source: 'scenario',
          ok: true,
          value: p99,
        },
        {
          expression: 'http_req_failed: rate<0.01',
          metric: 'http_req_failed',
          source: 'scenario',
          ok: true,
          value: failRate,
        },
      ],
    },
    simulated,
  );
}

function pipelineScenario(): ScenarioResult {
  const next = seededRandom(2);
  const batches = [1, 10, 100, 1000];
  const simulated = simulate(120, 0, next, () => {
    const batch = batches[Math.floor(next() * batches.length)] ?? 1;
    return { tags: { batch: String(batch) }, commands: batch, ms: latency(next, 0.6 + batch * 0.02, 0.25) };
  });
  // The one failing threshold: p99 of the largest batch against a bound it misses.
  const largest = simulated.tags.find((tag) => tag.tags.batch === '1000')?.latencyMs.p99 ?? null;
  return scenario(
    {
      name: 'pipeline',
      title: 'Pipelines by batch size',
      model: 'closed',
      settings: { ...settings, connections: 8, batch: batches },
      checks: [{ name: 'every command answered', passes: simulated.requests.completed, fails: 0 }],
      thresholds: [
        {
          expression: 'http_req_duration{batch:1000}: p(99)<20',
          metric: 'http_req_duration',
          source: 'cli',
          ok: false,
          value: largest,
        },
      ],
    },
    simulated,
  );
}

function transactionScenario(): ScenarioResult {
  const next = seededRandom(3);
  const simulated = simulate(200, 0, next, () => ({ tags: {}, commands: 3, ms: latency(next, 2.4, 0.5) }));
  return scenario(
    {
      name: 'transaction',
      title: 'Contended MULTI/EXEC counters',
      model: 'closed',
      settings: { ...settings, connections: 16 },
      checks: [{ name: 'EXEC answered an array', passes: simulated.requests.completed - 2, fails: 2 }],
      counters: { increments: simulated.requests.completed },
      accounting: { lostUpdates: 0, doubledUpdates: 0, unknownOutcomes: 2 },
    },
    simulated,
  );
}

function fanoutScenario(): ScenarioResult {
  const next = seededRandom(4);
  const simulated = simulate(100, 0, next, () => ({ tags: {}, commands: 1, ms: latency(next, 1.5) }));
  const delivery = newHistogram();
  const subscribers = 4;
  const expected = simulated.requests.completed * subscribers;
  for (let index = 0; index < expected - 2; index++) recordMs(delivery, latency(next, 3.5, 0.45));
  const latencyMs = summarize(delivery);
  const histogram = encodeHistogram(delivery);
  delivery.destroy();
  return scenario(
    {
      name: 'kv-fanout',
      title: 'Fan-out of key-space events',
      model: 'open',
      settings: { ...settings, rate: 100, connections: 4 },
      accounting: {
        delivery: {
          subscribers,
          expected,
          received: expected - 1,
          lost: 2,
          duplicated: 1,
          outOfOrder: 0,
          latencyMs,
          histogram,
        },
      },
      thresholds: [
        {
          expression: 'delivery_duplicated: count<5',
          metric: 'delivery_duplicated',
          source: 'scenario',
          ok: true,
          value: 1,
        },
      ],
    },
    simulated,
  );
}

/** Endpoints of the publish fan-out: e2 loses 3 deliveries, e5 gets 2 twice. */
export const fanoutEndpoints = 8;

function publishFanoutScenario(): ScenarioResult {
  const next = seededRandom(5);
  const simulated = simulate(40, 0, next, () => ({ tags: {}, commands: 1, ms: latency(next, 2.2) }));
  const accepted = simulated.requests.completed;
  const messaging = sampleMessaging(
    [
      {
        stream: 'delivery',
        expected: Array.from({ length: fanoutEndpoints }, (_, index) => ({
          tags: { endpoint: `e${index}` },
          count: accepted,
        })),
        lost: { 2: 3 },
        duplicated: { 5: 2 },
        medianMs: 12,
      },
    ],
    { accepted, seconds, seed: next, strays: 1 },
  );
  return scenario(
    {
      name: 'publish-fanout',
      title: 'Publish fan-out through a URL group',
      model: 'open',
      settings: { ...settings, rate: 40, connections: 100 },
      checks: [{ name: 'publish answered 201', passes: accepted, fails: 0 }],
      accounting: { messaging },
      thresholds: [
        { expression: 'messages_lost: count==0', metric: 'messages_lost', source: 'scenario', ok: false, value: 3 },
      ],
    },
    simulated,
  );
}

function callbackScenario(): ScenarioResult {
  const next = seededRandom(6);
  const simulated = simulate(60, 0, next, () => ({ tags: {}, commands: 1, ms: latency(next, 2.5) }));
  const accepted = simulated.requests.completed;
  const failing = Math.round(accepted * 0.05);
  const messaging = sampleMessaging(
    [
      { stream: 'delivery', expected: [{ tags: {}, count: accepted }], medianMs: 9 },
      { stream: 'callback', expected: [{ tags: {}, count: accepted - failing }], lost: { 0: 1 }, medianMs: 6 },
      { stream: 'failureCallback', expected: [{ tags: {}, count: failing }], badSignatures: 1, medianMs: 40 },
    ],
    { accepted, seconds, seed: next, completeMedianMs: 60 },
  );
  return scenario(
    {
      name: 'callback-throughput',
      title: 'Callbacks and failure callbacks end to end',
      model: 'open',
      settings: { ...settings, rate: 60, connections: 100 },
      accounting: { messaging },
      thresholds: [
        { expression: 'messages_lost: count==0', metric: 'messages_lost', source: 'scenario', ok: false, value: 1 },
      ],
    },
    simulated,
  );
}

export const sampleLoadRun: LoadRun = {
  startedAt: '2026-11-21T00:00:02.000Z',
  finishedAt: '2026-11-21T00:00:44.000Z',
  durationMs: 42_000,
  target: 'ref',
  embedded: true,
  scenarios: [
    commandScenario(),
    pipelineScenario(),
    transactionScenario(),
    fanoutScenario(),
    publishFanoutScenario(),
    callbackScenario(),
  ],
  problems: [`kv-fanout: subscriber 3 reconnected with token ${sampleSecret}`],
  exitCode: 99,
};

/** Both parts, as `svc-harness run` hands them to the reporters (the field mapping of conformanceOnly). */
export function sampleHarnessRun(reportDir: string): HarnessRun {
  return {
    startedAt: sampleRun.startedAt,
    finishedAt: sampleLoadRun.finishedAt,
    durationMs: sampleRun.durationMs + sampleLoadRun.durationMs,
    reportDir,
    exitCode: combinedExitCode(sampleRun.exitCode, sampleLoadRun.exitCode),
    problems: [...sampleRun.problems, ...sampleLoadRun.problems],
    conformance: { ...sampleRun, reportDir },
    load: sampleLoadRun,
  };
}
