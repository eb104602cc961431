/**
 * The open model on worker threads: each loads the scenario module and sends every N-th arrival of
 * the same schedule; the clock starts once every one has loaded; their recorder parts come back as
 * plain data.
 */

import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { ScenarioOptions } from '../../protocol/scenario.ts';
import { sourceFile } from '../../shared/source-files.ts';
import { liveThresholdsOf } from './live-thresholds.ts';
import type { WorkerCommand, WorkerInput, WorkerMessage } from './load-worker.ts';
import type { PartProgress } from './open-model.ts';
import type { RecorderPart } from './recorder.ts';
import type { ScenarioRun } from './scenario-plan.ts';
import type { ClientName } from './transport.ts';

export async function runWorkers(
  run: ScenarioRun,
  client: ClientName,
  options: ScenarioOptions & { workers: number },
  state: unknown,
  onProgress: (part: number, progress: PartProgress) => void,
): Promise<RecorderPart[]> {
  const workers = Array.from({ length: options.workers }, (_, index) => {
    const input: WorkerInput = {
      scenarioFile: run.file,
      state,
      target: run.target,
      schedule: {
        rate: options.rate,
        durationS: options.durationS,
        ...(run.settings.ramp && { ramp: run.settings.ramp.stages }),
      },
      connections: Math.max(1, Math.ceil(options.connections / options.workers)),
      timeoutMs: run.settings.timeoutMs,
      drainMs: run.settings.timeoutMs,
      seed: options.seed,
      part: { index, count: options.workers },
      client,
      totals: liveThresholdsOf(run.thresholds).length > 0,
    };
    return new Worker(new URL(sourceFile('./load-worker'), import.meta.url), { workerData: input });
  });
  const stop = () => {
    for (const worker of workers) worker.postMessage({ type: 'stop' } satisfies WorkerCommand);
  };
  let ready = 0;
  // Every worker has loaded its modules: one origin for all, a moment ahead so none starts late.
  const onReady = () => {
    ready++;
    if (ready < workers.length) return;
    const originEpochMs = performance.timeOrigin + performance.now() + 20;
    for (const worker of workers) worker.postMessage({ type: 'start', originEpochMs } satisfies WorkerCommand);
  };
  run.signal.addEventListener('abort', stop, { once: true });
  try {
    return await Promise.all(
      workers.map((worker, index) =>
        new Promise<RecorderPart>((resolve, reject) => {
          worker.on('message', (message: WorkerMessage) => {
            if (message.type === 'ready') onReady();
            else if (message.type === 'progress') onProgress(index, message);
            else if (message.type === 'done') resolve(message.part);
            else reject(new Error(`worker ${index + 1}: ${message.message}`));
          });
          worker.on('error', reject);
          worker.on('exit', (code) => reject(new Error(`worker ${index + 1} exited with code ${code}`)));
        }).finally(() => void worker.terminate()),
      ),
    );
  } finally {
    run.signal.removeEventListener('abort', stop);
  }
}
