/**
 * A rule's state on a target, from the verdicts of the cases that name it: failing beats blocked
 * beats passing, as the gate counts (an expected failure passes; observations and skips are `other`).
 * Used by the baseline comparison (what changed) and the rules × implementations matrix (who differs).
 */
import type { CaseResult } from './conformance-run.ts';
import { type VerdictKind, verdictRule } from './verdict.ts';

export type RuleState = 'pass' | 'fail' | 'blocked' | 'other';

export interface StatedCase {
  readonly target: string;
  readonly caseId?: string;
  readonly rules: readonly string[];
  readonly verdict: VerdictKind;
  /** The rule the verdict names (a failure blames one); it then speaks of that rule alone. */
  readonly rule?: string;
}

export interface RuleCell {
  readonly state: RuleState;
  /** The cases that decided the state (those in it), by id. */
  readonly cases: readonly string[];
}

/** A run's case results as the rule states read them: the verdict's kind and the rule it blames. */
export function statedCases(results: readonly CaseResult[]): StatedCase[] {
  return results.map((result) => {
    const rule = verdictRule(result.verdict);
    return {
      target: result.target,
      caseId: result.caseId,
      rules: result.rules,
      verdict: result.verdict.kind,
      ...(rule !== undefined && { rule }),
    };
  });
}

const rank: Readonly<Record<RuleState, number>> = { other: 0, pass: 1, blocked: 2, fail: 3 };

export function stateOf(kind: VerdictKind): RuleState {
  if (kind === 'fail' || kind === 'stale' || kind === 'error') return 'fail';
  if (kind === 'blocked') return 'blocked';
  return kind === 'pass' || kind === 'expected-failure' ? 'pass' : 'other';
}

/** target → rule → its cell. */
export function ruleCells(cases: readonly StatedCase[]): Map<string, Map<string, RuleCell>> {
  const byTarget = new Map<string, Map<string, RuleCell>>();
  for (const result of cases) {
    const rules = byTarget.get(result.target) ?? new Map<string, RuleCell>();
    byTarget.set(result.target, rules);
    const state = stateOf(result.verdict);
    // As the gate counts (verdictCountsFor): a verdict naming a rule speaks of that rule alone; a pass,
    // a skip, an error or a block by another rule's step speaks of every rule the case names.
    const spoken = result.rule !== undefined && result.verdict !== 'blocked' ? [result.rule] : result.rules;
    for (const rule of spoken) {
      const before = rules.get(rule);
      const id = result.caseId === undefined ? [] : [result.caseId];
      if (before === undefined || rank[state] > rank[before.state]) rules.set(rule, { state, cases: id });
      else if (before.state === state) rules.set(rule, { state, cases: [...before.cases, ...id] });
    }
  }
  return byTarget;
}

export interface MatrixRow {
  readonly rule: string;
  /** One per target, in the targets' order; undefined where the target ran no case of the rule. */
  readonly cells: readonly (RuleCell | undefined)[];
  /** Targets that judged the rule (pass, fail or blocked) do not all agree. */
  readonly disagree: boolean;
}

/** Rules × targets, rules where the targets disagree first, then by rule id. */
export function ruleMatrix(cases: readonly StatedCase[], targets: readonly string[]): MatrixRow[] {
  const cells = ruleCells(cases);
  const rules = [...new Set(cases.flatMap((result) => result.rules))].sort();
  const rows = rules.map((rule) => {
    const row = targets.map((target) => cells.get(target)?.get(rule));
    const judged = new Set(
      row.filter((cell) => cell !== undefined && cell.state !== 'other').map((cell) => cell?.state),
    );
    return { rule, cells: row, disagree: judged.size > 1 };
  });
  return rows.sort((a, b) => Number(b.disagree) - Number(a.disagree) || a.rule.localeCompare(b.rule));
}
