/**
 * One scenario, start to end: setup (unmeasured), the load (open model, in threads when asked, or
 * closed), the fan-out subscribers when it has some, finish (verify and clean up), then the result
 * with its thresholds. Whatever happens, what was measured becomes the result, and finish runs.
 */
import { performance } from 'node:perf_hooks';
import type { ScenarioFinish } from '../../protocol/scenario.ts';
import type { DeliveryAccounting, MessagingAccounting, ScenarioResult } from '../../results/load-run.ts';
import { oneLine } from '../../shared/errors.ts';
import { runClosedLoop } from './closed-transport.ts';
import { type Fanout, openFanout } from './fanout.ts';
import { type PartProgress, runOpenPart } from './open-model.ts';
import { type MergedParts, mergeParts, type RecorderPart } from './recorder.ts';
import { contextFor, type ScenarioRun, scenarioOptions, scheduleOf } from './scenario-plan.ts';
import { emptyResult, type ResultBase, resultBase, scenarioResult } from './scenario-result.ts';
import { type MessagingSinkRun, openMessagingSink } from './scenario-sink.ts';
import { constantSchedule } from './schedule.ts';
import type { ClientName } from './transport.ts';
import { runWorkers } from './worker-pool.ts';

export type { ScenarioRun };

/**
 * The node engine's run of one scenario on one of its transports: `net` (raw sockets, the `node`
 * engine) or `undici` (the `node-undici` engine, whose closed model is autocannon's).
 */
export async function runScenario(run: ScenarioRun, client: ClientName): Promise<ScenarioResult> {
  const { scenario } = run;
  const options = scenarioOptions(run);
  const problems: string[] = [];
  const measured = resultBase(run, options, {
    name: client === 'net' ? 'node' : 'node-undici',
    workers: options.workers,
  });
  const warmupS = warmupOf(run, options);
  const base = warmupS > 0 ? { ...measured, settings: { ...measured.settings, warmupS } } : measured;
  let sink: MessagingSinkRun | undefined;
  try {
    if (scenario.sink) sink = await openMessagingSink(run, run.file);
  } catch (error) {
    return emptyResult(base, `the sink did not open: ${oneLine(error)}`, run.thresholds);
  }
  try {
    return await runWithSink(run, client, options, base, problems, sink);
  } finally {
    await sink?.close();
  }
}

async function runWithSink(
  run: ScenarioRun,
  client: ClientName,
  options: ReturnType<typeof scenarioOptions>,
  base: ResultBase,
  problems: string[],
  sink: MessagingSinkRun | undefined,
): Promise<ScenarioResult> {
  const { scenario } = run;
  const context = contextFor(run, options, problems, sink?.urls);
  let state: unknown;
  try {
    state = await scenario.setup?.(context);
    sink?.setState(state);
  } catch (error) {
    return emptyResult(base, `setup failed: ${oneLine(error)}`, run.thresholds);
  }

  const schedule = scheduleOf(run, options);
  let fanout: Fanout | undefined;
  const parts: RecorderPart[] = [];
  const origin = performance.now();
  const partProgress = new Map<number, PartProgress>();
  const report = () => {
    const all = [...partProgress.values()];
    run.progress({
      scenario: scenario.name,
      elapsedS: (performance.now() - origin) / 1000,
      durationS: options.durationS,
      rate: all.reduce((sum, item) => sum + item.rate, 0),
      p99Ms: Math.max(0, ...all.map((item) => item.p99Ms)),
      errors: all.reduce((sum, item) => sum + item.errors, 0),
      dropped: all.reduce((sum, item) => sum + item.dropped, 0),
    });
  };
  let delivery: DeliveryAccounting | undefined;
  const warmupTallies: Readonly<Record<string, number>>[] = [];
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
      };
      const onProgress = (progress: PartProgress) => {
        partProgress.set(0, progress);
        report();
      };
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
      parts.push(
        ...(await runWorkers(run, client, options, state, (index, progress) => {
          partProgress.set(index, progress);
          if (index === 0) report();
        })),
      );
    } else {
      const warmupS = base.settings.warmupS ?? 0;
      const warmup = warmupS > 0 ? await warmUp(run, client, options, state, warmupS) : undefined;
      if (warmup !== undefined) warmupTallies.push(warmup);
      {
        const recorder = await runOpenPart(
          scenario,
          state,
          run.target,
          client,
          {
            schedule,
            connections: options.connections,
            timeoutMs: run.settings.timeoutMs,
            seed: options.seed,
            part: { index: 0, count: 1 },
            origin: performance.now(),
            drainMs: run.settings.timeoutMs,
          },
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
    }
    if (fanout) {
      const finished = await fanout.finish(2000);
      delivery = finished.delivery;
      problems.push(...finished.problems);
    }
  } catch (error) {
    problems.push(`the load stopped: ${oneLine(error)}`);
  } finally {
    fanout?.close();
  }
  // Interrupted, the load ran until now, not for its planned duration: rates are per second it ran.
  const loadSeconds = run.signal.aborted
    ? Math.max(0.001, (performance.now() - origin) / 1000)
    : options.durationS || 1;
  if (run.signal.aborted) problems.push('interrupted');

  // The warm-up's answers are in no histogram or count, but what it did to the target is: its tallies
  // (the transaction scenario's commits) go to finish with the measured ones.
  const merged = withTallies(mergeParts(parts), warmupTallies);
  let messaging: MessagingAccounting | undefined;
  if (sink) {
    // Interrupted, the signal is aborted: what arrived is accounted without waiting for the rest.
    const finished = await sink.finish(merged.marks.accepted ?? [], state, run.signal);
    messaging = finished.messaging;
    problems.push(...finished.problems);
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

/**
 * Seconds of warm-up before this scenario's measured run: `--warmup` (1 s by default) where the node
 * engine makes an open-model load at one steady rate of plain requests. None for a sink's or a fan-out's
 * scenario (their accounting counts every iteration from the first), a ramp (it starts from its own
 * rate) or a load split over threads.
 */
function warmupOf(run: ScenarioRun, options: ReturnType<typeof scenarioOptions>): number {
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

/** The scenario's own load for `seconds`, unmeasured; its tallies, since what it did to the target counts. */
async function warmUp(
  run: ScenarioRun,
  client: ClientName,
  options: ReturnType<typeof scenarioOptions>,
  state: unknown,
  seconds: number,
): Promise<Readonly<Record<string, number>>> {
  const recorder = await runOpenPart(
    run.scenario,
    state,
    run.target,
    client,
    {
      schedule: constantSchedule(options.rate, seconds),
      connections: options.connections,
      timeoutMs: run.settings.timeoutMs,
      seed: options.seed,
      part: { index: 0, count: 1 },
      origin: performance.now(),
      drainMs: run.settings.timeoutMs,
    },
    run.signal,
    {},
  );
  const { tallies } = recorder.part();
  recorder.destroy();
  return tallies;
}

/** `merged` with the warm-up's tallies added to its own. */
function withTallies(merged: MergedParts, extra: readonly Readonly<Record<string, number>>[]): MergedParts {
  if (extra.length === 0) return merged;
  const tallies: Record<string, number> = { ...merged.tallies };
  for (const more of extra)
    for (const [name, count] of Object.entries(more)) tallies[name] = (tallies[name] ?? 0) + count;
  return { ...merged, tallies };
}
