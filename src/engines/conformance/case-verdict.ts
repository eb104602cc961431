/**
 * How a case's end becomes a verdict: a pure function, so the mapping is tested without vitest.
 * Where the spec is silent (OBSERVE rules) nothing a case throws fails the gate: it is an observation.
 */

import type { RuleLevel } from '../../results/rule.ts';
import type { Verdict } from '../../results/verdict.ts';
import { isHarnessError, oneLine } from '../../shared/errors.ts';
import { Blocked, CaseSkipped, isCheckFailure } from '../../suite-kit/check-failure.ts';

export interface CaseEnd {
  /** The rule ids the case names. */
  readonly rules: readonly string[];
  /** Level of a rule id; undefined for an unknown id (treated as MUST: never hide a failure). */
  readonly levelOf: (ruleId: string) => RuleLevel | undefined;
  /** What `run` threw; absent when it returned. */
  readonly thrown?: { readonly error: unknown };
  /** Notes recorded with `ctx.observe`. */
  readonly notes: readonly string[];
}

const infrastructureCodes = new Set(['SVC_TARGET_UNREACHABLE', 'SVC_TARGET_GARBAGE']);

/** A verdict's reason: one line of what the case threw, cut so a report row stays readable. */
export function reasonLine(error: unknown): string {
  return oneLine(error, 500);
}

/** Says of an exception that no check threw: a defect of the suite, never the target's failure. */
export function harnessFault(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  return `harness error (a defect of the suite, not of the target; please report it): ${name}: ${reasonLine(error)}`;
}

export function verdictOf(end: CaseEnd): Verdict {
  const observeOnly = end.rules.length > 0 && end.rules.every((id) => end.levelOf(id) === 'OBSERVE');
  const withNotes = (reason: string) => [reason, ...end.notes].join('; ');
  if (end.thrown === undefined) {
    if (observeOnly && end.notes.length > 0) return { kind: 'observation', reason: end.notes.join('; ') };
    return { kind: 'pass' };
  }
  const { error } = end.thrown;
  if (error instanceof CaseSkipped) return { kind: 'skip', reason: reasonLine(error) };
  if (error instanceof Blocked) return { kind: 'blocked', reason: reasonLine(error), rule: error.rule };
  if (isHarnessError(error) && infrastructureCodes.has(error.code)) return { kind: 'error', reason: reasonLine(error) };
  if (isCheckFailure(error)) {
    if (observeOnly || end.levelOf(error.rule) === 'OBSERVE') {
      return { kind: 'observation', reason: withNotes(reasonLine(error)), rule: error.rule };
    }
    return { kind: 'fail', reason: reasonLine(error), rule: error.rule };
  }
  // Anything else is the suite's own defect (a TypeError on an answer it did not expect, …).
  return { kind: 'error', reason: harnessFault(error) };
}
