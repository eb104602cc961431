/**
 * One scenario, start to end: setup (unmeasured), the load (open model, in threads when asked, or
 * closed), the fan-out subscribers when it has some, finish (verify and clean up), then the result
 * with its thresholds. Whatever happens, what was measured becomes the result, and finish runs.
 */
import { performance } from 'node:perf_hooks';
import type { ScenarioFinish } from '../../protocol/scenario.ts';
import type { DeliveryAccounting, MessagingAccounting, ScenarioResult } from '../../results/load-run.ts';
import { oneLine } from '../../shared/errors.ts';
import { runClosedLoop } from './closed-loop.ts';
import { type Fanout, openFanout } from './fanout.ts';
import { type MessagingSinkRun, openMessagingSink } from './messaging-sink.ts';
import { type PartProgress, runOpenPart } from './open-model.ts';
import { mergeParts, type RecorderPart } from './recorder.ts';
import { contextFor, type ScenarioRun, scenarioOptions, scheduleOf } from './scenario-plan.ts';
import { emptyResult, type ResultBase, resultBase, scenarioResult } from './scenario-result.ts';
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
  const base = resultBase(run, options, { name: client === 'net' ? 'node' : 'node-undici', workers: options.workers });
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
          ? await (await import('./closed-model.ts')).runClosed(
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

  const merged = mergeParts(parts);
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
