/** Which cases cover which rule: the catalog joined with the case registry (pure). */

import type { Rule, RuleCoverage } from '../../results/rule.ts';
import type { TargetArea } from '../../target/target.ts';
import type { CaseFile } from './case-registry.ts';

export function ruleCoverage(
  rules: readonly Rule[],
  caseFiles: readonly CaseFile[],
  areas?: readonly TargetArea[],
): RuleCoverage[] {
  const byRule = new Map<string, string[]>();
  for (const file of caseFiles) {
    for (const item of file.cases) {
      for (const id of item.rules) byRule.set(id, [...(byRule.get(id) ?? []), item.id]);
    }
  }
  return rules
    .filter((rule) => areas === undefined || areas.includes(rule.area))
    .map((rule) => ({ rule, cases: [...new Set(byRule.get(rule.id) ?? [])].sort() }));
}
