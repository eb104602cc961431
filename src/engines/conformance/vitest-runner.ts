/**
 * Runs the suites of some areas against one target through vitest's Node API: project
 * `conformance` (its one suite file, suite-entry.ts, registers the case files it is handed),
 * our collector as the only reporter, and vitest's own console output discarded. The target, the areas
 * and the case files reach the suite file through `provide`.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Reporter } from 'vitest/node';
import type { CaseResult } from '../../results/conformance-run.ts';
import { collectAfterFirstStart } from '../../shared/memory-relief.ts';
import { createRedactor } from '../../shared/redact.ts';
import { sourceFile } from '../../shared/source-files.ts';
import type { TargetArea } from '../../target/target.ts';
import { CaseCollector, type CollectedRun } from './case-collector.ts';
import type { SuiteRun } from './case-meta.ts';

export interface SuiteRunOptions {
  /** The folder holding conformance/, whose vitest.config the runner loads. */
  readonly root: string;
  readonly areas: readonly TargetArea[];
  /** The target, its secrets, the rule filter and the run id, handed to every suite file. */
  readonly run: SuiteRun;
  /** The case files to run (relative, `conformance/kv/pipeline.cases.ts`); none runs nothing. */
  readonly caseFiles: readonly string[];
  readonly signal?: AbortSignal;
  readonly onResult?: (result: CaseResult) => void;
  /** Concurrent cases at once. @default maxConcurrentCases */
  readonly concurrency?: number;
}

const stopSignals = ['SIGINT', 'SIGTERM'] as const;

function listenersOf(signals: readonly NodeJS.Signals[]): Map<NodeJS.Signals, Set<unknown>> {
  return new Map(signals.map((signal) => [signal, new Set<unknown>(process.listeners(signal))]));
}

/**
 * Runs `start` with `process.once` ignoring SIGINT and SIGTERM: vitest's logger registers handlers
 * with it that exit the process, and a signal during vitest's start-up would otherwise end the run
 * before its report. Only those two events are held back, and only while `start` runs.
 */
async function withoutSignalOnce<T>(start: () => Promise<T>): Promise<T> {
  const once = process.once;
  const filtered = function (this: NodeJS.Process, event: string | symbol, listener: (...args: unknown[]) => void) {
    if (event === 'SIGINT' || event === 'SIGTERM') return this;
    return once.call(this, event, listener);
  };
  process.once = filtered as typeof process.once;
  try {
    return await start();
  } finally {
    process.once = once;
  }
}

/** Concurrent cases running at once. */
export const maxConcurrentCases = 6;

/** How long an interrupted run may take to wind down before we stop waiting for vitest. */
const abortGraceMs = 2_000;

/**
 * Where vitest's logger writes: nowhere. Its console output could hold a target's secrets and would
 * break the command's own progress line; the collector reports what a run needs.
 */
function discardingSink(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

type Vitest = Awaited<ReturnType<typeof import('vitest/node')['createVitest']>>;

/** Hands vitest's reporter calls to the collector of the run going on: one vitest serves many runs. */
class RelayReporter implements Reporter {
  to: Reporter | undefined;
  onTestCaseResult(...args: Parameters<NonNullable<Reporter['onTestCaseResult']>>): void {
    void this.to?.onTestCaseResult?.(...args);
  }
  onTestRunEnd(...args: Parameters<NonNullable<Reporter['onTestRunEnd']>>): void {
    void this.to?.onTestRunEnd?.(...args);
  }
}

interface KeptRunner {
  /** The options the vitest was made with: a run asking for others gets one of its own. */
  readonly key: string;
  readonly vitest: Vitest;
  readonly relay: RelayReporter;
}

/** The scope of `withKeptRunner`: undefined outside one, else the vitest it keeps (once made). */
let keeping: { kept?: KeptRunner } | undefined;

/**
 * Runs `work` with one vitest kept for every suite run in it, made on the first and closed at the end:
 * a run pays vitest's and vite's start (about 1.2 s of CPU) once, not each time. For many runs one
 * after another in one process (the self-validation's batches); never two at once, since they would share
 * one worker and one reporter. Outside it, each run makes and closes its own, as a CLI run does.
 */
export async function withKeptRunner<T>(work: () => Promise<T>): Promise<T> {
  if (keeping !== undefined) return work();
  const scope: { kept?: KeptRunner } = {};
  keeping = scope;
  try {
    return await work();
  } finally {
    keeping = undefined;
    if (scope.kept) await closeWithin(scope.kept.vitest);
  }
}

const closeWithin = (vitest: Vitest) =>
  Promise.race([vitest.close(), new Promise((resolve) => setTimeout(resolve, abortGraceMs).unref())]);

async function makeVitest(options: SuiteRunOptions, reporter: Reporter): Promise<Vitest> {
  // vitest's logger exits the process on SIGINT/SIGTERM; the command must first stop the reference
  // and write what it measured. Its handlers are kept from being installed while vitest starts (a
  // signal then would exit before the report), and any other new ones are removed once it has started.
  const signalListeners = listenersOf(stopSignals);
  const sink = discardingSink();
  // Loaded here, not at the top: vitest/node loads vite's native bundler (rolldown), whose worker threads
  // start with it, and a process that exited while they started hung for good on a futex (1 in 25 runs
  // of a command refused before any case ran). Only a run that starts vitest loads it now.
  const { createVitest } = await import('vitest/node');
  const vitest = await withoutSignalOnce(() =>
    createVitest(
      {
        root: options.root,
        // The suites' own configuration, not the repository's (issue 37: the runner loaded the project's
        // test projects, slow-test table and sequencer).
        config: join(options.root, 'conformance', sourceFile('vitest.config')),
        run: true,
        watch: false,
        reporters: [reporter],
        passWithNoTests: true,
        color: false,
        // Cases wait on the network, not the CPU: threads without isolation start fastest.
        pool: 'threads',
        isolate: false,
        // One file at a time, in one worker: cases may change target-wide settings through the admin
        // hook (the daily request limit) and restore them in cleanup; parallel files would interfere.
        maxWorkers: 1,
        fileParallelism: false,
        // Cases marked concurrent (conformance-case.ts) overlap their waits, this many at a time: the
        // messaging suite waited 38 s of its 42 s one case after another. Few enough that a target's
        // rate limit (500 requests per second on a paid plan) is never approached.
        maxConcurrency: options.concurrency ?? maxConcurrentCases,
        // Results of earlier runs would reorder the files; a conformance run is the same every time.
        cache: false,
      },
      {},
      { stdout: sink, stderr: sink },
    ),
  );
  for (const signal of stopSignals) {
    for (const listener of process.listeners(signal)) {
      if (!signalListeners.get(signal)?.has(listener)) process.off(signal, listener);
    }
  }
  collectAfterFirstStart();
  return vitest;
}

export async function runSuites(options: SuiteRunOptions): Promise<CollectedRun> {
  const collector = new CaseCollector({
    target: options.run.target.name,
    ...(options.onResult && { onResult: options.onResult }),
    redact: createRedactor(options.run.secrets),
  });
  if (options.caseFiles.length === 0) return collector.collected;
  const savedExitCode = process.exitCode;
  const scope = keeping;
  const key = `${options.root}\0${options.concurrency ?? maxConcurrentCases}`;
  let vitest: Vitest;
  if (scope === undefined) {
    vitest = await makeVitest(options, collector);
  } else {
    if (scope.kept !== undefined && scope.kept.key !== key) {
      await closeWithin(scope.kept.vitest);
      delete scope.kept;
    }
    if (scope.kept === undefined) {
      const relay = new RelayReporter();
      scope.kept = { key, relay, vitest: await makeVitest(options, relay) };
    }
    scope.kept.relay.to = collector;
    vitest = scope.kept.vitest;
  }
  vitest.provide('svcRun', { ...options.run, areas: options.areas, caseFiles: options.caseFiles });
  // On abort: ask vitest to cancel, and stop waiting after a grace period (a case may be mid-wait).
  let onAbort = () => {};
  const stopped = new Promise<void>((resolve) => {
    onAbort = () => {
      void vitest.cancelCurrentRun('keyboard-input');
      setTimeout(resolve, abortGraceMs).unref();
    };
  });
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race([vitest.start(), stopped]);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (scope === undefined) await closeWithin(vitest);
    else if (scope.kept !== undefined) {
      scope.kept.relay.to = undefined;
      // An interrupted run's vitest may still be winding down: the next run gets a new one.
      if (options.signal?.aborted) {
        await closeWithin(scope.kept.vitest);
        delete scope.kept;
      }
    }
    // vitest marks a failed run on the process; the gate decides the exit code, not vitest.
    process.exitCode = savedExitCode;
  }
  return collector.collected;
}
