/**
 * The vitest reporter of a conformance run: it prints nothing itself, turns every finished test
 * into a CaseResult (from the case meta register-cases put on the task) and reports progress.
 */
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import type { TargetArea } from '../target/target.ts';
import './case-meta.ts';
import type { CaseResult } from './conformance-run.ts';
import type { Verdict } from './verdict.ts';

export interface CollectedRun {
  readonly results: CaseResult[];
  /** One line per suite file that failed to load and per unhandled error. */
  readonly problems: string[];
}

function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n').find((part) => part.trim().length > 0) ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The verdict of a test whose case left no outcome: vitest stopped it (timeout, cancel) or skipped it. */
function fallbackVerdict(testCase: TestCase): Verdict {
  const result = testCase.result();
  if (result.state === 'passed') return { kind: 'pass' };
  // A case that skips itself records its outcome first; a skip without one is vitest's (an aborted run).
  if (result.state === 'skipped') return { kind: 'error', reason: `not run: ${result.note ?? 'skipped by vitest'}` };
  if (result.state === 'pending') return { kind: 'error', reason: 'not run: the run stopped before this case' };
  return { kind: 'error', reason: `the case did not end: ${firstLine(result.errors[0]?.message)}` };
}

export function caseResultOf(testCase: TestCase, target: string): CaseResult | undefined {
  const meta = testCase.meta();
  const about = meta.svcCase;
  if (!about) return undefined;
  const outcome = meta.svcOutcome;
  return {
    target,
    area: about.area as TargetArea,
    file: testCase.module.relativeModuleId,
    caseId: about.id,
    rules: about.rules,
    title: about.title,
    expect: about.expect,
    verdict: outcome?.verdict ?? fallbackVerdict(testCase),
    notes: outcome?.notes ?? [],
    durationMs: Math.round(testCase.diagnostic()?.duration ?? 0),
  };
}

export class CaseCollector implements Reporter {
  readonly #target: string;
  readonly #onResult: (result: CaseResult) => void;
  readonly #onPlanned: (count: number) => void;
  readonly #live = new Map<string, CaseResult>();
  #ended = false;
  readonly #problems: string[] = [];
  #final: CaseResult[] = [];

  constructor(options: {
    target: string;
    onResult?: (result: CaseResult) => void;
    onPlanned?: (count: number) => void;
  }) {
    this.#target = options.target;
    this.#onResult = options.onResult ?? (() => {});
    this.#onPlanned = options.onPlanned ?? (() => {});
  }

  onTestModuleCollected(testModule: TestModule): void {
    let count = 0;
    for (const testCase of testModule.children.allTests()) if (testCase.meta().svcCase) count++;
    this.#onPlanned(count);
  }

  onTestCaseResult(testCase: TestCase): void {
    const result = caseResultOf(testCase, this.#target);
    if (!result) return;
    this.#live.set(result.caseId, result);
    this.#onResult(result);
  }

  /** The final results; the live ones when the run was stopped before vitest's end of run. */
  get collected(): CollectedRun {
    return { results: this.#ended ? [...this.#final] : [...this.#live.values()], problems: [...this.#problems] };
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const results: CaseResult[] = [];
    const problems = this.#problems;
    for (const testModule of testModules) {
      for (const error of testModule.errors()) {
        problems.push(`suite file ${testModule.relativeModuleId} failed: ${firstLine(error.message)}`);
      }
      for (const testCase of testModule.children.allTests()) {
        const result = caseResultOf(testCase, this.#target);
        if (result) results.push(result);
      }
    }
    for (const error of unhandledErrors) problems.push(`unhandled error in a suite: ${firstLine(error.message)}`);
    this.#final = results;
    this.#ended = true;
  }
}
