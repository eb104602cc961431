/** Starts and stops bench/reference-worker.ts; every wait is bounded. */
import { Worker } from 'node:worker_threads';
import type { WorkerMessage, WorkerReady } from './reference-worker.ts';

export interface ReferenceThread extends WorkerReady {
  stop(): Promise<void>;
}

export async function startReferenceThread(redisUrl: string, timeoutMs = 20_000): Promise<ReferenceThread> {
  const worker = new Worker(new URL('./reference-worker.ts', import.meta.url), { workerData: { redisUrl } });
  const ready = await nextMessage(worker, timeoutMs, 'the reference did not start');
  if (ready === 'stopped' || 'error' in ready) {
    await worker.terminate();
    throw new Error(ready === 'stopped' ? 'the reference stopped at once' : ready.error);
  }
  return {
    ...ready,
    async stop() {
      worker.postMessage('stop');
      await nextMessage(worker, 10_000, 'the reference did not stop').catch(() => undefined);
      await worker.terminate();
    },
  };
}

function nextMessage(worker: Worker, timeoutMs: number, what: string): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} within ${timeoutMs} ms`)), timeoutMs);
    worker.once('message', (message: WorkerMessage) => {
      clearTimeout(timer);
      resolve(message);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
