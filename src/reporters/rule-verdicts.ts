/** Rules × verdicts: how each rule's cases ended, per rule (pure; used by report.json and summary.md). */
import { type CaseResult, totalsOf, type VerdictTotals, verdictCountsFor } from '../results/conformance-run.ts';
import type { Rule } from '../results/rule.ts';
import type { TargetArea } from '../target/target.ts';

export interface RuleVerdicts {
  readonly rule: Rule;
  readonly totals: VerdictTotals;
}

/** Every rule of the given areas, in catalog order, with the verdicts of the cases speaking of it. */
export function ruleVerdicts(
  rules: readonly Rule[],
  areas: readonly TargetArea[],
  results: readonly CaseResult[],
): RuleVerdicts[] {
  return rules
    .filter((rule) => areas.includes(rule.area))
    .map((rule) => ({ rule, totals: totalsOf(results.filter((result) => verdictCountsFor(result, rule.id))) }));
}

/** The areas a run covered: the ones asked for, else every area a target was run on. */
export function runAreas(run: {
  readonly settings: { readonly areas: readonly TargetArea[] };
  readonly targets: readonly { readonly areas: readonly TargetArea[] }[];
}): TargetArea[] {
  if (run.settings.areas.length > 0) return [...run.settings.areas];
  return [...new Set(run.targets.flatMap((target) => target.areas))];
}
