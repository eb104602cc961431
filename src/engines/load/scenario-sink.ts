/**
 * A messaging scenario's sink, on whichever engine sends the load (node or k6): a counting inbox on
 * the run's sink whose threads classify every request with the scenario's `sink` part
 * (`sink-classifier.ts`), and the ledger that accounts for every arrival (`messaging-accounting.ts`).
 * Order of use: `openMessagingSink` before setup (setup hands the target `urls`), `setState` once
 * setup returned (the sink's threads classify with it), the load, then `finish` with the accepted
 * iterations (the merged `accepted` marks), then `close`.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { ArrivalRecord, Scenario, SinkUrls } from '../../protocol/scenario.ts';
import type { MessagingAccounting } from '../../results/load-run.ts';
import type { MessageProgress } from '../../results/reporter.ts';
import { harnessError, oneLine } from '../../shared/errors.ts';
import { sourceFile } from '../../shared/source-files.ts';
import { withTimeout } from '../../shared/with-timeout.ts';
import type { FatePart } from './fate-log.ts';
import { type LedgerArrival, MessagingLedger } from './messaging-accounting.ts';
import { type MessagingEvidence, messagingEvidence } from './messaging-evidence.ts';
import { type ClassifierData, newStateCell, writeState } from './sink-classifier.ts';

/** The default wait for what is still expected once the load ended (SinkPart.graceS). */
const defaultGraceS = 30;
/** How often the wait flushes the sink's threads and counts what is missing. */
const recheckMs = 100;
/** The longest a flush of the sink's threads may take (a batch is handed on every 50 ms). */
const flushLimitMs = 10_000;

/** What the load engine needs of the run's sink (src/sink's `Sink`, started once per run). */
export interface CountingSink {
  openCounter<R>(
    label: string,
    classifier: { readonly module: string; readonly data: unknown },
  ): {
    url(role: string, rest?: string): string;
    onArrivals(listener: (batch: readonly (LedgerArrival & { readonly record: R | undefined })[]) => void): void;
    flush(): Promise<void>;
    close(): void;
  };
  /** Requests for no open inbox, or for a closed one. */
  strays(): readonly unknown[];
  /** What went wrong on the sink's side (a classifier that did not load or threw), each once. */
  problems(): readonly string[];
}

export interface MessagingSinkRun {
  /** For ScenarioContext.sink, before setup. */
  readonly urls: SinkUrls;
  /**
   * Once setup returned, before the load: the sink's threads classify with this state. Arrivals
   * before it are answered 200 and counted as unclassified.
   */
  setState(state: unknown): void;
  /**
   * After the load: waits until everything the accepted iterations expect arrived, or graceS ran out
   * (or the signal aborts: then it does not wait), then accounts exactly.
   */
  finish(
    accepted: readonly number[],
    state: unknown,
    signal: AbortSignal,
  ): Promise<{ readonly messaging: MessagingAccounting; readonly problems: readonly string[] }>;
  /** While the load runs, once a progress event: each stream's arrivals so far (resets their second of latency). */
  take(): MessageProgress[];
  /** After `finish`: each publish's fate against what reached the sink, for the soak's checker. */
  evidence(fates: FatePart, state: unknown): MessagingEvidence;
  close(): Promise<void>;
}

const classifierModule = new URL(sourceFile('./sink-classifier'), import.meta.url).href;

/** How the wait behaves; the defaults are the engines' (a test stalls a thread for less than 10 s). */
export interface MessagingSinkOptions {
  /** The longest one flush of the sink's threads may take before it is a problem line. @default 10,000 */
  readonly flushLimitMs?: number;
}

/** `scenarioUrl`: the scenario module's file URL or path (the sink's threads import it). */
export async function openMessagingSink(
  run: { readonly scenario: Scenario; readonly sink?: CountingSink | undefined },
  scenarioUrl: string,
  options: MessagingSinkOptions = {},
): Promise<MessagingSinkRun> {
  const flushLimit = options.flushLimitMs ?? flushLimitMs;
  const part = run.scenario.sink;
  if (part === undefined) throw harnessError('SVC_INTERNAL', `${run.scenario.name} has no sink part`);
  const sink = run.sink;
  if (sink === undefined) throw harnessError('SVC_INTERNAL', `${run.scenario.name} needs a sink and the run has none`);
  const url = scenarioUrl.startsWith('file:') ? scenarioUrl : pathToFileURL(scenarioUrl).href;
  const cell = newStateCell();
  const data: ClassifierData = { scenarioUrl: url, state: cell };
  const ledger = new MessagingLedger();
  const straysBefore = sink.strays().length;
  const problemsBefore = sink.problems().length;
  const inbox = sink.openCounter<ArrivalRecord>(`load ${run.scenario.name}`, { module: classifierModule, data });
  inbox.onArrivals((batch) => ledger.add(batch));
  let closed = false;
  return {
    urls: { url: (role, rest) => inbox.url(role, rest) },
    setState: (state) => writeState(cell, state),
    take: () => ledger.take(),
    async finish(accepted, state, signal) {
      ledger.expect(accepted, part.expected, state);
      const started = performance.now();
      const until = started + (part.graceS ?? defaultGraceS) * 1000;
      const problems: string[] = [];
      // Flush, then count: what arrived before the flush is in the ledger, so nothing missing is final.
      for (;;) {
        try {
          await withTimeout(inbox.flush(), flushLimit, `the sink did not hand on its arrivals within ${flushLimit} ms`);
        } catch (error) {
          // A sink thread that stopped answering: account for what came, say so, never hang.
          problems.push(oneLine(error));
          break;
        }
        if (ledger.missing() === 0 || signal.aborted || performance.now() >= until) break;
        await pause(Math.min(recheckMs, until - performance.now()), signal);
      }
      const messaging = ledger.account({
        waitedS: Math.round(performance.now() - started) / 1000,
        strays: sink.strays().length - straysBefore,
      });
      problems.push(
        ...sink
          .problems()
          .slice(problemsBefore)
          .map((line) => `sink: ${line}`),
      );
      // Requests the scenario could not classify are the target's doing: counted (`unclassified`), not a problem.
      return { messaging, problems };
    },
    evidence: (fates, state) =>
      messagingEvidence(run.scenario.name, fates, ledger.keyArrivals(), (index) => part.expected(state, index)),
    async close() {
      if (closed) return;
      closed = true;
      inbox.close();
    },
  };
}

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}
