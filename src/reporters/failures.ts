/**
 * What failed, for the top of every report (pure): the cases whose verdict fails the gate, each with
 * an anchor to its details further down and the one command that runs it again, and the load's failed
 * thresholds. A reader of a long report looks for these first (issue 36: the failed cases began 9,300 px
 * down the page, after a 150-row table).
 */
import type { CaseResult, ConformanceRun } from '../results/conformance-run.ts';
import type { LoadRun } from '../results/load-run.ts';
import { gateFailingKinds, verdictRule } from '../results/verdict.ts';

export interface FailedCase {
  readonly result: CaseResult;
  /** The rule the verdict blames, else the case's first. */
  readonly rule: string;
  /** An id for the case's details (HTML and Markdown anchors). */
  readonly anchor: string;
  /** The command that runs this case's rule again against the same target. */
  readonly rerun: string;
}

/** The element id of a case's details (HTML and Markdown), so a list at the top or a matrix can link to it. */
export function caseAnchor(target: string, caseId: string): string {
  return `case-${`${target}--${caseId}`.replace(/[^A-Za-z0-9_.-]+/g, '-')}`;
}

/** Every case of `run` whose verdict fails the gate, in report order. */
export function failedCases(run: ConformanceRun): FailedCase[] {
  return run.targets.flatMap((target) =>
    target.cases
      .filter((result) => gateFailingKinds.has(result.verdict.kind))
      .map((result) => {
        const rule = verdictRule(result.verdict) ?? result.rules[0] ?? '';
        const where = target.embedded ? '' : ' --target <the target file>';
        return {
          result,
          rule,
          anchor: caseAnchor(result.target, result.caseId),
          rerun: `npx svc-harness conformance${where} --area ${result.area} --rules '${rule}'`,
        };
      }),
  );
}

export interface FailedThreshold {
  readonly scenario: string;
  readonly expression: string;
  readonly value: number | null;
}

export function failedThresholds(run: LoadRun | undefined): FailedThreshold[] {
  return (run?.scenarios ?? []).flatMap((scenario) =>
    scenario.thresholds
      .filter((threshold) => !threshold.ok)
      .map((threshold) => ({ scenario: scenario.name, expression: threshold.expression, value: threshold.value })),
  );
}
