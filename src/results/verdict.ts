/**
 * The fixed vocabulary of outcomes (after Autobahn's OK / NON-STRICT / INFORMATIONAL / FAILED).
 * Every outcome other than pass carries one sentence saying why; an outcome about one rule names it.
 */
export type Verdict =
  | { readonly kind: 'pass' }
  /** A MUST check failed: `reason` is "received … / expected …"; `rule` is the rule that broke. */
  | { readonly kind: 'fail'; readonly reason: string; readonly rule?: string }
  /**
   * A step the case needs only as a means (set-up, read-back, another request form, the positive a
   * refusal is compared with) did not work, so the case's own rule was not checked: neither a failure
   * of that rule nor a pass. `rule` is the rule of the step that failed.
   */
  | { readonly kind: 'blocked'; readonly reason: string; readonly rule?: string }
  /** The case could not run: the target lacks a capability (no read-only token, no admin hook). */
  | { readonly kind: 'skip'; readonly reason: string }
  /** Failed, and an unexpired expectation says it is known to; `rule` is the rule that broke. */
  | { readonly kind: 'expected-failure'; readonly reason: string; readonly rule?: string }
  /** Passed although an expectation says it fails: the expectation is stale; fails the gate. */
  | { readonly kind: 'stale'; readonly reason: string }
  /** Where the spec is silent: what the target does, never a failure; `rule` when one OBSERVE rule is meant. */
  | { readonly kind: 'observation'; readonly reason: string; readonly rule?: string }
  /**
   * No verdict could be reached: the target was down, stalled or answered garbage, or the harness
   * itself failed (the reason then says so).
   */
  | { readonly kind: 'error'; readonly reason: string };

export type VerdictKind = Verdict['kind'];

/** Kinds that fail the gate (exit code 1, or 2 when every failure is an infrastructure error). */
export const gateFailingKinds: ReadonlySet<VerdictKind> = new Set(['fail', 'stale', 'error']);

/** The rule a verdict is about, when it names one. */
export function verdictRule(verdict: Verdict): string | undefined {
  return 'rule' in verdict ? verdict.rule : undefined;
}
