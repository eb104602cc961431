/**
 * `k6 merge` (merge-outputs.ts): thresholds are judged over every file together, so a threshold that
 * each runner's share passes but the whole run breaks fails the merged run with exit code 99, whether
 * the threshold came in the files (the script's svc_threshold samples) or on the command line; the
 * json reporter writes report.json. Nothing to merge, a missing file or files without any scenario
 * sample are one-line harness errors.
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mergeK6Outputs } from '../../../../src/engines/load/k6/merge-outputs.ts';
import { createReporters } from '../../../../src/reporters/registry.ts';
import type { LoadRun, ScenarioResult } from '../../../../src/results/load-run.ts';
import {
  droppedPoint,
  harnessRejection,
  type K6Point,
  point,
  requestPoints,
  t0,
  tempFolder,
  thresholdPoint,
  writeK6Output,
} from './k6-fixtures.ts';

let dir: string;
beforeAll(async () => {
  dir = await tempFolder('merge');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** One runner's share: `requests` answered over 2 s and `dropped` iterations, with the thresholds it carried. */
function runnerShare(runner: number, requests: number, dropped: number, thresholds: readonly string[]): K6Point[] {
  const extra = { instance_id: String(runner), testrun_name: 'svc-load' };
  const points: K6Point[] = thresholds.map((text) => thresholdPoint('load', text, t0 - 500));
  for (let index = 0; index < requests; index++) {
    const at = t0 + 100 + runner * 7 + index * (2_000 / requests);
    points.push(
      ...requestPoints({ scenario: 'load', at, latencyMs: 2 + (index % 10), tags: { batch: '1' } }, { extra }),
    );
  }
  if (dropped > 0) points.push(droppedPoint('load', dropped, t0 + 1_500));
  return points;
}

let reportCount = 0;
/** Merges into a report folder of its own under the temporary folder. */
function merge(files: readonly string[], thresholds?: readonly string[]): Promise<LoadRun> {
  reportCount++;
  return mergeK6Outputs({
    files,
    ...(thresholds && { thresholds }),
    reportDir: join(dir, `report-${reportCount}`),
    reporters: [],
  });
}

function onlyScenario(run: LoadRun): ScenarioResult {
  expect(run.scenarios.map((scenario) => scenario.name)).toEqual(['load']);
  return run.scenarios[0] as ScenarioResult;
}

describe('a threshold failing only in aggregate fails the merged run', () => {
  test('http_reqs: count<1000 carried in the files: 600 per file passes, 1,200 together exits 99', async () => {
    const carried = ['http_reqs: count < 1000'];
    const files = [
      await writeK6Output(join(dir, 'reqs-0.json'), runnerShare(0, 600, 0, carried)),
      await writeK6Output(join(dir, 'reqs-1.json.gz'), runnerShare(1, 600, 0, carried)),
    ];
    for (const file of files) {
      const alone = await merge([file]);
      expect(alone.exitCode, file).toBe(0);
      expect(onlyScenario(alone).thresholds).toEqual([
        { expression: 'http_reqs: count < 1000', metric: 'http_reqs', source: 'scenario', ok: true, value: 600 },
      ]);
    }
    const both = await merge(files);
    expect(both.exitCode).toBe(99);
    const result = onlyScenario(both);
    expect(result.requests.sent).toBe(1_200);
    // Carried by both files, judged once.
    expect(result.thresholds).toEqual([
      { expression: 'http_reqs: count < 1000', metric: 'http_reqs', source: 'scenario', ok: false, value: 1_200 },
    ]);
    expect(result.settings.segments).toBe(2);
  });

  test('the same threshold given on the command line (files without svc_threshold)', async () => {
    const files = [
      await writeK6Output(join(dir, 'cli-0.json'), runnerShare(0, 600, 0, [])),
      await writeK6Output(join(dir, 'cli-1.json'), runnerShare(1, 600, 0, [])),
    ];
    for (const file of files) expect((await merge([file], ['http_reqs: count<1000'])).exitCode, file).toBe(0);
    const both = await merge(files, ['http_reqs: count<1000']);
    expect(both.exitCode).toBe(99);
    expect(onlyScenario(both).thresholds).toEqual([
      { expression: 'http_reqs: count < 1000', metric: 'http_reqs', source: 'cli', ok: false, value: 1_200 },
    ]);
  });

  test('a threshold both carried and given is judged once, as the file carried it', async () => {
    const files = [
      await writeK6Output(join(dir, 'twice-0.json'), runnerShare(0, 600, 0, ['http_reqs: count < 1000'])),
      await writeK6Output(join(dir, 'twice-1.json'), runnerShare(1, 600, 0, ['http_reqs: count < 1000'])),
    ];
    const both = await merge(files, ['http_reqs:count<1000']);
    expect(onlyScenario(both).thresholds.map(({ expression, source }) => ({ expression, source }))).toEqual([
      { expression: 'http_reqs: count < 1000', source: 'scenario' },
    ]);
  });

  test('dropped_iterations: count<10: 6 drops per file passes, 12 together exits 99', async () => {
    const carried = ['dropped_iterations: count < 10'];
    const files = [
      await writeK6Output(join(dir, 'drops-0.json'), runnerShare(0, 50, 6, carried)),
      await writeK6Output(join(dir, 'drops-1.json'), runnerShare(1, 50, 6, carried)),
    ];
    for (const file of files) {
      const alone = await merge([file]);
      expect(alone.exitCode, file).toBe(0);
      expect(onlyScenario(alone).thresholds[0]).toMatchObject({ ok: true, value: 6 });
    }
    const both = await merge(files);
    expect(both.exitCode).toBe(99);
    const result = onlyScenario(both);
    expect(result.requests.dropped).toBe(12);
    expect(result.thresholds).toEqual([
      {
        expression: 'dropped_iterations: count < 10',
        metric: 'dropped_iterations',
        source: 'scenario',
        ok: false,
        value: 12,
      },
    ]);
  });

  test('the json reporter writes report.json with the merged run and its exit code', async () => {
    const carried = ['http_reqs: count < 1000'];
    const files = [
      await writeK6Output(join(dir, 'json-0.json'), runnerShare(0, 600, 0, carried)),
      await writeK6Output(join(dir, 'json-1.json'), runnerShare(1, 600, 0, carried)),
    ];
    const reportDir = join(dir, 'report-json');
    const run = await mergeK6Outputs({ files, reportDir, reporters: createReporters(['json']) });
    expect(run.exitCode).toBe(99);
    const file = join(reportDir, 'report.json');
    expect(existsSync(file)).toBe(true);
    const report = JSON.parse(await readFile(file, 'utf8')) as { exitCode: number; load?: unknown };
    expect(report.exitCode).toBe(99);
    expect(report.load).toBeDefined();
  });
});

describe('nothing to merge', () => {
  test('no files: one SVC_USAGE line', async () => {
    const message = await harnessRejection('SVC_USAGE', mergeK6Outputs({ files: [], reporters: [] }));
    expect(message).toMatch(/^k6 merge: /);
  });

  test('a missing file: one SVC_USAGE line naming it', async () => {
    const present = await writeK6Output(join(dir, 'present.json'), runnerShare(0, 5, 0, []));
    const missing = join(dir, 'missing.json');
    const message = await harnessRejection(
      'SVC_USAGE',
      mergeK6Outputs({ files: [present, missing], reportDir: join(dir, 'report-missing'), reporters: [] }),
    );
    expect(message).toContain(missing);
  });

  test('files with thresholds and no request of their scenario (setup only): the thresholds fail for want of data', async () => {
    // What a run that failed in setup leaves: setup's request and check, the thresholds, no load.
    const file = await writeK6Output(join(dir, 'setup-only.json'), [
      thresholdPoint('load', 'http_req_duration: p(99) < 500', t0),
      point('http_req_duration', t0 + 10, 4, { expected_response: 'true', method: 'POST', status: '200' }),
      point('checks', t0 + 11, 1, { check: 'setup ok' }),
    ]);
    const run = await mergeK6Outputs({ files: [file], reportDir: join(dir, 'report-setup-only'), reporters: [] });
    expect(run.exitCode).toBe(99);
    expect(run.scenarios.map((scenario) => scenario.name)).toEqual(['load']);
    expect(run.scenarios[0]?.requests.sent).toBe(0);
    expect(run.scenarios[0]?.thresholds).toEqual([
      expect.objectContaining({ expression: 'http_req_duration: p(99) < 500', ok: false, value: null }),
    ]);
  });

  test('files without any sample of a k6 scenario and no threshold: one SVC_CONFIG line', async () => {
    const file = await writeK6Output(join(dir, 'setup-only-bare.json'), [
      point('http_req_duration', t0 + 10, 4, { expected_response: 'true', method: 'POST', status: '200' }),
    ]);
    const message = await harnessRejection(
      'SVC_CONFIG',
      mergeK6Outputs({ files: [file], reportDir: join(dir, 'report-setup-only-bare'), reporters: [] }),
    );
    expect(message).toMatch(/^k6 merge: no request of a k6 scenario in 1 file/);
  });
});
