/**
 * Runs area A's delivery loop (delivery-loop.ts): on a worker thread of its own when given `thread`
 * (what the reference service does), else in the calling thread. On its own thread the loop's work
 * (claims, HTTP attempts, signatures, outcome writes) runs beside the API's publishes instead of
 * taking turns with them on one event loop: at saturation the loop was about two thirds of the
 * reference's CPU (bench/messaging-throughput-compare.ts, profiled). The routes see one small
 * interface either way: `poke` when something became due, and `start`/`stop`.
 */
import { Worker } from 'node:worker_threads';
import { DeliveryLoop, type DeliveryLoopParts } from './delivery-loop.ts';
import type { DispatchWorkerInput, FromDispatchWorker, ToDispatchWorker } from './dispatch-messages.ts';

export interface DispatcherParts extends DeliveryLoopParts {
  /** Run the loop on a worker thread, which builds its own parts from these (and the parts' dialect, backoff and issuer). */
  readonly thread?: {
    readonly redisUrl: string;
    /** The fault switches turned on. */
    readonly faults: readonly string[];
  };
}

/** How long `stop` waits for the delivery thread to close its connections before ending it. */
const stopDeadlineMs = 10_000;

export class Dispatcher {
  readonly #parts: DispatcherParts;
  #loop: DeliveryLoop | undefined;
  #worker: Worker | undefined;

  constructor(parts: DispatcherParts) {
    this.#parts = parts;
  }

  async start(): Promise<void> {
    const { thread } = this.#parts;
    if (thread === undefined) {
      this.#loop = new DeliveryLoop(this.#parts);
      await this.#loop.start();
      return;
    }
    const input: DispatchWorkerInput = {
      redisUrl: thread.redisUrl,
      issuer: this.#parts.keys.issuer,
      dialect: this.#parts.dialect.name,
      faults: thread.faults,
      backoff: this.#parts.backoff,
    };
    const worker = new Worker(new URL('./dispatch-worker.ts', import.meta.url), { workerData: input });
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (message: FromDispatchWorker) => {
          if (message.type === 'started') resolve();
          else if (message.type === 'failed') reject(new Error(message.message));
        });
        worker.once('error', reject);
        worker.once('exit', (code) =>
          reject(new Error(`the delivery thread ended (exit code ${code}) before it started`)),
        );
      });
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    worker.removeAllListeners('error');
    worker.on('error', (error) => this.#parts.warn(`messaging: the delivery thread failed: ${error.message}`));
    // The thread never keeps the process alive: a process that ends leaves its attempts in inflight.
    worker.unref();
    this.#worker = worker;
    this.#parts.keys.onRotate((keys) => this.#send({ type: 'keys', keys }));
  }

  #send(message: ToDispatchWorker): void {
    this.#worker?.postMessage(message);
  }

  /** Something became due (a publish, a resume): look now instead of at the next tick. */
  poke(pumpQueues = false): void {
    this.#loop?.poke(pumpQueues);
    this.#send({ type: 'poke', pumpQueues });
  }

  /** Stops claiming; attempts in flight are abandoned (their messages stay in Redis for the next start). */
  async stop(): Promise<void> {
    await this.#loop?.stop();
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    const ended = new Promise<void>((resolve) => {
      worker.on('message', (message: FromDispatchWorker) => {
        if (message.type === 'stopped') resolve();
      });
      worker.once('exit', () => resolve());
    });
    worker.postMessage({ type: 'stop' } satisfies ToDispatchWorker);
    const timer = setTimeout(() => void worker.terminate(), stopDeadlineMs);
    await ended;
    clearTimeout(timer);
    await worker.terminate();
  }
}
