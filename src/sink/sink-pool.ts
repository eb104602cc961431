/**
 * The sink's front with threads: N workers (`sink-thread.ts`) listening on one port (SO_REUSEPORT, the
 * kernel spreads connections over them), each serving the counting inboxes itself and forwarding any
 * other request to the calling thread, which answers it from its conformance inboxes. This module is
 * the calling thread's side of that conversation: it starts and stops the threads, reads the signing
 * keys for them, takes their batches, strays and problems, and runs the flush protocol.
 */
import { Worker } from 'node:worker_threads';
import { sourceFile } from '../shared/source-files.ts';
import type { ClassifierSpec } from './counting-inbox.ts';
import { FlushProtocol } from './flush-protocol.ts';
import type { FrontOptions, SinkDesk, SinkFront } from './sink-front.ts';
import { matchSinkPath, type SinkBase } from './sink-paths.ts';
import { failedReply } from './sink-reply.ts';
import type { SigningKeys } from './sink-signature.ts';
import type { ForwardedAnswer, ForwardedRequest, FromThread, ThreadInput, ToThread } from './sink-thread.ts';

/** How long a thread asked to stop may take before it is terminated. */
const stopGraceMs = 2000;

class SinkPool implements SinkFront {
  #port = 0;
  readonly #options: FrontOptions;
  readonly #desk: SinkDesk;
  readonly #readKeys: () => Promise<SigningKeys | undefined>;
  readonly #workers: Worker[] = [];
  /** Threads that listen and have not ended: those a flush waits for. */
  readonly #running = new Set<Worker>();
  /** Threads asked to stop, each with what to call once it said it stopped (or ended). */
  readonly #stopped = new Map<Worker, () => void>();
  readonly #flushes = new FlushProtocol<Worker>();
  #closing = false;

  constructor(options: FrontOptions, desk: SinkDesk, readKeys: () => Promise<SigningKeys | undefined>) {
    this.#options = options;
    this.#desk = desk;
    this.#readKeys = readKeys;
  }

  get port(): number {
    return this.#port;
  }

  /** Starts `count` threads: the first picks the port (when asked for any), the others bind the same one. */
  async start(count: number): Promise<void> {
    try {
      this.#port = await this.#spawn(this.#options.port);
      await Promise.all(Array.from({ length: count - 1 }, () => this.#spawn(this.#port)));
    } catch (error) {
      await Promise.all(this.#workers.map((worker) => worker.terminate()));
      throw error;
    }
  }

  announce(base: SinkBase): void {
    this.#post({ type: 'base', url: base.url });
  }

  register(token: string, classifier: ClassifierSpec): void {
    this.#post({ type: 'register', token, classifier });
  }

  flush(token: string): Promise<void> {
    return this.#flushes.flush(this.#running, (id) => this.#post({ type: 'flush', token, id }));
  }

  close(token: string): void {
    this.#post({ type: 'close', token });
  }

  async stop(): Promise<void> {
    this.#closing = true;
    await Promise.all(
      this.#workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => void worker.terminate().then(() => resolve()), stopGraceMs);
            this.#stopped.set(worker, () => {
              clearTimeout(timer);
              resolve();
            });
            worker.postMessage({ type: 'stop' } satisfies ToThread);
          }),
      ),
    );
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  #post(message: ToThread): void {
    for (const worker of this.#workers) worker.postMessage(message);
  }

  /** One thread, bound to `bindPort`; resolves with the port it listens on. */
  #spawn(bindPort: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const { host, signatureHeader, scheme, maxBodyBytes } = this.#options;
      const input: ThreadInput = { host, port: bindPort, signatureHeader, scheme, maxBodyBytes };
      const worker = new Worker(new URL(sourceFile('./sink-thread'), import.meta.url), { workerData: input });
      this.#workers.push(worker);
      worker.on('message', (message: FromThread) => {
        if (message.type === 'listening') {
          this.#running.add(worker);
          resolve(message.port);
        } else if (message.type === 'failed') {
          const hint = message.message.includes('EADDRINUSE')
            ? ' (sink threads share one port through SO_REUSEPORT: Node >= 22.12 on Linux, and no other program on it)'
            : '';
          reject(new Error(`the sink could not listen: ${message.message}${hint}`));
        } else this.#receive(worker, message);
      });
      worker.on('error', (error) => {
        this.#desk.log.problem(`a sink thread failed: ${error.message}`);
        reject(error);
      });
      worker.on('exit', (code) => {
        if (this.#running.has(worker) && !this.#closing) {
          this.#desk.log.problem(`a sink thread ended (exit code ${code}) while the sink ran`);
        }
        this.#running.delete(worker);
        this.#stopped.get(worker)?.();
        this.#flushes.answered(worker);
        reject(new Error('a sink thread ended before it listened'));
      });
    });
  }

  /** A message of a running thread. */
  #receive(worker: Worker, message: FromThread): void {
    const post = (reply: ToThread) => worker.postMessage(reply);
    switch (message.type) {
      case 'keys?':
        void this.#readKeys().then((keys) => post({ type: 'keys', id: message.id, keys }));
        break;
      case 'batch':
        this.#desk.counters.deliver(message.token, message.batch);
        break;
      case 'flushed':
        this.#flushes.answered(worker, message.id);
        break;
      case 'stray':
        this.#desk.log.stray(message.stray);
        break;
      case 'problem':
        this.#desk.log.problem(message.line);
        break;
      case 'request':
        this.#answer(message.request, (answer) => post({ type: 'answer', id: message.id, answer }));
        break;
      case 'stopped':
        this.#stopped.get(worker)?.();
        break;
      default:
        break;
    }
  }

  /** A request a thread forwarded: a counting inbox's after all (registered since), or the desk's. */
  #answer(request: ForwardedRequest, reply: (answer: ForwardedAnswer) => void): void {
    const { path, method, headers, body, at } = request;
    const match = matchSinkPath(path, this.#desk.base());
    if (match !== undefined && this.#desk.counters.has(match.token)) {
      reply({ counter: true });
      return;
    }
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    this.#desk.inboxes.answer({ path, method, headers, body: bytes, at }).then(
      (answer) => reply(answer),
      () => reply(failedReply),
    );
  }
}

/** The front with `threads` ≥ 1 sink threads, all listening. */
export async function startSinkPool(
  threads: number,
  options: FrontOptions,
  desk: SinkDesk,
  readKeys: () => Promise<SigningKeys | undefined>,
): Promise<SinkFront> {
  const pool = new SinkPool(options, desk, readKeys);
  await pool.start(threads);
  return pool;
}
