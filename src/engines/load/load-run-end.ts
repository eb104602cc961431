/**
 * The end of a load-only run, whoever made it (the load command, `k6 merge`): its exit code, and the
 * run handed to the reporters.
 */
import type { HarnessRun } from '../../results/harness-run.ts';
import type { LoadRun, ScenarioResult } from '../../results/load-run.ts';
import type { reporterEvents } from '../../results/reporter.ts';
import { createRuleCatalog } from '../../results/rule.ts';
import { ExitCode } from '../../shared/errors.ts';
import type { Redactor } from '../../shared/redact.ts';

/** The load run's exit code: 2 when it could not run or stopped early, 99 when a threshold failed. */
export function loadExitCode(
  scenarios: readonly ScenarioResult[],
  problems: readonly string[],
  aborted?: string,
): number {
  if (aborted !== undefined || problems.length > 0 || scenarios.some((scenario) => scenario.problem)) {
    return ExitCode.notJudged;
  }
  return scenarios.some((scenario) => scenario.thresholds.some((threshold) => !threshold.ok))
    ? ExitCode.thresholds
    : ExitCode.ok;
}

/** Hands a load-only run to the reporters (the load command, `k6 merge`). */
export async function renderLoadRun(
  run: LoadRun,
  reportDir: string,
  events: ReturnType<typeof reporterEvents>,
  redact: Redactor,
): Promise<void> {
  const whole: HarnessRun = {
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: run.durationMs,
    reportDir,
    exitCode: run.exitCode,
    ...(run.aborted !== undefined && { aborted: run.aborted }),
    problems: run.problems,
    load: run,
    ...(run.compare && { compare: run.compare }),
  };
  // A load-only run has no rule to show: no catalog to load (it imports every suite's rule file).
  await events.onRunEnd(whole, { catalog: createRuleCatalog([]), redact });
}
