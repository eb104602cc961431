/** report.json's `compare` section (and `compare --json`), in a fixed key order; schemas/report.schema.json. */
import type { Comparison, MetricChange, ScenarioChange } from '../results/compare.ts';

const round = (value: number) => Math.round(value * 1e6) / 1e6;

function metricEntry(metric: MetricChange) {
  return {
    metric: metric.metric,
    baseline: round(metric.baseline),
    current: round(metric.current),
    change: metric.change === null ? null : round(metric.change),
    interval: metric.interval === null ? null : [round(metric.interval[0]), round(metric.interval[1])],
    tolerance: metric.tolerance,
    verdict: metric.verdict,
  };
}

function scenarioEntry(change: ScenarioChange) {
  return {
    scenario: change.scenario,
    tags: { ...change.tags },
    replicates: change.replicates,
    metrics: change.metrics.map(metricEntry),
    baselineSeries: change.baselineSeries?.map((point) => ({ ...point })) ?? null,
  };
}

export function compareDocument(comparison: Comparison) {
  return {
    baseline: { ...comparison.baseline },
    method: comparison.method,
    confidence: comparison.confidence,
    resamples: comparison.resamples,
    tolerances: { ...comparison.tolerances },
    regressed: comparison.regressed,
    scenarios: comparison.scenarios.map(scenarioEntry),
    conformance:
      comparison.conformance === null
        ? null
        : {
            newlyFailing: comparison.conformance.newlyFailing.map((change) => ({ ...change })),
            newlyPassing: comparison.conformance.newlyPassing.map((change) => ({ ...change })),
            newlyBlocked: comparison.conformance.newlyBlocked.map((change) => ({ ...change })),
          },
    unmatched: [...comparison.unmatched],
  };
}
