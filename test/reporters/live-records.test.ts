/**
 * The live outputs' records (src/reporters/outputs/live-records.ts) from a real Recorder's progress
 * and a real scenario result: counters that are increases since the series' last point, per tag set
 * and per check, whose sums (live points plus the scenario's final ones) equal the result exactly,
 * requests counted without tags included; the last second's latency as the report's series point;
 * events with the run's labels; thresholds' current values once a second with an event at each
 * crossing (the end's judgement included); phases; a messaging scenario's streams at its end.
 */
import { describe, expect, test } from 'vitest';
import { progressOf } from '../../src/engines/load/part-progress.ts';
import { mergeParts, Recorder } from '../../src/engines/load/recorder.ts';
import { scenarioResult } from '../../src/engines/load/scenario-result.ts';
import { seededRandom } from '../../src/protocol/scenario.ts';
import { type LiveRecord, LiveRecords } from '../../src/reporters/outputs/live-records.ts';
import type { ScenarioResult } from '../../src/results/load-run.ts';
import { sampleHarnessRun } from './sample-load-run.ts';
import { sampleMessaging } from './sample-messaging.ts';
import { sampleResults } from './sample-run.ts';

const get = { op: 'get' };
const set = { op: 'set' };

/** A scenario of 3 s on one recorder: progress after each second, then more answers and a cut-short rest. */
function recordedScenario(): { records: LiveRecord[]; result: ScenarioResult } {
  const clock = new Date('2026-12-01T20:00:00.000Z');
  const records = new LiveRecords(() => clock);
  const out: LiveRecord[] = [
    ...records.runStart({ runId: 'r1', command: 'load', startedAt: clock.toISOString(), reportDir: '/tmp/r' }),
    ...records.scenarioStart('command', 'node, open model', {
      engine: 'node',
      target: 'embedded',
      embedded: true,
      durationS: 3,
    }),
  ];
  const recorder = new Recorder(0);
  const progress = (now: number) =>
    out.push(
      ...records.progress(
        progressOf([recorder.progress(now)], {
          scenario: 'command',
          engine: 'node',
          elapsedS: now / 1000,
          durationS: 3,
        }),
      ),
    );
  for (let second = 0; second < 3; second++) {
    for (let n = 0; n < 10 + second; n++) {
      const at = second * 1000 + n * 10;
      const tags = n % 3 === 0 ? set : get;
      recorder.sent(tags, at);
      if (n === 4) recorder.failed(tags, 'status', '500', at + 1);
      else recorder.completed(tags, 1, 1 + n, at + 2);
      recorder.check('status 200', n !== 4);
    }
    recorder.dropped(get, second * 1000 + 500);
    progress((second + 1) * 1000 + 5);
  }
  // After the last progress: answers in the drain, then two requests cut short (counted without tags).
  recorder.sent(get, 2990);
  recorder.completed(get, 1, 3, 3100);
  recorder.cutShort(2, 'still in flight', true);
  recorder.droppedUntagged(3, 2995);
  const base = {
    name: 'command',
    title: 'Commands',
    engine: 'node' as const,
    model: 'open' as const,
    settings: { durationS: 3, connections: 10, workers: 1, seed: 1 },
    startedAt: clock.toISOString(),
  };
  const result = scenarioResult({
    base,
    merged: mergeParts([recorder.part()]),
    finish: { checks: [{ name: 'status 200', ok: false }] },
    problems: [],
    loadSeconds: 3,
    durationMs: 3200,
    thresholds: [],
  });
  recorder.destroy();
  out.push(...records.scenarioEnd(result));
  return { records: out, result };
}

const points = (records: readonly LiveRecord[], metric: string) =>
  records.filter((record) => record.type === 'point' && record.metric === metric) as (LiveRecord & {
    value: number;
    count?: number;
    total?: number;
    tags: Record<string, string>;
    final?: true;
  })[];

const sum = (items: readonly { value: number }[]) => items.reduce((total, item) => total + item.value, 0);

describe('live records', () => {
  const { records, result } = recordedScenario();

  test('the counters add up to the result exactly: in all, per tag set, and per check', () => {
    const ended = result.requests.completed + result.requests.failed;
    expect(sum(points(records, 'http_reqs'))).toBe(ended);
    expect(points(records, 'http_req_failed').reduce((total, point) => total + (point.count ?? 0), 0)).toBe(
      result.requests.failed,
    );
    expect(sum(points(records, 'dropped_iterations'))).toBe(result.requests.dropped);
    for (const tag of result.tags) {
      const ofTag = points(records, 'http_reqs').filter((point) => point.tags.op === tag.tags.op);
      expect(sum(ofTag)).toBe(tag.requests.completed + tag.requests.failed);
    }
    // The requests counted without tags (cut short, k6-style drops) are the empty tag set's.
    const untagged = points(records, 'http_reqs').filter((point) => Object.keys(point.tags).length === 0);
    expect(sum(untagged)).toBe(2);
    const checks = points(records, 'checks');
    const passes = result.checks.reduce((total, check) => total + check.passes, 0);
    const fails = result.checks.reduce((total, check) => total + check.fails, 0);
    expect(checks.reduce((total, point) => total + (point.count ?? 0), 0)).toBe(passes);
    expect(checks.reduce((total, point) => total + (point.total ?? 0), 0)).toBe(passes + fails);
  });

  test('live points are increases since the last, with a rate; the end adds what they had not counted, marked final', () => {
    const live = points(records, 'http_reqs').filter((point) => point.final === undefined);
    const gets = live.filter((point) => point.tags.op === 'get').map((point) => point.value);
    const sets = live.filter((point) => point.tags.op === 'set').map((point) => point.value);
    // 10, 11, 12 requests a second, every third a set.
    expect(sets).toEqual([4, 4, 4]);
    expect(gets).toEqual([6, 7, 8]);
    const first = live.find((point) => point.tags.op === 'get') as { kind: string; elapsed_s: number; rate: number };
    expect(first).toMatchObject({ kind: 'counter', elapsed_s: 1.005 });
    expect(first.rate).toBeCloseTo(6 / 1.005, 2);
    const final = points(records, 'http_reqs').filter((point) => point.final === true);
    expect(final.map((point) => [point.tags, point.value])).toEqual(
      expect.arrayContaining([
        [get, 1],
        [{}, 2],
      ]),
    );
    expect(final.every((point) => !('rate' in point))).toBe(true);
  });

  test("the last whole second's latency is the report's series point of that second", () => {
    const trends = records.filter((record) => record.type === 'point' && record.metric === 'http_req_duration');
    expect(trends.map((point) => (point as { second: number }).second)).toEqual([0, 1, 2]);
    for (const trend of trends as unknown as {
      second: number;
      p50: number;
      p99: number;
      max: number;
      count: number;
    }[]) {
      const series = result.series.find((point) => point.second === trend.second);
      expect(trend).toMatchObject({ unit: 'ms', p50: series?.p50, p99: series?.p99, max: series?.max });
      expect(trend.count).toBe(series?.completed);
    }
  });

  test('every record has the run id; a load record the scenario, engine and target; events say what happened', () => {
    expect(records.every((record) => record.labels.run_id === 'r1')).toBe(true);
    for (const record of records.filter((item) => item.type === 'point')) {
      expect(record.labels).toMatchObject({ scenario: 'command', engine: 'node', target: 'embedded' });
    }
    const events = records.filter((record) => record.type === 'event').map((record) => record.event);
    expect(events).toEqual(['run_start', 'scenario_start', 'scenario_end']);
    expect(records.at(-1)).toMatchObject({
      event: 'scenario_end',
      requests: result.requests,
      latency_ms: { count: result.latencyMs.count, p99: result.latencyMs.p99 },
    });
  });

  test('a scenario that told no progress (k6 ended before its first second was read) has all of its counts in its final points', () => {
    const records = new LiveRecords();
    records.scenarioStart('command', 'k6', { engine: 'k6', target: 't', embedded: false, durationS: 1 });
    const { result } = recordedScenario();
    const end = records.scenarioEnd({ ...result, engine: 'k6' });
    expect(sum(points(end, 'http_reqs'))).toBe(result.requests.completed + result.requests.failed);
    expect(points(end, 'http_reqs').every((point) => point.final === true)).toBe(true);
    expect(end.at(-1)?.labels).toMatchObject({ scenario: 'command', engine: 'k6', target: 't' });
  });

  test("a conformance run's events: the target, each case's verdict with the rule it blames, problems, the run's end", () => {
    const records = new LiveRecords(() => new Date('2026-12-01T20:00:00.000Z'));
    records.runStart({ runId: 'r2', command: 'run', startedAt: '2026-12-01T20:00:00.000Z', reportDir: '/tmp/r' });
    const [target] = records.target('ref', true);
    expect(target).toMatchObject({ event: 'target', labels: { run_id: 'r2', target: 'ref' }, embedded: true });
    const cases = sampleResults.flatMap((result) => records.caseResult(result));
    expect(cases.map((record) => record.type === 'event' && record.verdict)).toEqual(
      sampleResults.map((result) => result.verdict.kind),
    );
    expect(cases[1]).toMatchObject({
      event: 'case',
      case_id: 'kv.fail',
      rules: ['B.a', 'B.b'],
      rule: 'B.b',
      reason: 'received <400> & "x" / expected 200 | y',
    });
    expect(cases[0]).not.toHaveProperty('reason');
    expect(records.problem('the sink lost a request')[0]).toMatchObject({
      event: 'problem',
      line: 'the sink lost a request',
    });
    const run = sampleHarnessRun('/tmp/r');
    expect(records.runEnd(run, { dropped_lines: 0 })[0]).toMatchObject({
      event: 'run_end',
      labels: { run_id: 'r2' },
      exit_code: run.exitCode,
      gate: 'failed',
      problems: run.problems.length,
      dropped_lines: 0,
    });
  });
});

describe('thresholds, phases and messaging streams', () => {
  const start = { engine: 'k6', target: 't', embedded: false, durationS: 3 };
  const judged = (ok: boolean, value: number | null) => ({
    expression: 'http_req_duration: p(99) < 5',
    metric: 'http_req_duration',
    source: 'cli' as const,
    ok,
    value,
  });
  const tick = (elapsedS: number, thresholds: ReturnType<typeof judged>[]) => ({
    scenario: 'command',
    engine: 'k6',
    elapsedS,
    durationS: 3,
    rate: 0,
    p99Ms: 0,
    errors: 0,
    dropped: 0,
    requests: { sent: 0, completed: 0, failed: 0, dropped: 0 },
    thresholds,
  });

  test("a threshold's value each second as a gauge, and an event each time it crosses (the end's judgement too)", () => {
    const records = new LiveRecords(() => new Date('2026-12-01T20:00:00.000Z'));
    records.runStart({ runId: 'r3', command: 'load', startedAt: '2026-12-01T20:00:00.000Z', reportDir: '/tmp/r' });
    records.scenarioStart('command', 'k6', start);
    const told = [
      records.progress(tick(1, [judged(false, null)])),
      records.progress(tick(2, [judged(true, 3.2)])),
      records.progress(tick(3, [judged(true, 4.1)])),
      records.progress(tick(4, [judged(false, 6.5)])),
    ];
    const gauges = told.flat().filter((record) => record.type === 'point' && record.metric === 'threshold');
    expect(gauges).toHaveLength(4);
    expect(gauges[1]).toMatchObject({
      kind: 'gauge',
      labels: { run_id: 'r3', scenario: 'command', engine: 'k6', threshold: 'http_req_duration: p(99) < 5' },
      value: 3.2,
      ok: true,
      threshold_metric: 'http_req_duration',
      source: 'cli',
      elapsed_s: 2,
    });
    // No data yet: null, not holding.
    expect(gauges[0]).toMatchObject({ value: null, ok: false });
    const crossings = told.map((batch) => batch.filter((record) => record.type === 'event'));
    // The first value is no crossing; failing → held at 2 s, held → failing at 4 s.
    expect(crossings.map((batch) => batch.length)).toEqual([0, 1, 0, 1]);
    expect(crossings[1]?.[0]).toMatchObject({
      event: 'threshold_crossed',
      ok: true,
      was_ok: false,
      value: 3.2,
      elapsed_s: 2,
    });
    expect(crossings[3]?.[0]).toMatchObject({ ok: false, was_ok: true, value: 6.5 });
    // The end judges it held after all: a crossing, then its judgement.
    const { result } = recordedScenario();
    const end = records.scenarioEnd({ ...result, engine: 'k6', thresholds: [judged(true, 4.9)] });
    const events = end.filter((record) => record.type === 'event');
    expect(events.map((record) => record.event)).toEqual(['threshold_crossed', 'threshold', 'scenario_end']);
    expect(events[0]).toMatchObject({ ok: true, was_ok: false, final: true });
  });

  test("a phase begins and ends: phase_start and phase_end with the scenario's labels", () => {
    const records = new LiveRecords(() => new Date('2026-12-01T20:00:00.000Z'));
    records.runStart({ runId: 'r4', command: 'load', startedAt: '2026-12-01T20:00:00.000Z', reportDir: '/tmp/r' });
    records.scenarioStart('command', 'node', { ...start, engine: 'node' });
    const change = { scenario: 'command', engine: 'node', phase: 'warmup', durationS: 1 } as const;
    const [begin] = records.phase({ ...change, edge: 'start' });
    const [end] = records.phase({ ...change, edge: 'end' });
    const labels = { run_id: 'r4', scenario: 'command', engine: 'node', target: 't' };
    expect(begin).toMatchObject({ type: 'event', event: 'phase_start', labels, phase: 'warmup', duration_s: 1 });
    expect(end).toMatchObject({ type: 'event', event: 'phase_end', labels, phase: 'warmup' });
  });

  test("a soak's fault: fault_start, then fault_end with its error or cut, labelled by the run and target", () => {
    const records = new LiveRecords(() => new Date('2026-12-01T20:00:00.000Z'));
    records.runStart({ runId: 'r5', command: 'soak', startedAt: '2026-12-01T20:00:00.000Z', reportDir: '/tmp/r' });
    records.target('reference', false);
    const change = { id: 'f2-1', fault: 'partition sink 30s every 15m', action: 'partition', path: 'sink' } as const;
    const [begin] = records.fault({ ...change, edge: 'start', elapsedS: 900.0004 });
    const [end] = records.fault({ ...change, edge: 'end', elapsedS: 930.1, cut: true });
    const labels = { run_id: 'r5', target: 'reference' };
    expect(begin).toEqual({
      type: 'event',
      time: '2026-12-01T20:00:00.000Z',
      event: 'fault_start',
      labels,
      fault_id: 'f2-1',
      fault: 'partition sink 30s every 15m',
      action: 'partition',
      path: 'sink',
      elapsed_s: 900,
    });
    expect(end).toMatchObject({ event: 'fault_end', labels, elapsed_s: 930.1, cut: true });
    const [failed] = records.fault({
      id: 'f1-1',
      fault: 'kill every 1m',
      action: 'kill',
      edge: 'end',
      elapsedS: 60,
      error: 'no process',
    });
    expect(failed).toMatchObject({ event: 'fault_end', action: 'kill', error: 'no process' });
    expect(failed).not.toHaveProperty('path');
  });

  test("a messaging scenario's streams at its end: expected, received, lost, duplicated, unexpected and latency per stream", () => {
    const messaging = sampleMessaging(
      [
        {
          stream: 'delivery',
          expected: [{ tags: {}, count: 40 }],
          lost: { 0: 2 },
          duplicated: { 0: 3 },
          unexpected: 1,
          medianMs: 4,
        },
        { stream: 'failureCallback', expected: [{ tags: {}, count: 5 }], medianMs: 9 },
      ],
      { accepted: 40, seconds: 2, seed: seededRandom(3) },
    );
    const { result } = recordedScenario();
    const records = new LiveRecords();
    records.scenarioStart('publish', 'node', { ...start, engine: 'node' });
    const end = records.scenarioEnd({ ...result, name: 'publish', accounting: { messaging } });
    const of = (stream: string) =>
      Object.fromEntries(
        end
          .filter((record) => record.type === 'point' && record.labels.stream === stream)
          .map((record) => [record.type === 'point' && record.metric, record]),
      );
    const delivery = of('delivery');
    const accounting = messaging.delivery;
    expect(delivery.messages_expected).toMatchObject({ kind: 'counter', final: true, value: accounting?.expected });
    expect(delivery.messages_received).toMatchObject({ value: accounting?.received });
    expect(delivery.messages_lost).toMatchObject({ value: 2 });
    expect(delivery.messages_duplicated).toMatchObject({ value: 3 });
    expect(delivery.messages_unexpected).toMatchObject({ value: 1 });
    expect(delivery.message_latency).toMatchObject({
      kind: 'trend',
      unit: 'ms',
      final: true,
      count: accounting?.latencyMs.count,
      p99: accounting?.latencyMs.p99,
    });
    expect(Object.keys(of('failure_callback')).sort()).toEqual([
      'message_latency',
      'messages_duplicated',
      'messages_expected',
      'messages_lost',
      'messages_received',
      'messages_unexpected',
    ]);
    expect(of('callback')).toEqual({});
  });

  test("kv-fanout's deliveries to its subscribers: the same counters under stream fanout, out of order among them", () => {
    const { result } = recordedScenario();
    const delivery = {
      subscribers: 8,
      expected: 80,
      received: 78,
      lost: 2,
      duplicated: 1,
      outOfOrder: 3,
      latencyMs: result.latencyMs,
      histogram: result.histogram,
    };
    const records = new LiveRecords();
    records.scenarioStart('kv-fanout', 'node', { ...start, engine: 'node' });
    const end = records.scenarioEnd({ ...result, name: 'kv-fanout', accounting: { delivery } });
    const fanout = end.filter((record) => record.type === 'point' && record.labels.stream === 'fanout');
    expect(
      Object.fromEntries(
        fanout.map((record) => [
          record.type === 'point' && record.metric,
          'value' in record ? record.value : record.count,
        ]),
      ),
    ).toEqual({
      messages_expected: 80,
      messages_received: 78,
      messages_lost: 2,
      messages_duplicated: 1,
      messages_out_of_order: 3,
      // No live points counted any: every arrival is the end's (received + duplicated), 1 a repeat.
      messages_arrived: 79,
      messages_repeated: 1,
      message_latency: result.latencyMs.count,
    });
  });
});
