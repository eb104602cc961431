/**
 * A run's verdicts as one status per rule, the form the checked-in verdict tables of third-party
 * implementations are kept in: `broken` when a case failed on the rule, `holds` when a case passed
 * and none failed, and otherwise `not-checked` (every case speaking of it was blocked, skipped,
 * observed or an error), with the verdict kinds seen.
 */
import { type CaseResult, verdictCountsFor } from '../../src/results/conformance-run.ts';
import type { Rule } from '../../src/results/rule.ts';

export type RuleStatus = 'holds' | 'broken' | 'not-checked';

export function ruleStatuses(rules: readonly Rule[], results: readonly CaseResult[]): Record<string, RuleStatus> {
  const statuses: Record<string, RuleStatus> = {};
  for (const rule of rules) {
    const kinds = results.filter((result) => verdictCountsFor(result, rule.id)).map((result) => result.verdict.kind);
    statuses[rule.id] = kinds.includes('fail') ? 'broken' : kinds.includes('pass') ? 'holds' : 'not-checked';
  }
  return statuses;
}
