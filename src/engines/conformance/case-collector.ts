/**
 * The vitest reporter of a conformance run: it prints nothing itself, turns every finished test
 * into a CaseResult (from the case meta register-cases put on the task) and reports progress.
 */
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import { oneLine } from '../../shared/errors.ts';
import type { Redactor } from '../../shared/redact.ts';
import type { TargetArea } from '../../target/target.ts';
import './case-meta.ts';
import type { CaseResult } from '../../results/conformance-run.ts';
import type { Verdict } from '../../results/verdict.ts';

export interface CollectedRun {
  readonly results: CaseResult[];
  /** One line per suite file that failed to load and per unhandled error. */
  readonly problems: string[];
}

/** One line of a vitest error message, cut so a problem line stays readable. */
function problemLine(message: string | undefined): string {
  return oneLine(message ?? '', 300);
}

/**
 * The verdict of a finished test whose case left no outcome: vitest stopped it (timeout, cancel) or
 * skipped it. Cases that never finished are not reported here: runTarget fills those in.
 */
function fallbackVerdict(testCase: TestCase, redact: Redactor): Verdict {
  const result = testCase.result();
  if (result.state === 'passed') return { kind: 'pass' };
  // A case that skips itself records its outcome first; a skip without one is vitest's (an aborted run).
  if (result.state === 'skipped')
    return { kind: 'error', reason: redact(`not run: ${result.note ?? 'skipped by vitest'}`) };
  // vitest reports a case only once it finished, so `pending` does not reach here. A case cut off by an
  // interrupt or a cancelled run comes with no error at all: say so rather than end the line on a colon.
  const why = problemLine(result.errors?.[0]?.message);
  return { kind: 'error', reason: why ? redact(`the case did not end: ${why}`) : stoppedWithoutError };
}

/** The reason of a case vitest stopped without an error; the engine names the interrupt when it knows it. */
export const stoppedWithoutError =
  'the case did not end: vitest stopped it without an error (the run was interrupted or cancelled while it ran)';

export function caseResultOf(
  testCase: TestCase,
  target: string,
  redact: Redactor = (text) => text,
): CaseResult | undefined {
  const meta = testCase.meta();
  const about = meta.svcCase;
  if (!about) return undefined;
  const outcome = meta.svcOutcome;
  return {
    target,
    area: about.area as TargetArea,
    file: about.file ?? testCase.module.relativeModuleId,
    caseId: about.id,
    rules: about.rules,
    title: about.title,
    expect: about.expect,
    verdict: outcome?.verdict ?? fallbackVerdict(testCase, redact),
    notes: outcome?.notes ?? [],
    durationMs: Math.round(testCase.diagnostic()?.duration ?? 0),
    ...(outcome?.exchange !== undefined && { exchange: outcome.exchange }),
    ...(outcome?.stop !== undefined && { stop: outcome.stop }),
  };
}

export class CaseCollector implements Reporter {
  readonly #target: string;
  readonly #onResult: (result: CaseResult) => void;
  readonly #redact: Redactor;
  readonly #results = new Map<string, CaseResult>();
  readonly #problems: string[] = [];

  /** `redact`: for what the collector words itself (vitest's errors); a case's own outcome comes redacted. */
  constructor(options: { target: string; onResult?: (result: CaseResult) => void; redact?: Redactor }) {
    this.#target = options.target;
    this.#redact = options.redact ?? ((text) => text);
    this.#onResult = options.onResult ?? (() => {});
  }

  onTestCaseResult(testCase: TestCase): void {
    const result = caseResultOf(testCase, this.#target, this.#redact);
    if (!result) return;
    this.#results.set(result.caseId, result);
    this.#onResult(result);
  }

  /** The cases that finished, also when the run was stopped midway (runTarget fills in the rest). */
  get collected(): CollectedRun {
    return { results: [...this.#results.values()], problems: [...this.#problems] };
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    for (const testModule of testModules) {
      for (const error of testModule.errors()) {
        this.#problems.push(
          this.#redact(`suite file ${testModule.relativeModuleId} failed: ${problemLine(error.message)}`),
        );
      }
    }
    for (const error of unhandledErrors)
      this.#problems.push(this.#redact(`unhandled error in a suite: ${problemLine(error.message)}`));
  }
}
