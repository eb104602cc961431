/**
 * A worker thread of the open model: loads the scenario module, sends its share of the schedule
 * (every `count`-th arrival), posts progress each second and its recorder part at the end. Workers
 * share nothing but the schedule's origin, given in epoch milliseconds since each thread has its own
 * `performance.now()` clock.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { LoadTarget } from './load-target.ts';
import { runOpenPart } from './open-model.ts';
import type { PartProgress, RecorderPart } from './recorder.ts';
import { loadScenario } from './scenario-registry.ts';
import { constantSchedule, type RampStage, rampSchedule } from './schedule.ts';
import type { ClientName } from './transport.ts';

export interface WorkerInput {
  readonly scenarioFile: string;
  readonly state: unknown;
  readonly target: LoadTarget;
  readonly schedule: { readonly rate: number; readonly durationS: number; readonly ramp?: readonly RampStage[] };
  readonly connections: number;
  readonly timeoutMs: number;
  readonly drainMs: number;
  readonly seed: number;
  readonly part: { readonly index: number; readonly count: number };
  readonly client: ClientName;
  /** Each second's progress carries the part's totals (the scenario has live thresholds). */
  readonly totals: boolean;
}

/** From the main thread: start now that every worker is ready (the schedule's origin, epoch ms), or stop. */
export type WorkerCommand = { readonly type: 'start'; readonly originEpochMs: number } | { readonly type: 'stop' };

export type WorkerMessage =
  | { readonly type: 'ready' }
  | ({ readonly type: 'progress' } & PartProgress)
  | { readonly type: 'done'; readonly part: RecorderPart }
  | { readonly type: 'failed'; readonly message: string };

async function main(input: WorkerInput): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const controller = new AbortController();
  let start: (originEpochMs: number) => void = () => {};
  const started = new Promise<number>((resolve) => {
    start = resolve;
  });
  port.on('message', (message: WorkerCommand) => {
    if (message.type === 'stop') controller.abort();
    else start(message.originEpochMs);
  });
  try {
    // Loading the modules takes longer than a schedule's first arrivals: the clock starts after.
    const scenario = await loadScenario(input.scenarioFile);
    const schedule = input.schedule.ramp
      ? rampSchedule(input.schedule.ramp)
      : constantSchedule(input.schedule.rate, input.schedule.durationS);
    port.postMessage({ type: 'ready' } satisfies WorkerMessage);
    const originEpochMs = await started;
    const recorder = await runOpenPart(
      scenario,
      input.state,
      input.target,
      input.client,
      {
        schedule,
        connections: input.connections,
        timeoutMs: input.timeoutMs,
        seed: input.seed,
        part: input.part,
        origin: originEpochMs - performance.timeOrigin,
        drainMs: input.drainMs,
        totals: input.totals,
      },
      controller.signal,
      { progress: (progress) => port.postMessage({ type: 'progress', ...progress } satisfies WorkerMessage) },
    );
    port.postMessage({ type: 'done', part: recorder.part() } satisfies WorkerMessage);
    recorder.destroy();
  } catch (error) {
    port.postMessage({
      type: 'failed',
      message: error instanceof Error ? error.message : String(error),
    } satisfies WorkerMessage);
  }
}

await main(workerData as WorkerInput);
