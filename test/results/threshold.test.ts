/**
 * Thresholds: every text form parses to one normalised threshold, every malformed one is a one-line
 * usage error naming the text, and evaluation over a scenario built from real histograms reads the
 * exact value (percentiles by decode and add, rates, counts), with no data a failure.
 */
import { describe, expect, test } from 'vitest';
import { encodeHistogram, newHistogram, recordMs, summarize } from '../../src/results/histogram.ts';
import type {
  MessagingAccounting,
  RequestCounts,
  ScenarioResult,
  StreamAccounting,
  TagMetrics,
} from '../../src/results/load-run.ts';
import {
  appliesTo,
  evaluateThresholds,
  knownMetrics,
  parseThreshold,
  parseThresholds,
  thresholdValue,
} from '../../src/results/threshold.ts';
import { harnessErrorMessage } from '../support/harness-error.ts';

const usageError = (run: () => unknown) => harnessErrorMessage('SVC_USAGE', run);
const value = (text: string, scenario: ScenarioResult) => thresholdValue(parseThreshold(text, 'cli'), scenario);

/** An encoded histogram and its summary holding the given latencies (ms). */
function histogramOf(latencies: readonly number[]) {
  const histogram = newHistogram();
  for (const ms of latencies) recordMs(histogram, ms);
  const result = { histogram: encodeHistogram(histogram), latencyMs: summarize(histogram) };
  histogram.destroy();
  return result;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const counts = (sent: number, failed: number, dropped = 0): RequestCounts => ({
  sent,
  completed: sent - failed,
  failed,
  dropped,
});

function tagEntry(tags: Record<string, string>, latencies: readonly number[], requests: RequestCounts): TagMetrics {
  return { tags, requests, commands: requests.completed, ...histogramOf(latencies) };
}

/** 1..1000 ms over 10 s; tags batch 100 (two value sizes, 1..500 and 501..1000) and batch 1 (empty). */
function scenario(overrides: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    name: 'pipeline',
    title: 'Pipeline',
    engine: 'node',
    model: 'open',
    settings: { durationS: 10, connections: 4, workers: 1, seed: 1 },
    startedAt: '2024-01-01T00:00:00.000Z',
    durationMs: 10_000,
    requests: counts(1000, 20, 5),
    commands: 50_000,
    throughput: { requestsPerSecond: 100, commandsPerSecond: 5000 },
    ...histogramOf(range(1, 1000)),
    series: [],
    tags: [
      tagEntry({ batch: '100', value: '16' }, range(1, 500), counts(500, 5)),
      tagEntry({ batch: '100', value: '1024' }, range(501, 1000), counts(500, 15)),
      tagEntry({ batch: '1', value: '16' }, [], counts(0, 0)),
    ],
    checks: [
      { name: 'answer is OK', passes: 990, fails: 10 },
      { name: 'body matches', passes: 500, fails: 500 },
    ],
    errors: [],
    counters: {},
    accounting: { lostUpdates: 3 },
    thresholds: [],
    ...overrides,
  };
}

describe('parseThreshold', () => {
  test('reads metric, tags, aggregation, operator and bound, and normalises the text', () => {
    expect(parseThreshold('http_req_duration:p(99)<50', 'cli')).toEqual({
      text: 'http_req_duration: p(99) < 50',
      metric: 'http_req_duration',
      tags: {},
      aggregation: 'p(99)',
      operator: '<',
      bound: 50,
      source: 'cli',
    });
    const tagged = parseThreshold('  http_req_duration{ batch : 100 , value:16 }:  p(95)  <  200 ', 'scenario');
    expect(tagged).toMatchObject({ tags: { batch: '100', value: '16' }, aggregation: 'p(95)', source: 'scenario' });
    expect(tagged.text).toBe('http_req_duration{batch:100,value:16}: p(95) < 200');
  });

  test.each([
    ['http_req_failed:rate<0.01', 'http_req_failed: rate < 0.01'],
    ['lost_updates:count==0', 'lost_updates: count == 0'],
    ['lost_updates:count===0', 'lost_updates: count === 0'],
    ['checks{check:answer is OK}:rate>0.99', 'checks{check:answer is OK}: rate > 0.99'],
    ['http_req_duration{scenario:pipeline}:max<=2000', 'http_req_duration{scenario:pipeline}: max <= 2000'],
    ['http_req_duration{}:p(99.9)>=1e3', 'http_req_duration: p(99.9) >= 1000'],
    ['delivery_latency:med!=-1.5', 'delivery_latency: med != -1.5'],
    ['http_reqs : rate > 10', 'http_reqs: rate > 10'],
    ['http_req_duration:avg<5', 'http_req_duration: avg < 5'],
    ['http_req_duration:p(100)<5', 'http_req_duration: p(100) < 5'],
  ])('%s', (text, normalised) => {
    expect(parseThreshold(text, 'cli').text).toBe(normalised);
  });

  test.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['http_req_latency:p(99)<50', 'unknown metric http_req_latency; known: http_req_duration, '],
    ['HTTP_REQ_DURATION:p(99)<50', 'bad metric name'],
    ['http_req_failed:p(99)<50', 'http_req_failed is a rate metric and does not support p(99); supported: rate'],
    ['http_req_duration:rate<1', 'http_req_duration is a trend metric and does not support rate; supported: avg, min'],
    ['lost_updates:avg<1', 'lost_updates is a counter metric and does not support avg; supported: count, rate'],
    ['http_req_duration:p99<50', 'unknown aggregation "p99"'],
    ['http_req_duration:p(99)=<50', 'expected an operator'],
    ['http_req_duration:p(99)=50', 'expected an operator'],
    ['http_req_duration:p(99)<', 'missing the number after <'],
    ['http_req_duration:p(99)<abc', '"abc" is not a finite number'],
    ['http_req_duration:p(99)<Infinity', 'is not a finite number'],
    ['http_req_duration:p(0)<50', 'bad percentile p(0)'],
    ['http_req_duration:p(101)<50', 'bad percentile p(101)'],
    ['http_req_duration:p()<50', 'bad percentile p()'],
    ['http_req_duration{batch:100:p(99)<50', 'unbalanced brace: { without }'],
    ['http_req_duration}:p(99)<50', 'unbalanced brace: } without {'],
    ['http_req_duration{batch:1}}:p(99)<50', 'unbalanced brace: } without {'],
    ['http_req_duration{batch}:p(99)<50', 'bad tag "batch"; expected key:value'],
    ['http_req_duration{a:1,a:2}:p(99)<50', 'tag a given twice'],
    ['lost_updates{batch:1}:count==0', 'lost_updates takes no tag batch; its tags: scenario'],
    ['http_req_duration', 'expected ":" and an expression'],
    ['http_req_duration:', 'missing expression'],
  ])('%j is one usage line naming it', (text, why) => {
    const message = usageError(() => parseThreshold(text, 'cli'));
    expect(message.startsWith(`threshold ${JSON.stringify(text)}: `)).toBe(true);
    expect(message).toContain(why);
    expect(message).not.toContain('\n');
  });

  test('a text with a newline still gives one line', () => {
    expect(usageError(() => parseThreshold('http_req_duration:\np(99)<x', 'cli'))).not.toContain('\n');
  });

  test('knownMetrics lists every metric with its kind', () => {
    expect(knownMetrics.http_req_duration).toBe('trend');
    expect(knownMetrics.checks).toBe('rate');
    expect(knownMetrics.delivery_out_of_order).toBe('counter');
    expect(Object.hasOwn(knownMetrics, 'constructor')).toBe(false);
    expect(usageError(() => parseThreshold('constructor:count<1', 'cli'))).toContain('unknown metric constructor');
  });
});

describe('parseThresholds', () => {
  test('keeps the order given', () => {
    const texts = ['http_req_failed:rate<0.01', 'http_req_duration:p(99)<50'];
    expect(parseThresholds(texts, 'scenario').map((item) => item.metric)).toEqual([
      'http_req_failed',
      'http_req_duration',
    ]);
  });

  test('the same threshold twice, whatever its spacing, tag order or number form, is one usage line', () => {
    const message = usageError(() =>
      parseThresholds(['http_req_duration{a:1,b:2}:p(99)<50', ' http_req_duration{b:2, a:1} : p(99) < 50.0'], 'cli'),
    );
    expect(message).toBe(
      'threshold " http_req_duration{b:2, a:1} : p(99) < 50.0": duplicate of "http_req_duration{a:1,b:2}:p(99)<50"',
    );
    // A different bound or operator is another threshold.
    expect(parseThresholds(['http_req_duration:p(99)<50', 'http_req_duration:p(99)<=50'], 'cli')).toHaveLength(2);
  });
});

describe('evaluation', () => {
  const run = scenario();

  test('p(99) of 1..1000 ms is about 990 ms; avg, min, max and med read the same histogram', () => {
    expect(value('http_req_duration:p(99)<50', run)).toBeCloseTo(990, -1);
    expect(Math.abs(value('http_req_duration:p(99)<50', run)! - 990) / 990).toBeLessThan(0.01);
    expect(value('http_req_duration:min<1', run)).toBe(1);
    expect(Math.abs(value('http_req_duration:max<1', run)! - 1000)).toBeLessThan(1);
    expect(Math.abs(value('http_req_duration:avg<1', run)! - 500.5)).toBeLessThan(1);
    expect(value('http_req_duration:med<1', run)).toBe(run.latencyMs.p50);
  });

  test('a tag filter merges its entries into the percentiles of one histogram holding all their samples', () => {
    // The two batch:100 entries hold 1..500 and 501..1000: exactly the scenario's own histogram.
    for (const aggregation of ['p(95)', 'p(99.9)', 'p(50)', 'avg', 'min', 'max', 'med']) {
      expect(value(`http_req_duration{batch:100}:${aggregation}<1`, run)).toBe(
        value(`http_req_duration:${aggregation}<1`, run),
      );
    }
    expect(value('http_req_duration{batch:100,value:16}:max<1', run)).toBeCloseTo(500, 0);
  });

  test('rates and counts', () => {
    expect(value('http_req_failed:rate<0.01', run)).toBe(0.02);
    expect(value('http_req_failed{value:1024}:rate<0.01', run)).toBe(0.03);
    expect(value('http_reqs:count>0', run)).toBe(1000);
    expect(value('http_reqs:rate>0', run)).toBe(100);
    expect(value('http_reqs{batch:100,value:16}:count>0', run)).toBe(500);
    expect(value('dropped_iterations:count==0', run)).toBe(5);
    expect(value('commands:rate>0', run)).toBe(5000);
    expect(value('lost_updates:count==0', run)).toBe(3);
    // Not accounted for is no data (the scenario did not show there were none), not zero.
    expect(value('doubled_updates:count==0', run)).toBe(null);
    expect(value('checks:rate>0.99', run)).toBe(1490 / 2000);
    expect(value('checks{check:answer is OK}:rate>0.99', run)).toBe(0.99);
  });

  test('fan-out metrics read the delivery accounting', () => {
    const delivery = {
      subscribers: 2,
      expected: 200,
      received: 199,
      lost: 1,
      duplicated: 2,
      outOfOrder: 0,
      ...histogramOf(range(1, 100)),
    };
    const fanOut = scenario({ accounting: { delivery } });
    expect(value('delivery_lost:count==0', fanOut)).toBe(1);
    expect(value('delivery_duplicated:rate<1', fanOut)).toBe(0.2);
    expect(value('delivery_out_of_order:count==0', fanOut)).toBe(0);
    expect(value('delivery_latency:max<1000', fanOut)).toBeCloseTo(100, 0);
  });

  test('no data is null and fails', () => {
    for (const text of [
      'http_req_duration{batch:1}:p(99)<50', // the entry's histogram is empty
      'http_req_duration{batch:7}:p(99)<50', // no entry matches
      'http_req_failed{batch:1}:rate<0.01', // no request sent
      'http_reqs{batch:7}:count>=0',
      'checks{check:missing}:rate>0.5',
      'delivery_lost:count==0', // no fan-out in this scenario
      'delivery_latency:p(99)<50',
    ]) {
      expect(value(text, run), text).toBeNull();
      expect(evaluateThresholds([parseThreshold(text, 'cli')], run)[0]?.ok, text).toBe(false);
    }
    expect(value('http_reqs:rate>0', scenario({ durationMs: 0 }))).toBeNull();
  });

  test('evaluates in order, passing and failing, and leaves out thresholds for another scenario', () => {
    const thresholds = [
      ...parseThresholds(['http_req_duration:p(99)<2000', 'http_req_failed:rate<0.01'], 'scenario'),
      ...parseThresholds(
        ['http_req_duration{scenario:fanout}:max<1', 'lost_updates{scenario:pipeline}:count==0'],
        'cli',
      ),
    ];
    expect(appliesTo(thresholds[2]!, 'pipeline')).toBe(false);
    expect(appliesTo(thresholds[2]!, 'fanout')).toBe(true);
    expect(evaluateThresholds(thresholds, run)).toEqual([
      {
        expression: 'http_req_duration: p(99) < 2000',
        metric: 'http_req_duration',
        source: 'scenario',
        ok: true,
        value: expect.closeTo(990, -1),
      },
      {
        expression: 'http_req_failed: rate < 0.01',
        metric: 'http_req_failed',
        source: 'scenario',
        ok: false,
        value: 0.02,
      },
      {
        expression: 'lost_updates{scenario:pipeline}: count == 0',
        metric: 'lost_updates',
        source: 'cli',
        ok: false,
        value: 3,
      },
    ]);
  });

  test.each([
    ['lost_updates:count==3', true],
    ['lost_updates:count===3', true],
    ['lost_updates:count!=3', false],
    ['lost_updates:count<3', false],
    ['lost_updates:count<=3', true],
    ['lost_updates:count>2', true],
    ['lost_updates:count>=4', false],
  ])('%s → ok %s', (text, ok) => {
    expect(evaluateThresholds([parseThreshold(text, 'cli')], run)[0]?.ok).toBe(ok);
  });
});

describe('messaging metrics', () => {
  const stream = (
    lost: number,
    duplicated: number,
    latencies: readonly number[],
    byTags: StreamAccounting['byTags'] = [],
  ) =>
    ({
      expected: 100,
      received: 100 - lost,
      lost,
      duplicated,
      unexpected: 0,
      badSignatures: 0,
      ...histogramOf(latencies),
      byTags,
    }) satisfies StreamAccounting;
  const tagged = (endpoint: string, lost: number, latencies: readonly number[]) => ({
    tags: { endpoint },
    expected: 50,
    received: 50 - lost,
    lost,
    duplicated: 0,
    ...histogramOf(latencies),
  });
  const messaging: MessagingAccounting = {
    delivery: stream(3, 2, range(1, 100), [tagged('e0', 1, range(1, 50)), tagged('e1', 2, range(51, 100))]),
    callbacks: stream(1, 5, range(201, 300)),
    failureCallbacks: stream(0, 0, [700]),
    complete: histogramOf([900]),
    series: [],
    accepted: 100,
    waitedS: 0,
    strays: 0,
    unclassified: 0,
    signatures: { verified: 0, failed: 0, unchecked: 0, replays: 0 },
  };
  const run = scenario({ name: 'callback-throughput', accounting: { messaging } });

  test.each([
    ['messages_lost:count==0', 4],
    ['messages_lost{stream:callback}:count==0', 1],
    ['messages_lost{stream:delivery,endpoint:e1}:count==0', 2],
    ['messages_duplicated:count==0', 7],
    ['messages_duplicated{stream:failureCallback}:count==0', 0],
    ['messages_lost{stream:waiter}:count==0', null],
    ['delivery_latency:max<1', 100],
    ['delivery_latency{endpoint:e0}:max<1', 50],
    ['delivery_latency{endpoint:e9}:max<1', null],
    ['callback_latency:min<1', 201],
    ['failure_callback_latency:p(99)<1', 700],
    ['waiter_latency:p(99)<1', null],
    ['complete_latency:max<1', 900],
  ])('%s reads %s', (text, expected) => {
    const read = value(text, run);
    if (expected === null) expect(read).toBeNull();
    else expect(read).toBeCloseTo(expected, 0);
  });

  test('no messaging accounting is no data; a stream tag only on the counters, with a known stream', () => {
    expect(value('messages_lost:count==0', scenario())).toBeNull();
    expect(value('callback_latency:p(99)<1', scenario())).toBeNull();
    expect(usageError(() => parseThreshold('delivery_latency{stream:callback}:p(99)<1', 'cli'))).toContain(
      'takes no tag stream',
    );
    expect(usageError(() => parseThreshold('messages_lost{stream:callbacks}:count==0', 'cli'))).toContain(
      'unknown stream callbacks',
    );
  });
});
