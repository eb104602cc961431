/**
 * The node engine as a driver of the scenario lifecycle (scenario-lifecycle.ts): the load on one of
 * its transports, open model (in threads when asked, after a warm-up), or closed, and the fan-out
 * subscribers when the scenario has some.
 */
import { performance } from 'node:perf_hooks';
import type { DeliveryAccounting, ScenarioResult } from '../../results/load-run.ts';
import { oneLine } from '../../shared/errors.ts';
import { runClosedLoop } from './closed-transport.ts';
import { type Fanout, openFanout } from './fanout.ts';
import type { FatePart } from './fate-log.ts';
import { liveThresholdsOf, withThresholds } from './live-thresholds.ts';
import { type PartProgress, runOpenPart } from './open-model.ts';
import { progressOf } from './part-progress.ts';
import { type MergedParts, mergeParts, type RecorderPart } from './recorder.ts';
import {
  type DriverInput,
  type DriverLoad,
  type LoadDriver,
  type PlannedOptions,
  runScenarioLifecycle,
} from './scenario-lifecycle.ts';
import { type ScenarioRun, scheduleOf } from './scenario-plan.ts';
import { resultBase } from './scenario-result.ts';
import { constantSchedule, type Schedule } from './schedule.ts';
import type { ClientName } from './transport.ts';
import { runWorkers } from './worker-pool.ts';

export type { ScenarioRun };

/**
 * The node engine's run of one scenario on one of its transports: `net` (raw sockets, the `node`
 * engine) or `undici` (the `node-undici` engine, whose closed model is autocannon's).
 */
export function runScenario(run: ScenarioRun, client: ClientName): Promise<ScenarioResult> {
  return runScenarioLifecycle(run, nodeDriver(client));
}

/** The node engine on a transport, as a driver of the lifecycle. */
export function nodeDriver(client: ClientName): LoadDriver {
  return {
    base: (run, options) => {
      const measured = resultBase(run, options, {
        name: client === 'net' ? 'node' : 'node-undici',
        workers: options.workers,
      });
      const warmupS = warmupOf(run, options);
      return warmupS > 0 ? { ...measured, settings: { ...measured.settings, warmupS } } : measured;
    },
    load: (input) => nodeLoad(input, client),
  };
}

async function nodeLoad(input: DriverInput, client: ClientName): Promise<DriverLoad> {
  const { run, options, state, base, problems } = input;
  const { scenario } = run;
  const schedule = scheduleOf(run, options);
  let fanout: Fanout | undefined;
  const parts: RecorderPart[] = [];
  const origin = performance.now();
  // Progress counts from the measured load's start: a warm-up before it is in no figure.
  let measuredFrom = origin;
  const partProgress = new Map<number, PartProgress>();
  const judged = liveThresholdsOf(run.thresholds);
  const report = () => {
    const parts = [...partProgress.values()];
    const progress = progressOf(parts, {
      scenario: scenario.name,
      engine: base.engine,
      elapsedS: (performance.now() - measuredFrom) / 1000,
      durationS: options.durationS,
    });
    const totals = parts.flatMap((part) => (part.totals ? [part.totals] : []));
    const withFanout = fanout ? { ...progress, messages: [fanout.take()] } : progress;
    run.progress(withThresholds(withFanout, base, judged, totals));
  };
  // The phases as they begin and end: the warm-up (open model, one part), then the measured load.
  let loading = false;
  const phase = (name: 'warmup' | 'load', edge: 'start' | 'end', durationS: number) => {
    if (name === 'load') loading = edge === 'start';
    run.phase?.({ scenario: scenario.name, engine: base.engine, phase: name, edge, durationS });
  };
  let delivery: DeliveryAccounting | undefined;
  const warmupTallies: Readonly<Record<string, number>>[] = [];
  let warmupFates: FatePart | undefined;
  try {
    if (scenario.fanout) {
      fanout = await openFanout(scenario.fanout, state, run.target, schedule.total, run.settings.timeoutMs);
    }
    if (run.settings.model === 'closed') {
      const closedOptions = {
        connections: options.connections,
        durationS: options.durationS,
        timeoutMs: run.settings.timeoutMs,
        seed: options.seed,
        origin: performance.now(),
        problem: (line: string) => problems.push(line),
        totals: judged.length > 0,
      };
      const onProgress = (progress: PartProgress) => {
        partProgress.set(0, progress);
        report();
      };
      phase('load', 'start', options.durationS);
      // Loaded on use: autocannon is a fifth of the engine's start-up memory, and only node-undici's closed model needs it.
      const recorder =
        client === 'undici'
          ? await (await import('./closed-autocannon.ts')).runClosed(
              scenario,
              state,
              run.target,
              closedOptions,
              run.signal,
              onProgress,
            )
          : await runClosedLoop(scenario, state, run.target, client, closedOptions, run.signal, onProgress);
      parts.push(recorder.part());
      recorder.destroy();
    } else if (options.workers > 1) {
      phase('load', 'start', options.durationS);
      parts.push(
        ...(await runWorkers(run, client, options, state, (index, progress) => {
          partProgress.set(index, progress);
          if (index === 0) report();
        })),
      );
    } else {
      const warmupS = base.settings.warmupS ?? 0;
      if (warmupS > 0) phase('warmup', 'start', warmupS);
      const warmup = warmupS > 0 ? await warmUp(run, client, options, state, warmupS) : undefined;
      if (warmupS > 0) phase('warmup', 'end', warmupS);
      if (warmup !== undefined) warmupTallies.push(warmup.tallies);
      warmupFates = warmup?.fates;
      measuredFrom = performance.now();
      phase('load', 'start', options.durationS);
      const recorder = await runOpenPart(
        scenario,
        state,
        run.target,
        client,
        onePart(run, options, schedule),
        run.signal,
        {
          progress: (progress) => {
            partProgress.set(0, progress);
            report();
          },
          ...(fanout && { observer: fanout.observer }),
        },
      );
      parts.push(recorder.part());
      recorder.destroy();
    }
    phase('load', 'end', options.durationS);
    if (fanout) {
      const finished = await fanout.finish(2000);
      delivery = finished.delivery;
      problems.push(...finished.problems);
    }
  } catch (error) {
    problems.push(`the load stopped: ${oneLine(error)}`);
    if (loading) phase('load', 'end', options.durationS);
  } finally {
    fanout?.close();
  }
  // The warm-up's answers are in no histogram or count, but what it did to the target is: its tallies
  // (the transaction scenario's commits) go to finish with the measured ones.
  return {
    merged: withTallies(mergeParts(parts), warmupTallies),
    ...(warmupFates !== undefined && { warmupFates }),
    ...(delivery && { delivery }),
    ranSeconds: (performance.now() - origin) / 1000,
  };
}

/**
 * Seconds of warm-up before this scenario's measured run: `--warmup` (1 s by default) where the node
 * engine makes an open-model load at one steady rate of plain requests. None for a sink's or a fan-out's
 * scenario (their accounting counts every iteration from the first), a ramp (it starts from its own
 * rate) or a load split over threads.
 */
function warmupOf(run: ScenarioRun, options: PlannedOptions): number {
  const plain = run.scenario.sink === undefined && run.scenario.fanout === undefined;
  const steady = run.settings.model === 'open' && run.settings.ramp === undefined && options.workers <= 1;
  return plain && steady ? (run.settings.warmupS ?? defaultWarmupS) : 0;
}

/**
 * Measured on a 2-core machine, a fresh process's first second of the pipeline scenario had a p99 up to
 * 20 times the rest's (compiling, the first 1 MB pipelines, the first old-space collection); one second
 * of the same load before measuring leaves it out.
 */
export const defaultWarmupS = 1;

/**
 * The scenario's own load for `seconds`, unmeasured; its tallies and fates, since what it did to the
 * target counts (the transaction's commits are in the counters finish and the soak read).
 */
async function warmUp(
  run: ScenarioRun,
  client: ClientName,
  options: PlannedOptions,
  state: unknown,
  seconds: number,
): Promise<{ readonly tallies: Readonly<Record<string, number>>; readonly fates?: FatePart }> {
  const recorder = await runOpenPart(
    run.scenario,
    state,
    run.target,
    client,
    onePart(run, options, constantSchedule(options.rate, seconds)),
    run.signal,
    {},
  );
  const { tallies, fates } = recorder.part();
  recorder.destroy();
  return { tallies, ...(fates !== undefined && { fates }) };
}

/** `merged` with the warm-up's tallies added to its own. */
function withTallies(merged: MergedParts, extra: readonly Readonly<Record<string, number>>[]): MergedParts {
  if (extra.length === 0) return merged;
  const tallies: Record<string, number> = { ...merged.tallies };
  for (const more of extra)
    for (const [name, count] of Object.entries(more)) tallies[name] = (tallies[name] ?? 0) + count;
  return { ...merged, tallies };
}

/** The open model's settings for a load in one part (no threads), starting now. */
function onePart(run: ScenarioRun, options: PlannedOptions, schedule: Schedule) {
  return {
    schedule,
    connections: options.connections,
    timeoutMs: run.settings.timeoutMs,
    seed: options.seed,
    part: { index: 0, count: 1 },
    origin: performance.now(),
    drainMs: run.settings.timeoutMs,
    totals: liveThresholdsOf(run.thresholds).length > 0,
  };
}
