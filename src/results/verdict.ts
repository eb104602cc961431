/**
 * The fixed vocabulary of outcomes (after Autobahn's OK / NON-STRICT / INFORMATIONAL / FAILED).
 * Every outcome other than pass carries one sentence saying why.
 */
export type Verdict =
  | { readonly kind: 'pass' }
  /** A MUST check failed: `reason` is "received … / expected …". */
  | { readonly kind: 'fail'; readonly reason: string; readonly rule?: string }
  /** The case could not run: the target lacks a capability (no read-only token, no admin hook). */
  | { readonly kind: 'skip'; readonly reason: string }
  /** Failed, and an unexpired expectation says it is known to. */
  | { readonly kind: 'expected-failure'; readonly reason: string }
  /** Passed although an expectation says it fails: the expectation is stale; fails the gate. */
  | { readonly kind: 'stale'; readonly reason: string }
  /** Where the spec is silent: what the target does, never a failure. */
  | { readonly kind: 'observation'; readonly reason: string }
  /** The case could not reach a verdict: the target was down, stalled or answered garbage. */
  | { readonly kind: 'error'; readonly reason: string };

export type VerdictKind = Verdict['kind'];

/** Kinds that fail the gate (exit code 1, or 2 when every failure is an infrastructure error). */
export const gateFailingKinds: ReadonlySet<VerdictKind> = new Set(['fail', 'stale', 'error']);
