/**
 * What a conformance case puts on its vitest task's `meta`, so reporters (ours, or any vitest reporter
 * a user runs the suites with) see the case's rules and the verdict the case reached.
 */

import type { Verdict } from '../../results/verdict.ts';
import type { TargetArea } from '../../target/target.ts';

/** Static data of a case, set when the case is registered. */
export interface CaseMeta {
  readonly id: string;
  readonly area: TargetArea;
  readonly rules: readonly string[];
  readonly title: string;
  readonly expect: string;
}

/** The case's outcome, set when it ends (absent when vitest stopped it first). */
export interface CaseOutcome {
  readonly verdict: Verdict;
  /** Observations the case recorded (secrets redacted). */
  readonly notes: readonly string[];
}

declare module 'vitest' {
  interface TaskMeta {
    svcCase?: CaseMeta;
    svcOutcome?: CaseOutcome;
  }
}
