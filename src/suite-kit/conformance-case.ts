/**
 * A conformance case is a small object: id, rules, title, expectation and a run function
 * (after Autobahn's case tables). Suites are files of such objects, families generated from tables.
 */
import type { HttpResponse } from '../http/http-client.ts';
import type { CellCover } from '../results/rule.ts';
import type { Capability } from '../target/areas.ts';
import type { Dialect } from '../target/dialects.ts';
import type { Target } from '../target/target.ts';

export interface ConformanceCase {
  /** Stable dotted id, unique across all suites: `kv.pipeline.order`. */
  readonly id: string;
  /** Rule ids this case checks; every id exists in the catalog. */
  readonly rules: readonly string[];
  readonly title: string;
  /** One sentence: what a conforming target does. */
  readonly expect: string;
  readonly needs?: readonly Capability[];
  /**
   * The cells of the rules' dimensions this case checks (conformance/rules/dimensions.ts `cover`); a
   * rule with dimensions counts as covered only where a case declares it (`svc-harness rules --coverage`).
   */
  readonly covers?: readonly CellCover[];
  /**
   * Runs alongside the other concurrent cases of its file (and, when every case of the file is
   * concurrent, of the neighbouring such files): for a case that mostly waits (for deliveries, retries,
   * a settle time) and touches only what it creates itself (its keys, queues, inbox and event ids),
   * never what the account shares: plan limits, signing keys, the admin hook, a burst at the rate limit.
   * Cases without it run alone, one after another.
   */
  readonly concurrent?: boolean;
  /** Throws CheckFailure on a broken rule; calls ctx.observe where the spec is silent. */
  run(ctx: CaseContext): Promise<void>;
}

export interface CaseContext {
  readonly target: Target;
  readonly dialect: Dialect;
  /** Unique per run and case: every key a case writes starts with it, so runs never collide. */
  readonly keyPrefix: string;
  /** Records what the target does where the spec is silent (verdict: observation). */
  observe(note: string): void;
  /** Ends the case as skipped with a reason. */
  skip(reason: string): never;
  /** Registers cleanup (keys to delete, streams to close); runs after the case, pass or fail. */
  onCleanup(fn: () => Promise<void> | void): void;
  /**
   * Aborted when the case runs out of time (its budget is a little under the vitest test timeout):
   * pass it to long waits (event streams, polling) so a stalled case ends and its cleanup still runs.
   */
  readonly signal?: AbortSignal;
}

/** Identity function for types, after vitest's defineConfig. */
export function defineCases<const T extends readonly ConformanceCase[]>(cases: T): T {
  return cases;
}

export type { HttpResponse };
