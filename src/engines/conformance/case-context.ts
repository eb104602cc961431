/**
 * The context one case runs with: its target, a key prefix unique per run and case, observations,
 * skips and cleanups. Built by register-cases; tests and other runners may build one too.
 */
import { randomBytes } from 'node:crypto';
import { oneLine } from '../../shared/errors.ts';
import { withTimeout } from '../../shared/with-timeout.ts';
import { CaseSkipped } from '../../suite-kit/check-failure.ts';
import type { CaseContext } from '../../suite-kit/conformance-case.ts';
import { getDialect } from '../../target/dialects.ts';
import type { Target } from '../../target/target.ts';

/** The run id from SVC_RUN_ID, else one random id per process. */
export const runId: string = process.env.SVC_RUN_ID?.trim() || randomBytes(4).toString('hex');

/** Every key a case writes starts with this: `svch:<runId>:<caseId>:`. */
export function keyPrefixFor(caseId: string, run: string = runId): string {
  return `svch:${run}:${caseId}:`;
}

export interface CaseRecorder {
  readonly context: CaseContext;
  readonly notes: string[];
  /** Runs the cleanups, last registered first; returns a note per cleanup that failed. */
  cleanup(timeoutMs: number): Promise<string[]>;
}

export function createCaseContext(options: {
  readonly target: Target;
  readonly caseId: string;
  readonly signal?: AbortSignal;
  readonly runId?: string;
}): CaseRecorder {
  const notes: string[] = [];
  const cleanups: Array<() => Promise<void> | void> = [];
  const context: CaseContext = {
    target: options.target,
    dialect: getDialect(options.target.dialect),
    keyPrefix: keyPrefixFor(options.caseId, options.runId),
    observe: (note) => {
      notes.push(note);
    },
    skip: (reason) => {
      throw new CaseSkipped(reason);
    },
    onCleanup: (fn) => {
      cleanups.push(fn);
    },
    ...(options.signal && { signal: options.signal }),
  };
  return {
    context,
    notes,
    async cleanup(timeoutMs) {
      const failures: string[] = [];
      for (const fn of cleanups.splice(0).reverse()) {
        try {
          await withTimeout(Promise.resolve().then(fn), timeoutMs, `cleanup did not end within ${timeoutMs} ms`);
        } catch (error) {
          failures.push(`cleanup failed: ${oneLine(error)}`);
        }
      }
      return failures;
    },
  };
}
