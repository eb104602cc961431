/** Renders `svc-harness rules`: text for people, JSON for tools (pure). */
import type { RuleCoverage } from '../results/rule.ts';

export function renderRulesText(coverage: readonly RuleCoverage[]): string {
  const lines = coverage.flatMap(({ rule, cases }) => [
    `${rule.id} [${rule.level}] ${rule.section}`,
    `  ${rule.text}`,
    `  cases: ${cases.length > 0 ? cases.join(', ') : 'none'}`,
  ]);
  const uncovered = coverage.filter(({ cases }) => cases.length === 0).length;
  lines.push('', `${coverage.length} rules, ${coverage.length - uncovered} covered, ${uncovered} without a case`);
  return `${lines.join('\n')}\n`;
}

export function renderRulesJson(coverage: readonly RuleCoverage[]): string {
  const rules = coverage.map(({ rule, cases }) => ({
    id: rule.id,
    area: rule.area,
    level: rule.level,
    section: rule.section,
    text: rule.text,
    cases: [...cases],
  }));
  return `${JSON.stringify({ rules }, null, 2)}\n`;
}
