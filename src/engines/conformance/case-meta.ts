/**
 * What a conformance case puts on its vitest task's `meta`, so reporters (ours, or any vitest reporter
 * a user runs the suites with) see the case's rules and the verdict the case reached.
 */

import type { CaseExchange, TargetStop } from '../../results/conformance-run.ts';
import type { Verdict } from '../../results/verdict.ts';
import type { Target, TargetArea } from '../../target/target.ts';
import type { CaseOrder } from './case-order.ts';

/** Static data of a case, set when the case is registered. */
export interface CaseMeta {
  readonly id: string;
  readonly area: TargetArea;
  readonly rules: readonly string[];
  readonly title: string;
  readonly expect: string;
  /** The case file, relative to the repository: `conformance/kv/pipeline.cases.ts`. */
  readonly file?: string;
}

/** The case's outcome, set when it ends (absent when vitest stopped it first). */
export interface CaseOutcome {
  readonly verdict: Verdict;
  /** Observations the case recorded (secrets redacted). */
  readonly notes: readonly string[];
  /** The request behind a case that did not pass, and the start of its answer (redacted). */
  readonly exchange?: CaseExchange;
  /** For a case not run because the target had stopped answering: when it stopped. */
  readonly stop?: TargetStop;
}

/**
 * What the engine hands the suite files of one run through vitest's provide/inject (serialisable,
 * no disk and no environment in between). Plain `vitest` runs have none and read the environment.
 */
export interface SuiteRun {
  readonly target: Target;
  /** Every secret the run knows (the target's, the embedded reference's): what a case reports is redacted once, here. */
  readonly secrets: readonly string[];
  /** The rule glob (`--rules`), if any. */
  readonly rules: string | null;
  /** Names the run in every key prefix. */
  readonly runId: string;
  /** Every request's and stream wait's budget unless a case names its own (`--timeout`). @default 10 s */
  readonly timeoutMs?: number;
  /** The areas whose case files the suite file registers. @default every area */
  readonly areas?: readonly TargetArea[];
  /** Only these case files (`conformance/kv/pipeline.cases.ts`). @default every case file of the areas */
  readonly caseFiles?: readonly string[];
  /** A seeded order of the files and cases (case-order.ts). @default concurrent files first, then discovery order */
  readonly order?: CaseOrder;
}

declare module 'vitest' {
  interface ProvidedContext {
    svcRun?: SuiteRun;
  }
  interface TaskMeta {
    svcCase?: CaseMeta;
    svcOutcome?: CaseOutcome;
  }
}
