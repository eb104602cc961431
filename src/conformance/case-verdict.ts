/**
 * How a case's end becomes a verdict: a pure function, so the mapping is tested without vitest.
 * Where the spec is silent (OBSERVE rules) nothing a case throws fails the gate: it is an observation.
 */
import { isHarnessError } from '../errors.ts';
import { CaseSkipped, isCheckFailure } from './check-failure.ts';
import type { RuleLevel } from './rule.ts';
import type { Verdict } from './verdict.ts';

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

/** One line of an error, cut to a readable length. */
export function firstLine(error: unknown, max = 500): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split('\n').find((part) => part.trim().length > 0) ?? text;
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

export function verdictOf(end: CaseEnd): Verdict {
  const observeOnly = end.rules.length > 0 && end.rules.every((id) => end.levelOf(id) === 'OBSERVE');
  const withNotes = (reason: string) => [reason, ...end.notes].join('; ');
  if (end.thrown === undefined) {
    if (observeOnly && end.notes.length > 0) return { kind: 'observation', reason: end.notes.join('; ') };
    return { kind: 'pass' };
  }
  const { error } = end.thrown;
  if (error instanceof CaseSkipped) return { kind: 'skip', reason: firstLine(error) };
  if (isHarnessError(error) && infrastructureCodes.has(error.code)) return { kind: 'error', reason: firstLine(error) };
  if (isCheckFailure(error)) {
    if (observeOnly || end.levelOf(error.rule) === 'OBSERVE') {
      return { kind: 'observation', reason: withNotes(firstLine(error)) };
    }
    return { kind: 'fail', reason: firstLine(error), rule: error.rule };
  }
  if (observeOnly) return { kind: 'observation', reason: withNotes(firstLine(error)) };
  const [only] = end.rules;
  return end.rules.length === 1 && only !== undefined
    ? { kind: 'fail', reason: firstLine(error), rule: only }
    : { kind: 'fail', reason: firstLine(error) };
}
