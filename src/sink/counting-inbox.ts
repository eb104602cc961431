/**
 * Load's inboxes: a counting inbox keeps no bodies. Each request is classified where it arrives (on
 * the thread that read it) by the scenario's classifier, answered with the status the classifier
 * picks, and handed on as a small record in batches (every 50 ms or 500 arrivals), in arrival order
 * per thread. The receiver of the batches does the accounting (expected, lost, duplicated, replays by
 * `jti` across threads, latency from `at`). `CounterHost` is that work on one thread: the main
 * thread's when the sink runs there, each worker's otherwise.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Verdict } from './sink-verifier.ts';

/** What the scenario's classifier module gives: it is imported in each sink thread. */
export interface ClassifierSpec {
  /** A file URL of a module exporting `createClassifier(data)`. */
  readonly module: string;
  /** Handed to `createClassifier` (structured-cloned to each thread). */
  readonly data: unknown;
}

/** One request as a classifier reads it. */
export interface ClassifiedRequest {
  readonly role: string;
  /** The path after `/<token>/<role>`, with the query. */
  readonly rest: string;
  readonly method: string;
  /** Names in lower case, the first value of each. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as UTF-8 text. */
  readonly body: string;
}

export interface Classifier<R = unknown> {
  /** The status to answer a request of `role` with. */
  answer(role: string, rest: string): number;
  /** What the request is; undefined when it is none of the scenario's. */
  classify(arrival: ClassifiedRequest): R | undefined;
}

export interface CountedArrival<R> {
  /** What the classifier's `classify` returned (undefined: not the scenario's). */
  readonly record: R | undefined;
  readonly role: string;
  /** Unix milliseconds, fractional (performance.timeOrigin + performance.now()), when the request ended. */
  readonly at: number;
  readonly signature: 'ok' | 'failed' | 'unchecked';
  /** Why a signature failed. */
  readonly problem?: string;
  /** The verified token's id, for replay checks across threads (done by the receiver of the batches). */
  readonly jti?: string;
}

export interface CountingInbox<R> {
  readonly token: string;
  url(role: string, rest?: string): string;
  /** Batches of arrivals, in arrival order per thread; batches from before the first listener are kept for it. */
  onArrivals(listener: (batch: readonly CountedArrival<R>[]) => void): void;
  /** Resolves once every thread has handed on everything that arrived before the call. */
  flush(): Promise<void>;
  /** Requests after this are counted as late (as for a closed conformance inbox). */
  close(): void;
}

/** One request that reached a counting inbox, as the server read it. */
export interface CounterRequest {
  readonly token: string;
  readonly role: string;
  readonly rest: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly at: number;
  /** The URL the target was handed (a signature's `sub`). */
  readonly publicUrl: string;
}

export const batchMs = 50;
export const batchSize = 500;

/** Unix milliseconds, fractional, the same on every thread. */
export const nowMs = (): number => performance.timeOrigin + performance.now();

interface ClassifierModule {
  createClassifier?: (data: unknown) => Classifier;
}

const modules = new Map<string, Promise<ClassifierModule>>();

/** Imports the classifier module (once per thread) and builds the classifier for `data`. */
export async function loadClassifier(spec: ClassifierSpec): Promise<Classifier> {
  let module = modules.get(spec.module);
  if (module === undefined) {
    module = import(spec.module) as Promise<ClassifierModule>;
    modules.set(spec.module, module);
  }
  const { createClassifier } = await module;
  if (typeof createClassifier !== 'function') {
    throw new Error(`the sink classifier ${spec.module} exports no createClassifier function`);
  }
  return createClassifier(spec.data);
}

function firstValues(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = first;
  }
  return out;
}

/**
 * Arrivals of one inbox on one thread in arrival order: a slot is taken when a request ends and
 * filled once it is verified and classified; batches hand on the filled prefix, so order holds.
 */
class ArrivalQueue {
  readonly #slots: Array<CountedArrival<unknown> | undefined> = [];
  /** Slots taken since the start, and handed on since the start. */
  #taken = 0;
  #handed = 0;
  /** How many slots from the front are filled (kept as slots fill, not counted again each time). */
  #ready = 0;
  readonly #flushes: Array<{ readonly upTo: number; readonly done: () => void }> = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #emit: (batch: CountedArrival<unknown>[]) => void;

  constructor(emit: (batch: CountedArrival<unknown>[]) => void) {
    this.#emit = emit;
  }

  take(): number {
    this.#slots.push(undefined);
    return this.#taken++;
  }

  fill(slot: number, arrival: CountedArrival<unknown>): void {
    this.#slots[slot - this.#handed] = arrival;
    while (this.#ready < this.#slots.length && this.#slots[this.#ready] !== undefined) this.#ready += 1;
    const ready = this.#ready;
    if (ready >= batchSize) this.#handOn();
    else if (ready > 0 && this.#timer === undefined) this.#timer = setTimeout(() => this.#handOn(), batchMs);
    this.#settleFlushes();
  }

  /** Resolves once every slot taken before the call was handed on. */
  flush(): Promise<void> {
    const upTo = this.#taken;
    return new Promise((resolve) => {
      this.#flushes.push({ upTo, done: resolve });
      this.#settleFlushes();
    });
  }

  #handOn(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const ready = this.#ready;
    if (ready === 0) return;
    const batch = this.#slots.splice(0, ready) as CountedArrival<unknown>[];
    this.#handed += ready;
    this.#ready = 0;
    // What follows the batch is not filled yet (else it would have been in it): its fill starts a timer.
    this.#emit(batch);
  }

  #settleFlushes(): void {
    if (this.#flushes.length === 0) return;
    const upTo = Math.max(...this.#flushes.map((item) => item.upTo));
    if (this.#handed + this.#ready >= upTo) this.#handOn();
    for (let index = this.#flushes.length - 1; index >= 0; index -= 1) {
      const waiting = this.#flushes[index] as { readonly upTo: number; readonly done: () => void };
      if (this.#handed >= waiting.upTo) {
        this.#flushes.splice(index, 1);
        waiting.done();
      }
    }
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

interface Counter {
  readonly classifier: Promise<Classifier | undefined>;
  /** The classifier once its module loaded (null: it did not), for answering without waiting. */
  loaded: Classifier | null | undefined;
  readonly queue: ArrivalQueue;
  closed: boolean;
}

/** What judges a signature: now when it can (`verifyNow`, else undefined), else after waiting. */
export interface CounterVerifier {
  verifyNow(signature: string | undefined, url: string, body: Uint8Array): Verdict | undefined;
  verify(signature: string | undefined, url: string, body: Uint8Array): Promise<Verdict>;
}

/** The counting inboxes of one thread. */
export class CounterHost {
  readonly #counters = new Map<string, Counter>();
  readonly #verifier: CounterVerifier;
  readonly #signatureHeader: string;
  readonly #emit: (token: string, batch: CountedArrival<unknown>[]) => void;
  readonly #problem: (line: string) => void;

  constructor(options: {
    readonly signatureHeader: string;
    readonly verifier: CounterVerifier;
    readonly emit: (token: string, batch: CountedArrival<unknown>[]) => void;
    /** A classifier that does not load or throws: said once per inbox, never a crash. */
    readonly problem: (line: string) => void;
  }) {
    this.#verifier = options.verifier;
    this.#signatureHeader = options.signatureHeader.toLowerCase();
    this.#emit = options.emit;
    const said = new Set<string>();
    this.#problem = (line) => {
      if (said.has(line)) return;
      said.add(line);
      options.problem(line);
    };
  }

  register(token: string, spec: ClassifierSpec): void {
    const classifier = loadClassifier(spec).catch((error: unknown) => {
      this.#problem(
        `the sink could not load its classifier: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    });
    const counter: Counter = {
      classifier,
      loaded: undefined,
      queue: new ArrivalQueue((batch) => this.#emit(token, batch)),
      closed: false,
    };
    void classifier.then((loaded) => {
      counter.loaded = loaded ?? null;
    });
    this.#counters.set(token, counter);
  }

  /** `open`: a counting inbox takes it; `closed`: its inbox was closed (a late request); else none of these. */
  state(token: string): 'open' | 'closed' | undefined {
    const counter = this.#counters.get(token);
    return counter === undefined ? undefined : counter.closed ? 'closed' : 'open';
  }

  close(token: string): void {
    const counter = this.#counters.get(token);
    if (counter === undefined) return;
    // What arrived before still goes out with the next batch or flush.
    counter.closed = true;
  }

  /**
   * Takes the request's place in its inbox's order and gives the status to answer: at once when the
   * classifier is loaded and the signature is decided now (the common case, answered in the request's
   * own tick), else a promise of it.
   */
  receive(request: CounterRequest): number | Promise<number> {
    const counter = this.#counters.get(request.token) as Counter;
    const slot = counter.queue.take();
    const header = request.headers[this.#signatureHeader];
    const signature = Array.isArray(header) ? header[0] : header;
    if (counter.loaded !== undefined) {
      const verdict = this.#verifier.verifyNow(signature, request.publicUrl, request.body);
      if (verdict !== undefined) return this.#classify(counter, slot, request, counter.loaded ?? undefined, verdict);
    }
    return Promise.all([counter.classifier, this.#verifier.verify(signature, request.publicUrl, request.body)]).then(
      ([classifier, verdict]) => this.#classify(counter, slot, request, classifier, verdict),
    );
  }

  /** Classifies a verified request into its slot; the status to answer. */
  #classify(
    counter: Counter,
    slot: number,
    request: CounterRequest,
    classifier: Classifier | undefined,
    verdict: Verdict,
  ): number {
    let record: unknown;
    let status = 200;
    try {
      status = classifier?.answer(request.role, request.rest) ?? 200;
      record = classifier?.classify({
        role: request.role,
        rest: request.rest,
        method: request.method,
        headers: firstValues(request.headers),
        body: request.body.toString('utf8'),
      });
    } catch (error) {
      this.#problem(`the sink's classifier failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const signature = verdict.signature;
    counter.queue.fill(slot, {
      record,
      role: request.role,
      at: request.at,
      signature: signature.ok === true ? 'ok' : signature.ok === false ? 'failed' : 'unchecked',
      ...(signature.ok === false && { problem: signature.problem }),
      ...(verdict.jti !== undefined && { jti: verdict.jti }),
    });
    return status;
  }

  flush(token: string): Promise<void> {
    return this.#counters.get(token)?.queue.flush() ?? Promise.resolve();
  }

  stop(): void {
    for (const counter of this.#counters.values()) counter.queue.stop();
  }
}
