/**
 * k6's `options` from the harness's scenario plans (k6-options.ts) and the execution segments of a
 * run split over N k6 processes (run-k6-scenario.ts). The open model is an arrival-rate executor
 * capped at the connections (so k6 drops, and counts, what no free VU can send), a fractional rate
 * keeps its spacing as a whole number per 1,000 s, a ramp starts from 0 with the plan's stages, the
 * closed model is constant-vus; scenarios run one after another with the timeout's grace between
 * them; only metrics k6 knows become k6 thresholds, scoped to their scenario; k6 writes the system
 * tags the reader needs and none that would carry keys.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  execName,
  type K6ScenarioPlan,
  k6Options,
  k6ThresholdKey,
} from '../../../../src/engines/load/k6/k6-options.ts';
import { executionSegments } from '../../../../src/engines/load/k6/run-k6-scenario.ts';
import { k6SystemTags } from '../../../../src/engines/load/k6/script/k6-config.ts';
import type { ScenarioOptions } from '../../../../src/protocol/scenario.ts';
import { parseThreshold } from '../../../../src/results/threshold.ts';

const options = (overrides: Partial<ScenarioOptions> = {}): ScenarioOptions => ({
  durationS: 10,
  rate: 200,
  connections: 64,
  batch: [1],
  valueSize: [16],
  seed: 1,
  params: {},
  ...overrides,
});

const openPlan = (name: string, overrides: Partial<ScenarioOptions> = {}): K6ScenarioPlan => ({
  name,
  model: 'open',
  options: options(overrides),
  thresholds: [],
});

/** k6's executors as k6Options writes them; the fields a test reads. */
interface Executor {
  readonly executor: string;
  readonly exec: string;
  readonly startTime: string;
  readonly gracefulStop: string;
  readonly [field: string]: unknown;
}

function scenariosOf(built: Record<string, unknown>): Record<string, Executor> {
  return built.scenarios as Record<string, Executor>;
}

function executorOf(built: Record<string, unknown>, name: string): Executor {
  const executor = scenariosOf(built)[name];
  if (!executor) throw new Error(`no k6 scenario ${name}`);
  return executor;
}

/** `16000ms` → 16000: every duration k6Options writes is whole milliseconds. */
function ms(duration: string): number {
  const match = /^(\d+)ms$/.exec(duration);
  if (!match) throw new Error(`not a duration in ms: ${duration}`);
  return Number(match[1]);
}

describe('executors', () => {
  test('the open model: constant-arrival-rate at the rate, VUs capped at the connections, grace = timeout + 1 s', () => {
    const built = k6Options([openPlan('command')], 5_000);
    expect(executorOf(built, 'command')).toEqual({
      executor: 'constant-arrival-rate',
      rate: 200,
      timeUnit: '1s',
      duration: '10000ms',
      // 100 ms of arrivals at 200/s made up front (20); k6 adds VUs up to the cap while it runs.
      preAllocatedVUs: 20,
      maxVUs: 64,
      exec: 'scenario_0',
      startTime: expect.any(String),
      // In-flight requests end (answered or timed out) before k6 stops the scenario.
      gracefulStop: '6000ms',
    });
  });

  test('a fractional rate: 2.5/s is 2,500 per 1,000 s, the same spacing between arrivals', () => {
    const executor = executorOf(k6Options([openPlan('command', { rate: 2.5 })], 5_000), 'command');
    expect(executor).toMatchObject({ executor: 'constant-arrival-rate', rate: 2_500, timeUnit: '1000s' });
    // Few arrivals: the floor of 10 VUs, never above the connections.
    expect(executor).toMatchObject({ preAllocatedVUs: 10, maxVUs: 64 });
    const few = executorOf(k6Options([openPlan('command', { rate: 2.5, connections: 3 })], 5_000), 'command');
    expect(few).toMatchObject({ preAllocatedVUs: 3, maxVUs: 3 });
  });

  test('any rate and connections: preAllocatedVUs ≤ maxVUs = connections, and rate / timeUnit is the rate', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0.01, max: 100_000, noNaN: true })),
        fc.integer({ min: 1, max: 10_000 }),
        (rate, connections) => {
          const executor = executorOf(k6Options([openPlan('command', { rate, connections })], 1_000), 'command');
          expect(executor.maxVUs).toBe(connections);
          expect(executor.preAllocatedVUs).toBeGreaterThanOrEqual(1);
          expect(executor.preAllocatedVUs).toBeLessThanOrEqual(connections);
          expect(Number.isInteger(executor.rate)).toBe(true);
          const unit = /^(\d+)(ms|s)$/.exec(executor.timeUnit as string);
          const unitS = Number(unit?.[1]) / (unit?.[2] === 'ms' ? 1000 : 1);
          const perSecond = (executor.rate as number) / unitS;
          // Whole iterations per 1,000 s (or one per whole-millisecond interval below 1/s): close to the rate asked.
          expect(Math.abs(perSecond - rate) / rate).toBeLessThanOrEqual(0.0005);
        },
      ),
      { seed: 6, numRuns: 300 },
    );
  });

  test('a ramp with a fractional rate scales every stage to a 1,000 s time unit (k6 takes whole targets only)', () => {
    const plan: K6ScenarioPlan = {
      ...openPlan('command', { durationS: 20, rate: 2.5 }),
      ramp: [
        { durationS: 10, rate: 2.5 },
        { durationS: 10, rate: 1 },
      ],
    };
    expect(executorOf(k6Options([plan], 1_000), 'command')).toMatchObject({
      timeUnit: '1000s',
      stages: [
        { target: 2500, duration: '10000ms' },
        { target: 1000, duration: '10000ms' },
      ],
    });
  });

  test('a rate under one a second is one iteration per its interval; the first scenario starts at 0', () => {
    expect(executorOf(k6Options([openPlan('command', { rate: 0.25 })], 1_000), 'command')).toMatchObject({
      rate: 1,
      timeUnit: '4000ms',
      startTime: '0ms',
    });
  });

  test('a ramp: ramping-arrival-rate from 0 through the stages, VUs sized for the peak', () => {
    const plan: K6ScenarioPlan = {
      ...openPlan('pipeline', { durationS: 45, rate: 500, connections: 256 }),
      ramp: [
        { durationS: 10, rate: 100 },
        { durationS: 30, rate: 500 },
        { durationS: 5, rate: 0 },
      ],
    };
    expect(executorOf(k6Options([plan], 2_000), 'pipeline')).toEqual({
      executor: 'ramping-arrival-rate',
      startRate: 0,
      timeUnit: '1s',
      stages: [
        { target: 100, duration: '10000ms' },
        { target: 500, duration: '30000ms' },
        { target: 0, duration: '5000ms' },
      ],
      // 100 ms at the peak, 500/s.
      preAllocatedVUs: 50,
      maxVUs: 256,
      exec: 'scenario_0',
      startTime: expect.any(String),
      gracefulStop: '3000ms',
    });
  });

  test('the closed model: constant-vus, one VU per connection, no arrival rate', () => {
    const plan: K6ScenarioPlan = { ...openPlan('transaction', { durationS: 20, connections: 16 }), model: 'closed' };
    expect(executorOf(k6Options([plan], 5_000), 'transaction')).toEqual({
      executor: 'constant-vus',
      vus: 16,
      duration: '20000ms',
      exec: 'scenario_0',
      startTime: expect.any(String),
      gracefulStop: '6000ms',
    });
  });

  test('scenarios one after another: each starts when the one before has ended and had its grace', () => {
    const plans: K6ScenarioPlan[] = [
      openPlan('command', { durationS: 10 }),
      { ...openPlan('transaction', { durationS: 20 }), model: 'closed' },
      { ...openPlan('pipeline', { durationS: 45 }), ramp: [{ durationS: 45, rate: 100 }] },
    ];
    const built = k6Options(plans, 2_000);
    expect(Object.keys(scenariosOf(built))).toEqual(['command', 'transaction', 'pipeline']);
    const [command, transaction, pipeline] = plans.map((plan) => executorOf(built, plan.name));
    // The first at once (k6 durations here are at least 1 ms).
    expect(ms(command?.startTime ?? '')).toBeLessThanOrEqual(1);
    // 10 s of load + 3 s grace (2 s timeout + 1 s), then 20 s + 3 s more.
    expect(transaction?.startTime).toBe('13000ms');
    expect(pipeline?.startTime).toBe('36000ms');
    expect(plans.map((plan) => executorOf(built, plan.name).exec)).toEqual([0, 1, 2].map(execName));
    expect(plans.map((plan) => executorOf(built, plan.name).gracefulStop)).toEqual(['3000ms', '3000ms', '3000ms']);
  });
});

describe('thresholds and tags', () => {
  const parsed = (texts: readonly string[]) => texts.map((text) => parseThreshold(text, 'scenario'));

  test("only metrics k6 knows, keyed metric{scenario:NAME,...} with the threshold's tags kept", () => {
    const pipeline: K6ScenarioPlan = {
      ...openPlan('pipeline'),
      thresholds: parsed([
        'http_req_duration{batch:100,value:16}: p(99)<500',
        'http_req_duration{batch:100,value:16}: med<100',
        'http_req_failed: rate<0.01',
        'http_reqs: count>100',
        'checks{check:status is 200}: rate>0.99',
        'dropped_iterations: count<10',
        // The harness's own: k6 has no such metric, the harness judges them after the run.
        'commands: count>0',
        'lost_updates: count==0',
        'delivery_latency: p(99)<100',
      ]),
    };
    const command: K6ScenarioPlan = { ...openPlan('command'), thresholds: parsed(['http_req_failed: rate<0.01']) };
    expect(k6Options([pipeline, command], 5_000).thresholds).toEqual({
      // Two expressions on the same selection share one key, in the order given.
      'http_req_duration{scenario:pipeline,batch:100,value:16}': ['p(99)<500', 'med<100'],
      'http_req_failed{scenario:pipeline}': ['rate<0.01'],
      'http_reqs{scenario:pipeline}': ['count>100'],
      'checks{scenario:pipeline,check:status is 200}': ['rate>0.99'],
      'dropped_iterations{scenario:pipeline}': ['count<10'],
      // The same threshold on another scenario is another key: each judged on its own scenario's samples.
      'http_req_failed{scenario:command}': ['rate<0.01'],
    });
  });

  test('k6ThresholdKey puts the scenario first', () => {
    const threshold = parseThreshold('http_req_duration{batch:1}: p(99)<500', 'cli');
    expect(k6ThresholdKey(threshold, 'pipeline')).toBe('http_req_duration{scenario:pipeline,batch:1}');
    expect(k6ThresholdKey(parseThreshold('http_reqs: count<5', 'cli'), 'command')).toBe('http_reqs{scenario:command}');
  });

  test('systemTags: what the reader classes requests by, never url or name (they would carry keys)', () => {
    const built = k6Options([openPlan('command')], 5_000);
    expect(built.systemTags).toEqual(k6SystemTags);
    expect(k6SystemTags).toEqual(
      expect.arrayContaining(['status', 'error_code', 'expected_response', 'scenario', 'check']),
    );
    expect(k6SystemTags).not.toContain('url');
    expect(k6SystemTags).not.toContain('name');
    expect(built).toMatchObject({ setupTimeout: '120s', teardownTimeout: '120s' });
  });
});

describe('executionSegments', () => {
  test("k6-operator's sequences and each process's segment", () => {
    expect(executionSegments(1)).toEqual({ sequence: '0,1', segments: ['0:1'] });
    expect(executionSegments(2)).toEqual({ sequence: '0,1/2,1', segments: ['0:1/2', '1/2:1'] });
    expect(executionSegments(3)).toEqual({ sequence: '0,1/3,2/3,1', segments: ['0:1/3', '1/3:2/3', '2/3:1'] });
  });

  test('the segments cover 0 to 1 end to end, each as wide as the others', () => {
    const value = (text: string) => {
      const [numerator, denominator] = text.split('/').map(Number);
      return (numerator ?? Number.NaN) / (denominator ?? 1);
    };
    for (const count of [1, 2, 3, 4, 7, 16]) {
      const { sequence, segments } = executionSegments(count);
      expect(segments).toHaveLength(count);
      const points = sequence.split(',');
      segments.forEach((segment, index) => {
        const [from, to] = segment.split(':');
        // Each segment is two neighbouring points of the sequence, as k6 requires.
        expect([from, to]).toEqual([points[index], points[index + 1]]);
        expect(value(to ?? '') - value(from ?? '')).toBeCloseTo(1 / count, 12);
      });
      expect(value(points[0] ?? '')).toBe(0);
      expect(value(points.at(-1) ?? '')).toBe(1);
    }
  });
});
