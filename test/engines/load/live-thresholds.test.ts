/**
 * Thresholds judged while the load runs (live-thresholds.ts): only those of what the load counts; over
 * a real Recorder's totals they equal the end's judgement of the same records; `withThresholds` judges
 * once, when read, and leaves a scenario without live thresholds as it was.
 */
import { describe, expect, test } from 'vitest';
import { currentThresholds, liveThresholdsOf, withThresholds } from '../../../src/engines/load/live-thresholds.ts';
import { mergeParts, Recorder } from '../../../src/engines/load/recorder.ts';
import { scenarioResult } from '../../../src/engines/load/scenario-result.ts';
import type { LoadProgress } from '../../../src/results/reporter.ts';
import { parseThreshold, type Threshold } from '../../../src/results/threshold.ts';

const base = {
  name: 'command',
  title: 'Commands',
  engine: 'node' as const,
  model: 'open' as const,
  settings: { durationS: 2, connections: 10, workers: 1, seed: 1 },
  startedAt: '2026-12-01T20:00:00.000Z',
};

const texts = [
  'http_req_duration: p(99)<50',
  'http_req_duration{op:get}: p(90)<5',
  'http_req_failed: rate<0.01',
  'checks: rate>0.99',
  'http_reqs: count>10',
  'messages_lost: count==0',
  'lost_updates: count==0',
];
const thresholds = texts.map((text) => parseThreshold(text, 'cli'));

function recorded(): Recorder {
  const recorder = new Recorder(0);
  for (let n = 0; n < 200; n++) {
    const tags = n % 4 === 0 ? { op: 'set' } : { op: 'get' };
    recorder.sent(tags, n * 10);
    if (n % 50 === 7) recorder.failed(tags, 'status', '500', n * 10 + 1);
    else recorder.completed(tags, 1, 1 + (n % 9), n * 10 + 2);
    recorder.check('status 200', n % 50 !== 7);
  }
  return recorder;
}

/** The end's judgement of `parts` (2 s of load) by `live`. */
const endJudgement = (parts: Parameters<typeof mergeParts>[0], live: readonly Threshold[]) =>
  scenarioResult({
    base,
    merged: mergeParts(parts),
    finish: {},
    problems: [],
    loadSeconds: 2,
    durationMs: 2000,
    thresholds: live,
  }).thresholds;

describe('live thresholds', () => {
  test('only the thresholds of what the load counts are judged live', () => {
    expect(liveThresholdsOf(thresholds).map((threshold) => threshold.text)).toEqual(
      texts.slice(0, 5).map((text) => parseThreshold(text, 'cli').text),
    );
  });

  test("over a recorder's totals, the same values and verdicts as the end's judgement of its part", () => {
    const recorder = recorded();
    const live = liveThresholdsOf(thresholds);
    const now = currentThresholds(base, live, [recorder.totals()], 2);
    const end = endJudgement([recorder.part()], live);
    recorder.destroy();
    expect(now).toEqual(end);
    expect(now.map((threshold) => threshold.ok)).toEqual([true, false, false, false, true]);
    expect(now[2]?.value).toBeCloseTo(4 / 200, 6);
  });

  test("one part's live histograms are read as they stand, never encoded, with the end's values for every aggregation", () => {
    const recorder = recorded();
    const aggregations = ['avg', 'min', 'max', 'med', 'p(95)', 'p(100)'];
    const live = aggregations.flatMap((aggregation) => [
      parseThreshold(`http_req_duration: ${aggregation}<3`, 'cli'),
      parseThreshold(`http_req_duration{op:set}: ${aggregation}<3`, 'cli'),
    ]);
    // Every read of an encoded histogram, on the part and on its tag sets: none is asked for.
    let encodedReads = 0;
    const counting = <T extends object>(target: T, more: Readonly<Record<string, unknown>> = {}): T =>
      new Proxy(target, {
        get(object, key, receiver) {
          if (key === 'histogram') encodedReads++;
          return typeof key === 'string' && Object.hasOwn(more, key) ? more[key] : Reflect.get(object, key, receiver);
        },
      });
    const totals = recorder.totals();
    const watched = counting(totals, { tags: totals.tags.map((entry) => counting(entry)) });
    const now = currentThresholds(base, live, [watched], 2);
    expect(encodedReads).toBe(0);
    const end = endJudgement([recorder.part()], live);
    recorder.destroy();
    expect(now).toEqual(end);
    expect(now.every((threshold) => threshold.value !== null)).toBe(true);
  });

  test("over two parts (two worker threads), the same as the end's judgement of both merged", () => {
    const [a, b] = [recorded(), recorded()];
    b.completed({ op: 'get' }, 1, 40, 5000);
    const live = [
      ...liveThresholdsOf(thresholds),
      parseThreshold('commands: count>100', 'cli'),
      parseThreshold('dropped_iterations: count<1', 'cli'),
      parseThreshold('http_req_failed{op:set}: rate<0.5', 'cli'),
    ];
    const now = currentThresholds(base, live, [a.totals(), b.totals()], 2);
    const end = endJudgement([a.part(), b.part()], live);
    a.destroy();
    b.destroy();
    expect(now).toEqual(end);
    expect(now.find((threshold) => threshold.metric === 'http_reqs')?.value).toBe(400);
  });

  test('withThresholds judges once, when read; without live thresholds the progress is as it was', () => {
    const recorder = recorded();
    const progress: LoadProgress = {
      scenario: 'command',
      engine: 'node',
      elapsedS: 2,
      durationS: 2,
      rate: 100,
      p99Ms: 9,
      errors: 4,
      dropped: 0,
    };
    const told = withThresholds(progress, base, liveThresholdsOf(thresholds), [recorder.totals()]);
    recorder.destroy();
    const first = told.thresholds;
    expect(first).toHaveLength(5);
    expect(told.thresholds).toBe(first);
    expect(Object.keys(told)).toContain('thresholds');
    expect(withThresholds(progress, base, [], [])).toBe(progress);
  });
});
