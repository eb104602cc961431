/**
 * One scenario, start to end, whichever driver makes its load (issue 37: the lifecycle was written
 * twice, and the two had diverged): a messaging scenario's sink opened before set-up (set-up hands the
 * target its URLs), set-up (unmeasured) with its state given to the sink, the driver's load, the
 * sink's accounting, the scenario's finish (verify and clean up), then the result with its thresholds.
 * Whatever happens, what was measured becomes the result, finish runs, and the sink closes.
 *
 * A driver only makes the load, as undici's clients sit behind one Dispatcher: the node engine on its
 * sockets or on undici (run-scenario.ts), k6 in its processes (k6/run-k6-scenario.ts).
 * test/engines/load/scenario-lifecycle.test.ts runs one contract against every driver.
 */
import { performance } from 'node:perf_hooks';
import type { ScenarioContext, ScenarioFinish } from '../../protocol/scenario.ts';
import type { DeliveryAccounting, MessagingAccounting, ScenarioResult } from '../../results/load-run.ts';
import { oneLine } from '../../shared/errors.ts';
import { type FatePart, mergeFates } from './fate-log.ts';
import type { MergedParts } from './recorder.ts';
import { contextFor, type ScenarioRun, scenarioOptions } from './scenario-plan.ts';
import { emptyResult, type ResultBase, resultBase, scenarioResult } from './scenario-result.ts';
import { type MessagingSinkRun, openMessagingSink } from './scenario-sink.ts';

/** A scenario's settings after defaults and the command line, threads included. */
export type PlannedOptions = ReturnType<typeof scenarioOptions>;

/** What a driver is given to make the load: set-up is done, the sink (if any) knows the state. */
export interface DriverInput {
  readonly run: ScenarioRun;
  readonly options: PlannedOptions;
  /** What the scenario's set-up returned. */
  readonly state: unknown;
  readonly context: ScenarioContext;
  /** The result's base: the settings the load must follow (`warmupS` among them). */
  readonly base: ResultBase;
  /** Where the driver's one-line problems go. */
  readonly problems: string[];
}

/** What a driver's load gives back. */
export interface DriverLoad {
  /** Every part's recordings, merged; the warm-up's tallies added (what it did to the target counts). */
  readonly merged: MergedParts;
  /** A fan-out scenario's deliveries to its subscribers. */
  readonly delivery?: DeliveryAccounting;
  /** Seconds the load ran, for rates when it was interrupted (else the planned duration counts). */
  readonly ranSeconds: number;
  /** The warm-up's fates: unmeasured, but its updates are in the counters the soak reads back. */
  readonly warmupFates?: FatePart;
}

/** Makes one scenario's load: the node engine on a transport, or k6. */
export interface LoadDriver {
  /** The result's base: who makes the load, how split, with which settings. */
  base(run: ScenarioRun, options: PlannedOptions): ResultBase;
  /** The load; a failure is a problem of the result, never a lost one. */
  load(input: DriverInput): Promise<DriverLoad>;
}

export { resultBase };

export async function runScenarioLifecycle(run: ScenarioRun, driver: LoadDriver): Promise<ScenarioResult> {
  const options = scenarioOptions(run);
  const base = driver.base(run, options);
  let sink: MessagingSinkRun | undefined;
  try {
    if (run.scenario.sink) sink = await openMessagingSink(run, run.file);
  } catch (error) {
    return emptyResult(base, `the sink did not open: ${oneLine(error)}`, run.thresholds);
  }
  try {
    return await runWithSink(run, driver, options, base, sink);
  } finally {
    await sink?.close();
  }
}

/**
 * The run a driver is given: each progress event carries the sink's streams as they stand (both
 * engines share the sink, so neither driver has to know of it). Taken once per event, whatever
 * listens: the event, not a reporter, resets each stream's second of latency.
 */
function withSinkProgress(run: ScenarioRun, sink: MessagingSinkRun | undefined): ScenarioRun {
  if (sink === undefined) return run;
  return {
    ...run,
    progress: (progress) => run.progress({ ...progress, messages: [...(progress.messages ?? []), ...sink.take()] }),
  };
}

async function runWithSink(
  run: ScenarioRun,
  driver: LoadDriver,
  options: PlannedOptions,
  base: ResultBase,
  sink: MessagingSinkRun | undefined,
): Promise<ScenarioResult> {
  const { scenario } = run;
  const problems: string[] = [];
  const context = contextFor(run, options, problems, sink?.urls);
  let state: unknown;
  try {
    state = await scenario.setup?.(context);
    sink?.setState(state);
  } catch (error) {
    return emptyResult(base, `setup failed: ${oneLine(error)}`, run.thresholds);
  }

  const origin = performance.now();
  const readBack = scenario.readBack;
  if (readBack !== undefined) await run.readBack?.(scenario.name, () => readBack(state, context));
  let load: DriverLoad;
  try {
    load = await driver.load({ run: withSinkProgress(run, sink), options, state, context, base, problems });
  } finally {
    await run.loadEnded?.(scenario.name);
    if (readBack !== undefined) await run.readBack?.(scenario.name, undefined);
  }
  const { merged, delivery, ranSeconds } = load;
  // Every update made to the counters, the warm-up's first (it ran before the first read-back).
  if (readBack !== undefined && merged.fates !== undefined)
    run.updates?.(scenario.name, mergeFates([load.warmupFates, merged.fates]));
  // Interrupted, the load ran until now, not for its planned duration: rates are per second it ran.
  const loadSeconds = run.signal.aborted ? Math.max(0.001, ranSeconds) : options.durationS || 1;
  if (run.signal.aborted) problems.push('interrupted');

  let messaging: MessagingAccounting | undefined;
  if (sink) {
    // Every part's accepted publishes (merged by union); interrupted, what arrived is accounted at once.
    try {
      const finished = await sink.finish(merged.marks.accepted ?? [], state, run.signal);
      messaging = finished.messaging;
      problems.push(...finished.problems);
      if (run.evidence !== undefined && merged.fates !== undefined) run.evidence(sink.evidence(merged.fates, state));
    } catch (error) {
      problems.push(`the sink's accounting failed: ${oneLine(error)}`);
    }
  }
  let finish: ScenarioFinish = {};
  try {
    finish = (await scenario.finish?.(state, context, merged.tallies)) ?? {};
  } catch (error) {
    problems.push(`finish failed (what it wrote may be left under its prefix): ${oneLine(error)}`);
  }
  return scenarioResult({
    base,
    merged,
    finish,
    ...(delivery && { delivery }),
    ...(messaging && { messaging }),
    problems,
    loadSeconds,
    durationMs: Math.max(1, performance.now() - origin),
    thresholds: run.thresholds,
  });
}
