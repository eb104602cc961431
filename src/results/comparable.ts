/**
 * What a comparison needs of a run, from the run in memory (`--baseline` on load and run): the load
 * scenarios' histograms, counts and series, and each conformance case's rules and verdict kind. The
 * other side, a report.json, is read by src/cli/compare-input.ts into the same shape.
 */
import { ExitCode } from '../shared/errors.ts';
import {
  type ComparableReport,
  type ComparableScenario,
  type Comparison,
  compareReports,
  type Tolerances,
} from './compare.ts';
import type { ConformanceRun } from './conformance-run.ts';
import type { LoadRun } from './load-run.ts';
import { statedCases } from './rule-states.ts';

/** A baseline to compare a run with: the report read, and the tolerances given (`--tolerance`). */
export interface BaselineChoice {
  readonly report: ComparableReport;
  readonly tolerances: Partial<Tolerances>;
}

interface RunParts {
  readonly startedAt: string;
  readonly conformance?: ConformanceRun;
  readonly load?: LoadRun;
}

/** A load scenario as a comparison reads it, from the run in memory or from a report.json (the same fields). */
export interface ScenarioFields extends Omit<ComparableScenario, 'durationS'> {
  readonly settings: { readonly durationS: number };
}

export function comparableScenario(scenario: ScenarioFields): ComparableScenario {
  return {
    name: scenario.name,
    requests: scenario.requests,
    durationS: scenario.settings.durationS,
    histogram: scenario.histogram,
    series: scenario.series,
    tags: scenario.tags.map((tag) => ({ tags: tag.tags, requests: tag.requests, histogram: tag.histogram })),
  };
}

export function comparableRun(run: RunParts, source: string): ComparableReport {
  return {
    source,
    startedAt: run.startedAt,
    scenarios: run.load?.scenarios.map(comparableScenario) ?? null,
    cases: run.conformance ? statedCases(run.conformance.results) : null,
  };
}

/**
 * The run compared with its baseline, and its exit code: a regression turns an exit code of 0 into
 * 98; a failed gate (1), a failed threshold (99) or an error (2) keep theirs.
 */
export function compareWithBaseline<T extends { readonly exitCode: number }>(
  run: T,
  parts: RunParts,
  source: string,
  baseline: BaselineChoice,
): T & { readonly compare: Comparison } {
  const compare = compareReports(baseline.report, comparableRun(parts, source), { tolerances: baseline.tolerances });
  return { ...run, compare, exitCode: run.exitCode === 0 && compare.regressed ? ExitCode.regressed : run.exitCode };
}
