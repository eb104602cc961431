/**
 * Reading k6's JSON outputs into the recorder's parts (k6-output.ts). Percentiles over several
 * files (segments, k6-operator pods) are those of one histogram of every sample, not an average of
 * each file's, which is shown to be wrong by a wide margin; requests are counted and classed from
 * their tags (refused, timeout, unexpected status), with drops, checks, tallies and commands summed
 * over files, k6's own tags stripped from the per-tag metrics, setup's samples left out and the
 * series counted from the load's first second. A request the script sent that k6 never answered is
 * failed as `cut-short`; each publish's fate (svc_fate) comes back with its iteration, times and ids;
 * the thresholds the script carried come back once per scenario; a broken file is one SVC_CONFIG line
 * naming it.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type FatePart, publishRecords } from '../../../../src/engines/load/fate-log.ts';
import { type K6Output, type K6ScenarioOutput, readK6Outputs } from '../../../../src/engines/load/k6/k6-output.ts';
import { type MergedParts, mergeParts } from '../../../../src/engines/load/recorder.ts';
import { seededRandom } from '../../../../src/protocol/scenario.ts';
import {
  decodeHistogram,
  encodeHistogram,
  type LatencySummary,
  newHistogram,
  recordMs,
  summarize,
} from '../../../../src/results/histogram.ts';
import {
  checkPoint,
  droppedPoint,
  harnessRejection,
  type K6Point,
  type K6Request,
  k6Lines,
  point,
  requestPoints,
  t0,
  tallyPoint,
  tempFolder,
  thresholdPoint,
  writeK6Output,
  writeLines,
} from './k6-fixtures.ts';

let dir: string;
beforeAll(async () => {
  dir = await tempFolder('output');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function scenarioOf(output: K6Output, name: string): K6ScenarioOutput {
  const entry = output.scenarios.get(name);
  if (!entry) throw new Error(`no scenario ${name} in the output (found: ${[...output.scenarios.keys()].join(', ')})`);
  return entry;
}

function summaryOf(merged: MergedParts): LatencySummary {
  const histogram = decodeHistogram(merged.histogram);
  const summary = summarize(histogram);
  histogram.destroy();
  return summary;
}

describe('percentiles over several files', () => {
  /** Lognormal latencies (ms): most requests fast, a long tail, as a service under load answers. */
  function lognormal(random: () => number, mu: number, sigma: number): number {
    // Box–Muller; 1 - u keeps the logarithm's argument above 0.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.exp(mu + sigma * normal);
  }

  // Uneven segments; the third is a runner on a busy node: fewer requests, a heavier tail.
  const segments = [
    { file: 'segment-0.json', count: 11_000, mu: 1.2, sigma: 0.5, startMs: t0 + 300 },
    { file: 'segment-1.json', count: 7_000, mu: 1.2, sigma: 0.5, startMs: t0 + 50 },
    { file: 'segment-2.json.gz', count: 3_500, mu: 2.2, sigma: 0.9, startMs: t0 + 1_200 },
  ] as const;
  const files: string[] = [];
  const latencies: number[] = [];

  beforeAll(async () => {
    const random = seededRandom(20_261_123);
    for (const segment of segments) {
      const points: K6Point[] = [];
      for (let index = 0; index < segment.count; index++) {
        const latencyMs = lognormal(random, segment.mu, segment.sigma);
        latencies.push(latencyMs);
        const at = segment.startMs + index * (10_000 / segment.count) + latencyMs;
        points.push(...requestPoints({ scenario: 'load', at, latencyMs, tags: { batch: '1' } }));
      }
      files.push(await writeK6Output(join(dir, segment.file), points));
    }
  });

  test('the merged parts give exactly the summary of one histogram of every sample', async () => {
    const load = scenarioOf(await readK6Outputs(files), 'load');
    expect(load.parts).toHaveLength(3);
    const merged = mergeParts(load.parts);
    expect(merged.counts).toEqual({ sent: 21_500, completed: 21_500, failed: 0, dropped: 0 });

    const one = newHistogram();
    for (const latencyMs of latencies) recordMs(one, latencyMs);
    const live = summarize(one);
    // Every result keeps its histogram encoded; the reference goes through the same encoding once.
    const stored = decodeHistogram(encodeHistogram(one));
    one.destroy();
    const expected = summarize(stored);
    stored.destroy();
    const actual = summaryOf(merged);
    for (const field of ['count', 'p50', 'p90', 'p99', 'p999', 'max'] as const) {
      expect(actual[field], field).toBe(expected[field]);
    }
    // Decode and add loses nothing: min and mean are the same too.
    expect(actual).toEqual(expected);
    // Percentiles are bucket edges before and after encoding; only max differs: a live histogram
    // keeps the largest sample, a decoded one the top of its bucket, at most 0.1 % above it.
    for (const field of ['count', 'p50', 'p90', 'p99', 'p999'] as const) expect(live[field], field).toBe(actual[field]);
    expect(actual.max).toBeGreaterThanOrEqual(live.max);
    expect(actual.max).toBeLessThanOrEqual(live.max * 1.001);

    // And that histogram's p99 is the samples' own within HDR's 3 significant digits.
    const sorted = [...latencies].sort((a, b) => a - b);
    const exactP99 = sorted[Math.ceil(0.99 * sorted.length) - 1] ?? Number.NaN;
    expect(Math.abs(actual.p99 - exactP99)).toBeLessThanOrEqual(exactP99 * 0.001 + 0.001);
  });

  test("averaging each file's own p99 is not the p99 of the run: why the files are merged by histogram", async () => {
    const global = summaryOf(mergeParts(scenarioOf(await readK6Outputs(files), 'load').parts));
    const perFile: number[] = [];
    for (const file of files) {
      perFile.push(summaryOf(mergeParts(scenarioOf(await readK6Outputs([file]), 'load').parts)).p99);
    }
    const averaged = perFile.reduce((sum, p99) => sum + p99, 0) / perFile.length;
    // Here about 10, 10 and 74 ms averaged to 32 ms, while the run's p99 is 37 ms: the busy runner's
    // tail weighs a third in the average but a sixth of the requests. HDR's own error is 0.1 %.
    expect(Math.abs(averaged - global.p99) / global.p99).toBeGreaterThan(0.1);
    expect(global.p99).toBeGreaterThan(Math.min(...perFile));
    expect(global.p99).toBeLessThan(Math.max(...perFile));
  });
});

describe('counts, classes and tags', () => {
  // k6-operator's runners tag every sample with their instance and test run.
  const runnerA = { instance_id: '0', testrun_name: 'svc-load' };
  const runnerB = { instance_id: '1', testrun_name: 'svc-load' };
  const refused = { status: 0, expected: false, errorCode: '1212', error: 'dial: connection refused' };
  const timedOut = { status: 0, expected: false, errorCode: '1050', error: 'request timeout' };
  const one = { batch: '1' };
  const hundred = { batch: '100' };

  /** Setup's samples: no scenario tag. Counted, they would add a request and move the first second 3 s back. */
  const setupPoints: K6Point[] = [
    point('http_req_duration', t0 - 3_000, 9, { expected_response: 'true', method: 'POST', status: '200' }),
    point('checks', t0 - 2_900, 1, { check: 'setup ok' }),
    point('svc_tally', t0 - 2_900, 50, { tally: 'committed' }),
  ];

  const requestsA: K6Request[] = [
    { scenario: 'load', at: t0 + 150, latencyMs: 2.5, tags: one },
    { scenario: 'load', at: t0 + 400, latencyMs: 12, tags: hundred, commands: 100 },
    { scenario: 'load', at: t0 + 900, latencyMs: 15, tags: hundred, commands: 100 },
    { scenario: 'load', at: t0 + 950, latencyMs: 0, tags: one, ...refused },
    { scenario: 'load', at: t0 + 5_100, latencyMs: 5_000, tags: hundred, commands: 100, ...timedOut },
    { scenario: 'load', at: t0 + 2_300, latencyMs: 3, tags: one, status: 503 },
  ];
  const requestsB: K6Request[] = [
    { scenario: 'load', at: t0 + 1_400, latencyMs: 4, tags: one },
    { scenario: 'load', at: t0 + 1_700, latencyMs: 0, tags: one, ...refused },
    { scenario: 'pipeline', at: t0 + 3_500, latencyMs: 7, tags: { batch: '10' }, commands: 10 },
  ];

  let output: K6Output;
  beforeAll(async () => {
    const fileA: K6Point[] = [
      ...setupPoints,
      ...requestsA.flatMap((request) => requestPoints(request, { extra: runnerA })),
      droppedPoint('load', 4, t0 + 2_000),
      ...[150, 400, 900].map((at) => checkPoint('load', 'status is 200', true, t0 + at)),
      ...[950, 5_100, 2_300].map((at) => checkPoint('load', 'status is 200', false, t0 + at)),
      ...[400, 900].map((at) => checkPoint('load', 'one result per command', true, t0 + at)),
      tallyPoint('load', 'committed', 3, t0 + 900),
    ];
    const fileB: K6Point[] = [
      ...requestsB.flatMap((request) => requestPoints(request, { extra: runnerB })),
      droppedPoint('load', 2, t0 + 1_800),
      checkPoint('load', 'status is 200', true, t0 + 1_400),
      checkPoint('load', 'status is 200', false, t0 + 1_700),
      tallyPoint('load', 'committed', 1, t0 + 1_400),
      tallyPoint('load', 'aborted', 2, t0 + 1_700),
      ...setupPoints,
    ];
    // k6 does not write in time order: the second file's samples go backwards.
    output = await readK6Outputs([
      await writeK6Output(join(dir, 'counts-a.json'), fileA),
      await writeK6Output(join(dir, 'counts-b.json.gz'), fileB.reverse()),
    ]);
  });

  test('each k6 scenario apart, one part per file it appears in', () => {
    expect(output.files).toBe(2);
    expect([...output.scenarios.keys()].sort()).toEqual(['load', 'pipeline']);
    expect(scenarioOf(output, 'load').parts).toHaveLength(2);
    expect(scenarioOf(output, 'pipeline').parts).toHaveLength(1);
    const pipeline = mergeParts(scenarioOf(output, 'pipeline').parts);
    expect(pipeline.counts).toEqual({ sent: 1, completed: 1, failed: 0, dropped: 0 });
    expect(pipeline.commands).toBe(10);
    // Its own first second: the pipeline's series starts at 0 too.
    expect(pipeline.series.map((second) => second.second)).toEqual([0]);
  });

  test('completed and failed by class, dropped from dropped_iterations, commands from svc_commands', () => {
    const merged = mergeParts(scenarioOf(output, 'load').parts);
    // Setup's request is not among them: 6 + 2 requests of the load.
    expect(merged.counts).toEqual({ sent: 8, completed: 4, failed: 4, dropped: 6 });
    // Completed requests only: 1 + 100 + 100 + 1 (the timed-out batch of 100 carried none).
    expect(merged.commands).toBe(202);
    const errors = [...merged.errors].sort((a, b) => a.kind.localeCompare(b.kind));
    expect(errors).toEqual([
      { kind: 'refused', count: 2, example: 'k6 error 1212: dial: connection refused' },
      { kind: 'status', count: 1, example: 'status 503' },
      { kind: 'timeout', count: 1, example: 'k6 error 1050: request timeout' },
    ]);
    // Latency is of completed answers only, as on the node engine: not the refusals' 0 ms, not the
    // timeout's 5 s, not the 503's 3 ms.
    const latency = summaryOf(merged);
    expect(latency.count).toBe(4);
    expect(latency.min).toBeCloseTo(2.5, 2);
    expect(latency.max).toBeCloseTo(15, 1);
  });

  test('checks and tallies summed over files; setup has none of them', () => {
    const merged = mergeParts(scenarioOf(output, 'load').parts);
    const checks = [...merged.checks].sort((a, b) => a.name.localeCompare(b.name));
    expect(checks).toEqual([
      { name: 'one result per command', passes: 2, fails: 0 },
      { name: 'status is 200', passes: 4, fails: 4 },
    ]);
    expect(merged.tallies).toEqual({ committed: 4, aborted: 2 });
  });

  test("per-tag metrics keep the scenario's own tags only", () => {
    const merged = mergeParts(scenarioOf(output, 'load').parts);
    const tags = [...merged.tags].sort((a, b) => Number(a.tags.batch) - Number(b.tags.batch));
    // No status, method, scenario, error, error_code, expected_response, svc_commands, instance_id or
    // testrun_name: each would split a batch size into one entry per runner or per outcome.
    expect(tags.map((entry) => entry.tags)).toEqual([{ batch: '1' }, { batch: '100' }]);
    expect(tags.map((entry) => entry.requests)).toEqual([
      { sent: 5, completed: 2, failed: 3, dropped: 0 },
      { sent: 3, completed: 2, failed: 1, dropped: 0 },
    ]);
    expect(tags.map((entry) => entry.commands)).toEqual([2, 200]);
    expect(tags.map((entry) => entry.latencyMs.count)).toEqual([2, 2]);
  });

  test("the series counts seconds from the load's first second over every file", () => {
    const merged = mergeParts(scenarioOf(output, 'load').parts);
    const series = merged.series.map(({ second, sent, completed, failed, dropped }) => ({
      second,
      sent,
      completed,
      failed,
      dropped,
    }));
    // Requests count in the second of their answer, from each file's start: the first file starts at
    // 0.1 s (the timeout's svc_sent), so its answers at 0.15–0.95 s are second 0, its drops at 2.0 s second
    // 1, the 503 at 2.3 s second 2 and the timeout at 5.1 s second 5. The second file starts 1.3 s
    // later (its first svc_sent, 1.396 s), lined up one second on: its answers and drops are second 1.
    expect(series).toEqual([
      { second: 0, sent: 4, completed: 3, failed: 1, dropped: 0 },
      { second: 1, sent: 2, completed: 1, failed: 1, dropped: 6 },
      { second: 2, sent: 1, completed: 0, failed: 1, dropped: 0 },
      { second: 5, sent: 1, completed: 0, failed: 1, dropped: 0 },
    ]);
    const load = scenarioOf(output, 'load');
    // The span: the first request's svc_sent (the timeout's, sent at 0.1 s) to the last answer.
    expect(load.firstMs).toBe(t0 + 100);
    expect(load.lastMs).toBe(t0 + 5_100);
  });
});

describe('answers that say JSON and are not', () => {
  test('svc_garbage moves a 2xx from completed to failed (garbage), and a non-2xx from status to garbage', async () => {
    const request = (at: number, status: number): K6Request => ({
      scenario: 'load',
      at: t0 + at,
      latencyMs: 3,
      status,
      commands: 10,
      tags: { batch: '10' },
    });
    const garbage = (at: number, status: '2xx' | 'other') =>
      point('svc_garbage', t0 + at, 1, { batch: '10', scenario: 'load', svc_commands: '10', svc_status: status });
    // The 2xx garbage answer's duration, which k6 wrote as a completed answer's.
    const withdrawn = point('svc_garbage_ms', t0 + 200, 40, { batch: '10', scenario: 'load', svc_commands: '10' });
    const file = await writeK6Output(join(dir, 'garbage.json'), [
      ...requestPoints(request(100, 200)),
      ...requestPoints({ ...request(200, 200), latencyMs: 40 }),
      garbage(200, '2xx'),
      withdrawn,
      ...requestPoints(request(300, 503)),
      garbage(300, 'other'),
    ]);
    const merged = mergeParts(scenarioOf(await readK6Outputs([file]), 'load').parts);
    expect(merged.counts).toEqual({ sent: 3, completed: 1, failed: 2, dropped: 0 });
    // The commands of the completed request only, as on the node engine.
    expect(merged.commands).toBe(10);
    expect(merged.errors.map(({ kind, count }) => ({ kind, count }))).toEqual([{ kind: 'garbage', count: 2 }]);
    expect(merged.tags).toEqual([
      expect.objectContaining({ tags: { batch: '10' }, requests: { sent: 3, completed: 1, failed: 2, dropped: 0 } }),
    ]);
    // Latency is the completed answer's alone: the garbage's 40 ms is taken back out, everywhere.
    expect(summaryOf(merged)).toMatchObject({ count: 1, max: expect.closeTo(3, 1) });
    expect(merged.tags[0]?.latencyMs).toMatchObject({ count: 1, max: expect.closeTo(3, 1) });
    expect(merged.series.map((second) => second.max)).toEqual([expect.closeTo(3, 1)]);
  });
});

describe('requests k6 never answered', () => {
  test('sent (svc_sent) without an answer: counted as sent and failed, class cut-short', async () => {
    const answered = (at: number): K6Request => ({ scenario: 'load', at: t0 + at, latencyMs: 5, tags: { batch: '1' } });
    // The first runner was stopped with two requests in flight; the second finished all of its own.
    const stopped = await writeK6Output(join(dir, 'cut-a.json'), [
      ...[100, 200, 300].flatMap((at) => requestPoints(answered(at))),
      point('svc_sent', t0 + 400, 1, { batch: '1', scenario: 'load' }),
      point('svc_sent', t0 + 410, 1, { batch: '1', scenario: 'load' }),
    ]);
    const finished = await writeK6Output(
      join(dir, 'cut-b.json'),
      [150, 250].flatMap((at) => requestPoints(answered(at))),
    );
    const merged = mergeParts(scenarioOf(await readK6Outputs([stopped, finished]), 'load').parts);
    expect(merged.counts).toEqual({ sent: 7, completed: 5, failed: 2, dropped: 0 });
    expect(merged.errors).toEqual([
      {
        kind: 'cut-short',
        count: 2,
        example: 'sent, and no answer in k6’s output (k6 stopped first, or its output was cut off)',
      },
    ]);
    // Their tags are not known: the tag entries hold the answered requests only.
    expect(merged.tags.reduce((sum, entry) => sum + entry.requests.sent, 0)).toBe(5);
  });
});

describe("publishes' fates (svc_fate, the soak's checker)", () => {
  const fate = (at: number, fate: string, metadata: Record<string, string>) =>
    point('svc_fate', t0 + at, 1, { fate, scenario: 'publish' }, metadata);

  test('each a fate of its iteration, sent and answered when k6 says, ids from the metadata; merged over files', async () => {
    const a = await writeK6Output(join(dir, 'fates-a.json'), [
      fate(100, 'acknowledged', { svc_index: '0', svc_sent: String(t0 + 90), svc_ids: 'msg_a msg_b' }),
      fate(220, 'indeterminate', { svc_index: '2', svc_sent: String(t0 + 110) }),
    ]);
    const b = await writeK6Output(join(dir, 'fates-b.json'), [
      fate(150, 'refused', { svc_index: '1', svc_sent: String(t0 + 100) }),
    ]);
    const merged = mergeParts(scenarioOf(await readK6Outputs([a, b]), 'publish').parts);
    const fates = merged.fates;
    expect(fates).toBeDefined();
    const records = [...publishRecords(fates as FatePart)].sort((x, y) => x.index - y.index);
    expect(records).toEqual([
      { index: 0, fate: 'acknowledged', sentAt: t0 + 90, answeredAt: t0 + 100, ids: ['msg_a', 'msg_b'] },
      { index: 1, fate: 'refused', sentAt: t0 + 100, answeredAt: t0 + 150 },
      { index: 2, fate: 'indeterminate', sentAt: t0 + 110 },
    ]);
  });

  test('a fate without its iteration, send time or a known fate is one SVC_CONFIG line naming the file', async () => {
    for (const [name, broken] of [
      ['no-index', fate(100, 'acknowledged', { svc_sent: String(t0) })],
      ['no-sent', fate(100, 'acknowledged', { svc_index: '3' })],
      ['odd-fate', fate(100, 'lost', { svc_index: '3', svc_sent: String(t0) })],
    ] as const) {
      const file = await writeK6Output(join(dir, `fate-${name}.json`), [broken]);
      const message = await harnessRejection('SVC_CONFIG', readK6Outputs([file]));
      expect(message).toContain(`fate-${name}.json`);
      expect(message).toContain("a publish's fate without its iteration, send time or fate");
    }
  });
});

describe('thresholds carried by the script', () => {
  test('svc_threshold samples come back per scenario, once each across files', async () => {
    const request = (scenario: string, at: number) => requestPoints({ scenario, at: t0 + at, latencyMs: 3 });
    const first = await writeK6Output(join(dir, 'thresholds-a.json'), [
      thresholdPoint('load', 'http_reqs: count < 1000', t0 - 1_000),
      thresholdPoint('load', 'http_req_duration{batch:1}: p(99) < 50', t0 - 1_000),
      thresholdPoint('pipeline', 'dropped_iterations: count < 10', t0 - 1_000),
      ...request('load', 100),
      ...request('pipeline', 200),
    ]);
    // Every runner runs setup: the second file carries the same threshold again, and one more.
    const second = await writeK6Output(join(dir, 'thresholds-b.json.gz'), [
      thresholdPoint('load', 'http_reqs: count < 1000', t0 - 1_000),
      thresholdPoint('load', 'checks: rate > 0.99', t0 - 1_000),
      ...request('load', 300),
    ]);
    const output = await readK6Outputs([first, second]);
    const load = scenarioOf(output, 'load');
    expect(load.thresholds.map((threshold) => threshold.text)).toEqual([
      'http_reqs: count < 1000',
      'http_req_duration{batch:1}: p(99) < 50',
      'checks: rate > 0.99',
    ]);
    expect(load.thresholds[1]).toMatchObject({
      metric: 'http_req_duration',
      tags: { batch: '1' },
      aggregation: 'p(99)',
      operator: '<',
      bound: 50,
      source: 'scenario',
    });
    expect(scenarioOf(output, 'pipeline').thresholds.map((threshold) => threshold.text)).toEqual([
      'dropped_iterations: count < 10',
    ]);
    // The threshold samples are not requests.
    expect(mergeParts(load.parts).counts.sent).toBe(2);
  });

  test('a threshold the harness cannot read is one SVC_CONFIG line naming the scenario', async () => {
    const file = await writeK6Output(join(dir, 'thresholds-bad.json'), [
      thresholdPoint('load', 'http_reqz: count < 1', t0 - 1_000),
      ...requestPoints({ scenario: 'load', at: t0 + 100, latencyMs: 3 }),
    ]);
    const message = await harnessRejection('SVC_CONFIG', readK6Outputs([file]));
    expect(message).toContain('scenario load');
    expect(message).toContain('http_reqz');
  });
});

describe('broken files', () => {
  const valid = k6Lines(requestPoints({ scenario: 'load', at: t0 + 100, latencyMs: 3 }));

  test('a garbage line: one SVC_CONFIG line naming the file and the line', async () => {
    const file = await writeLines(join(dir, 'garbage.json'), [...valid, 'this is not json', ...valid]);
    const message = await harnessRejection('SVC_CONFIG', readK6Outputs([file]));
    expect(message).toContain(file);
    expect(message).toContain(`line ${valid.length + 1} `);
  });

  test('a line cut off midway (a k6 killed while writing): one SVC_CONFIG line naming the file', async () => {
    const cut = valid.find((line) => line.startsWith('{"metric":"http_req_duration"')) ?? '';
    const file = await writeLines(join(dir, 'cut-line.json'), [...valid, cut.slice(0, 60)]);
    const message = await harnessRejection('SVC_CONFIG', readK6Outputs([file]));
    expect(message).toContain(file);
  });

  test('a .gz file that is not gzip: one SVC_CONFIG line naming the file', async () => {
    const file = join(dir, 'not-gzip.json.gz');
    // Plain text under a .gz name (writeLines would gzip it).
    await writeFile(file, `${valid.join('\n')}\n`);
    const message = await harnessRejection('SVC_CONFIG', readK6Outputs([file]));
    expect(message).toContain(file);
  });

  test('a missing .gz file or a folder named .gz: one SVC_CONFIG line, not a crash (the gunzip sees the read error)', async () => {
    const missing = join(dir, 'nope.json.gz');
    expect(await harnessRejection('SVC_CONFIG', readK6Outputs([missing]))).toContain(missing);
    const folder = join(dir, 'folder.json.gz');
    await mkdir(folder);
    expect(await harnessRejection('SVC_CONFIG', readK6Outputs([folder]))).toContain(folder);
  });
});
