import { expect, test } from 'vitest';
import { latencyChart } from '../../src/reporters/html/chart-data.ts';
import type { ScenarioResult } from '../../src/results/load-run.ts';
import { sampleLoadRun } from './sample-load-run.ts';

test('past seven tag sets the slowest are drawn, and the title names the ones left out (issue 36)', () => {
  const pipeline = sampleLoadRun.scenarios.find((scenario) => scenario.name === 'pipeline') as ScenarioResult;
  const base = pipeline.tags[0];
  if (base === undefined) throw new Error('the sample pipeline has tags');
  // Nine tag sets, batch:1 the fastest and batch:9 the slowest.
  const tags = Array.from({ length: 9 }, (_, index) => ({
    ...base,
    tags: { batch: String(index + 1) },
    latencyMs: { ...base.latencyMs, p99: index + 1 },
  }));
  const chart = latencyChart({ ...pipeline, tags }, 'p');
  const labels = chart?.series.map((series) => series.label) ?? [];
  expect(labels).toHaveLength(8);
  expect(labels).toContain('batch:9');
  expect(labels).not.toContain('batch:1');
  expect(chart?.title).toBe(
    'pipeline: latency by percentile (not drawn, the fastest: batch:1, batch:2; the table has every one)',
  );
  expect(latencyChart(pipeline, 'p')?.title).toBe('pipeline: latency by percentile');
});
