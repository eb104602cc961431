/**
 * The one report model: what `conformance`, `load` and `run` hand their reporters. A run has a
 * conformance part, a load part or both (`svc-harness run`); the run-level exit code combines them.
 */
import type { Comparison } from './compare.ts';
import type { ConformanceRun } from './conformance-run.ts';
import type { LoadRun } from './load-run.ts';
import type { RegionsRun } from './regions-run.ts';

export interface HarnessRun {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  /** Where the reports are written. */
  readonly reportDir: string;
  /** The run's exit code: the conformance gate's when it failed, else the load run's. */
  readonly exitCode: number;
  /** Set when the run stopped early (a signal, a failure of the harness). */
  readonly aborted?: string;
  /** One-line infrastructure problems of every part. */
  readonly problems: readonly string[];
  readonly conformance?: ConformanceRun;
  readonly load?: LoadRun;
  /** The run against its baseline (`--baseline`). */
  readonly compare?: Comparison;
  /** A region comparison (`svc-harness regions`). */
  readonly regions?: RegionsRun;
}

/**
 * The run-level exit code: a failed conformance gate first (1, or 2 when it could not run), then the
 * load run's (thresholds, problems), else 0.
 */
export function combinedExitCode(conformance: number | undefined, load: number | undefined): number {
  if (conformance !== undefined && conformance !== 0) return conformance;
  return load ?? 0;
}

/** A run that is only a conformance run (the `conformance` command). */
export function conformanceOnly(run: ConformanceRun): HarnessRun {
  return {
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: run.durationMs,
    reportDir: run.reportDir,
    exitCode: run.exitCode,
    ...(run.aborted !== undefined && { aborted: run.aborted }),
    problems: run.problems,
    conformance: run,
  };
}
