/**
 * What a run tells its reporters (after vitest's reporter interface): lifecycle events while it
 * runs, and the one run object at the end. Runners call these hooks and nothing else; reporters
 * (src/reporters/) render and write. Every hook is optional.
 */

import { harnessError, oneLine } from '../shared/errors.ts';
import type { CaseResult } from './conformance-run.ts';
import type { HarnessRun } from './harness-run.ts';
import type { ScenarioResult } from './load-run.ts';
import type { RuleCatalog } from './rule.ts';

/** What every reporter is handed with the finished run. */
export interface RunEndContext {
  /** The catalog the run's rules come from (rule tables by verdict). */
  readonly catalog: RuleCatalog;
  /**
   * Replaces every secret the run knows (the targets' and the embedded reference's). Reporters pass
   * what they write through it: the output boundary, so no renderer has to think about secrets.
   */
  readonly redact: (text: string) => string;
}

/** The live figures of a running load scenario. */
export interface LoadProgress {
  readonly scenario: string;
  readonly elapsedS: number;
  readonly durationS: number;
  /** Requests that ended in the last second. */
  readonly rate: number;
  /** p99 latency (ms) of the requests that ended in the last second. */
  readonly p99Ms: number;
  /** Failed requests so far. */
  readonly errors: number;
  /** Dropped requests so far. */
  readonly dropped: number;
}

export interface Reporter {
  /** The name `--reporter` chooses it by. */
  readonly name: string;
  /** The file it writes into the report folder, if any (the console names them). */
  readonly file?: string;
  /** A target's cases are about to run; `embedded` for the reference the run started itself. */
  onTarget?(name: string, embedded: boolean): void;
  /** How many cases are about to run against the current target. */
  onPlanned?(count: number): void;
  /** A case ended (its texts already redacted). */
  onResult?(result: CaseResult): void;
  /** A one-line problem (a target down, a suite file that failed); already redacted. */
  onProblem?(line: string): void;
  /** A load scenario is about to run; `line` says how (model, rate or connections, duration). */
  onScenarioStart?(name: string, line: string): void;
  /** Once a second while a load scenario runs. */
  onProgress?(progress: LoadProgress): void;
  /** A load scenario ended (its texts already redacted). */
  onScenarioEnd?(result: ScenarioResult): void;
  /** The run ended, completely or not (`run.aborted`): render and write. */
  onRunEnd?(run: HarnessRun, context: RunEndContext): void | Promise<void>;
}

/** The hooks a runner calls: every reporter's, in order; `onRunEnd` waits for each in turn. */
export type RunEvents = Required<Omit<Reporter, 'name' | 'file'>>;

export function reporterEvents(reporters: readonly Reporter[]): RunEvents {
  return {
    onTarget: (name, embedded) => {
      for (const reporter of reporters) reporter.onTarget?.(name, embedded);
    },
    onPlanned: (count) => {
      for (const reporter of reporters) reporter.onPlanned?.(count);
    },
    onResult: (result) => {
      for (const reporter of reporters) reporter.onResult?.(result);
    },
    onProblem: (line) => {
      for (const reporter of reporters) reporter.onProblem?.(line);
    },
    onScenarioStart: (name, line) => {
      for (const reporter of reporters) reporter.onScenarioStart?.(name, line);
    },
    onProgress: (progress) => {
      for (const reporter of reporters) reporter.onProgress?.(progress);
    },
    onScenarioEnd: (result) => {
      for (const reporter of reporters) reporter.onScenarioEnd?.(result);
    },
    // Every reporter renders and writes, whatever another one did: one that fails leaves the others'
    // files written, and the run's one error names each that failed.
    onRunEnd: async (run, context) => {
      const failed: string[] = [];
      for (const reporter of reporters) {
        try {
          await reporter.onRunEnd?.(run, context);
        } catch (error) {
          failed.push(`${reporter.name}${reporter.file ? ` (${reporter.file})` : ''}: ${oneLine(error)}`);
        }
      }
      if (failed.length > 0) {
        throw harnessError(
          'SVC_REPORTER',
          `${failed.length === 1 ? 'a reporter' : `${failed.length} reporters`} failed, the others wrote their files: ${failed.join('; ')}`,
        );
      }
    },
  };
}
