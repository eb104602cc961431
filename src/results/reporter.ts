/**
 * What a run tells its reporters (after vitest's reporter interface): lifecycle events while it
 * runs, and the one run object at the end. Runners call these hooks and nothing else; reporters
 * (src/reporters/) render and write. Every hook is optional.
 */

import { harnessError, oneLine } from '../shared/errors.ts';
import type { CaseResult } from './conformance-run.ts';
import type { HarnessRun } from './harness-run.ts';
import type { CheckTotals, LatencySummary, RequestCounts, ScenarioResult, ThresholdResult } from './load-run.ts';
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

/** A run begins: its id (the key prefix of what it writes to a target), command and report folder. */
export interface RunStart {
  readonly runId: string;
  /** `load`, `run`, `conformance`, `regions` or `k6 merge`. */
  readonly command: string;
  /** ISO time. */
  readonly startedAt: string;
  readonly reportDir: string;
}

/** Who makes a load scenario's load, and against what (the third argument of `onScenarioStart`). */
export interface ScenarioStart {
  /** `node`, `node-undici` or `k6`. */
  readonly engine: string;
  /** The target's name. */
  readonly target: string;
  /** The target is the reference the run started itself. */
  readonly embedded: boolean;
  /** Seconds of measured load planned (0: the scenario's own count of requests). */
  readonly durationS: number;
}

/**
 * The live figures of a running load scenario, once a second. The first seven fields are what the
 * console's line shows; the rest are what the live outputs (`--out`) carry. Counts are cumulative,
 * since the scenario's measured load began, so a consumer that misses one event misses nothing; the
 * scenario's result (`onScenarioEnd`) has the final ones, which add what ended after the last event
 * (in-flight requests drained, `finish`'s checks). On k6 the figures are those of its outputs read
 * so far (k6-output.ts follows the files k6 writes).
 */
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
  /** The engine making the load (`node`, `node-undici`, `k6`). */
  readonly engine?: string;
  /** Every request so far: sent, completed, failed, dropped. */
  readonly requests?: RequestCounts;
  /** The same per tag set the scenario's requests carry (requests counted without tags are in none). */
  readonly tags?: readonly { readonly tags: Readonly<Record<string, string>>; readonly requests: RequestCounts }[];
  /** Each check's passes and fails so far. */
  readonly checks?: readonly CheckTotals[];
  /**
   * The last whole second of the load (`second`, counted from 0 at the scenario's start) and the
   * latency of the answers completed in it (ms, the report's series point of that second).
   */
  readonly lastSecond?: { readonly second: number; readonly latencyMs: LatencySummary };
  /**
   * The scenario's thresholds over its load so far, as they would be judged if it ended now: those of
   * the metrics the load itself counts (`http_req_duration`, `http_req_failed`, `http_reqs`, `checks`,
   * `dropped_iterations`, `commands`). What only the end knows (a messaging stream's accounting,
   * `finish`'s updates) is judged at the end only.
   */
  readonly thresholds?: readonly ThresholdResult[];
  /**
   * A messaging scenario's streams as the sink sees them so far (kv-fanout's deliveries to its
   * subscribers as `fanout`), one entry per stream anything reached. Which keys are expected is known
   * only at the end, so these are arrivals, not received or lost (the result's accounting has those).
   */
  readonly messages?: readonly MessageProgress[];
}

/** One messaging stream in a progress event (`LoadProgress.messages`). */
export interface MessageProgress {
  /** The report's stream names (its `series`'), and `fanout` for kv-fanout's subscribers. */
  readonly stream: 'delivery' | 'callback' | 'failureCallback' | 'waiter' | 'fanout';
  /** Every arrival classified into the stream so far (repeats included). */
  readonly arrived: number;
  /** Of those, arrivals of a key that had arrived before: duplicates, and an unexpected key again. */
  readonly repeated: number;
  /**
   * Latency (ms) of the keys' first arrivals since the previous progress event (a second of the load):
   * deliveries, waiters and failure callbacks from the send, callbacks from their delivery's first
   * arrival (none when that delivery had not arrived yet).
   */
  readonly latencyMs: LatencySummary;
}

/** A scenario's phase: its unmeasured warm-up, or its measured load. */
export interface PhaseChange {
  readonly scenario: string;
  /** The engine making the load. */
  readonly engine: string;
  readonly phase: 'warmup' | 'load';
  /** The phase begins or ends. */
  readonly edge: 'start' | 'end';
  /** Seconds the phase is planned for (0: the scenario's own count of requests). */
  readonly durationS: number;
}

/** A soak's sample of a process's memory and CPU (its trends, live): the implementation's or the harness's. */
export interface ResourceReading {
  readonly process: 'implementation' | 'harness';
  /** Seconds since the measured load's start (the faults' time 0). */
  readonly elapsedS: number;
  readonly rssBytes: number;
  /** Cores used since the lifetime's previous sample; null for a lifetime's first. */
  readonly cpuCores: number | null;
}

/** A soak's fault is done to the implementation, or healed (`svc-harness soak`). */
export interface FaultChange {
  /** `f<spec>-<n>`: the spec's index and the occurrence's number. */
  readonly id: string;
  /** The spec as written (`kill every 10m`). */
  readonly fault: string;
  readonly action: string;
  /** The path of a network fault (`target`, `sink`). */
  readonly path?: string;
  readonly edge: 'start' | 'end';
  /** Seconds since the faults' time 0 (the measured load's start). */
  readonly elapsedS: number;
  /** Why it could not be done or healed (at its end). */
  readonly error?: string;
  /** Healed early: the run ended first (at its end). */
  readonly cut?: boolean;
}

export interface Reporter {
  /** The name `--reporter` chooses it by. */
  readonly name: string;
  /** The file it writes into the report folder, if any (the console names them). */
  readonly file?: string;
  /** The run began (its context is open, nothing started against a target yet). */
  onRunStart?(start: RunStart): void;
  /** A target's cases are about to run; `embedded` for the reference the run started itself. */
  onTarget?(name: string, embedded: boolean): void;
  /** How many cases are about to run against the current target. */
  onPlanned?(count: number): void;
  /** A case ended (its texts already redacted). */
  onResult?(result: CaseResult): void;
  /** A one-line problem (a target down, a suite file that failed); already redacted. */
  onProblem?(line: string): void;
  /** A load scenario is about to run; `line` says how (model, rate or connections, duration). */
  onScenarioStart?(name: string, line: string, start: ScenarioStart): void;
  /** A load scenario's phase (its warm-up, its measured load) begins or ends. */
  onPhase?(change: PhaseChange): void;
  /** Once a second while a load scenario runs. */
  onProgress?(progress: LoadProgress): void;
  /** A soak's fault starts, or is healed. */
  onFault?(change: FaultChange): void;
  /** A soak sampled a process's memory and CPU (every few seconds while its load runs). */
  onResources?(reading: ResourceReading): void;
  /** A load scenario ended (its texts already redacted). */
  onScenarioEnd?(result: ScenarioResult): void;
  /** The run ended, completely or not (`run.aborted`): render and write. */
  onRunEnd?(run: HarnessRun, context: RunEndContext): void | Promise<void>;
}

/** The hooks a runner calls: every reporter's, in order; `onRunEnd` waits for each in turn. */
export type RunEvents = Required<Omit<Reporter, 'name' | 'file'>>;

/** The hooks called while the run goes, each of every reporter in turn. */
export const liveHooks = [
  'onRunStart',
  'onTarget',
  'onPlanned',
  'onResult',
  'onProblem',
  'onScenarioStart',
  'onPhase',
  'onProgress',
  'onFault',
  'onResources',
  'onScenarioEnd',
] as const satisfies readonly (keyof RunEvents)[];

type LiveHook = (typeof liveHooks)[number];

const reporterLabel = (reporter: Reporter) => `${reporter.name}${reporter.file ? ` (${reporter.file})` : ''}`;

/**
 * Every reporter's hooks as one. A live hook that throws (a reporter of the user's own, most likely)
 * must not stop the run: it is called from the load's timers, where a throw would end the process. It
 * is told once (`log`), that reporter hears no more live events (its `onRunEnd` still runs), and the
 * run's end names it with any reporter that failed there; every other reporter renders and writes its files whatever one did.
 */
export function reporterEvents(reporters: readonly Reporter[], log: (line: string) => void = () => {}): RunEvents {
  const failed = new Map<Reporter, string>();
  const call = <Hook extends LiveHook>(hook: Hook, args: Parameters<RunEvents[Hook]>) => {
    for (const reporter of reporters) {
      if (failed.has(reporter)) continue;
      const method = reporter[hook] as ((...given: Parameters<RunEvents[Hook]>) => void) | undefined;
      if (method === undefined) continue;
      try {
        method.apply(reporter, args);
      } catch (error) {
        const line = `${reporterLabel(reporter)}: ${hook} threw: ${oneLine(error)}`;
        failed.set(reporter, line);
        log(`a reporter failed, it hears no more of this run: ${line}`);
      }
    }
  };
  return {
    onRunStart: (...args) => call('onRunStart', args),
    onTarget: (...args) => call('onTarget', args),
    onPlanned: (...args) => call('onPlanned', args),
    onResult: (...args) => call('onResult', args),
    onProblem: (...args) => call('onProblem', args),
    onScenarioStart: (...args) => call('onScenarioStart', args),
    onPhase: (...args) => call('onPhase', args),
    onFault: (...args) => call('onFault', args),
    onResources: (...args) => call('onResources', args),
    onProgress: (...args) => call('onProgress', args),
    onScenarioEnd: (...args) => call('onScenarioEnd', args),
    // Every reporter renders and writes, whatever another one did: one that fails leaves the others'
    // files written, and the run's one error names each that failed.
    onRunEnd: async (run, context) => {
      const failures = [...failed.values()];
      // One that failed while the run went still writes what it can: its file may be whole.
      for (const reporter of reporters) {
        try {
          await reporter.onRunEnd?.(run, context);
        } catch (error) {
          failures.push(`${reporterLabel(reporter)}: ${oneLine(error)}`);
        }
      }
      if (failures.length > 0) {
        throw harnessError(
          'SVC_REPORTER',
          `${failures.length === 1 ? 'a reporter' : `${failures.length} reporters`} failed, the others wrote their files: ${failures.join('; ')}`,
        );
      }
    },
  };
}
