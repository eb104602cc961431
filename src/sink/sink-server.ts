/**
 * The sink: the HTTP receiver the harness runs for what a messaging target sends back (deliveries,
 * callbacks, failure callbacks, waiter notifications, timeouts). It binds where told and advertises
 * the URL the target must call (a tunnel's, a CI runner's, with a path prefix or not). Each user opens
 * an inbox with a unique token that starts every URL it hands out, so requests are matched to their
 * inbox by path, never by timing. A conformance case's inbox (`open`) keeps every request with its
 * body, arrival time and signature; a load scenario's (`openCounter`, `counting-inbox.ts`) keeps
 * nothing and hands on classified records in batches. A request for no open inbox is a stray, and one
 * for a closed inbox is late: both are counted, never dropped silently.
 *
 * Threads: with `threads: 0` everything runs on the calling thread. With N >= 1, N worker threads
 * (`sink-thread.ts`) listen on one port and serve the counting inboxes, so the sink keeps up with a
 * load on the cores the caller does not use; conformance inboxes stay on the calling thread (workers
 * hand their requests over): a case's waits, answers and replay checks need all its requests in one
 * place, and a conformance run sends few.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { Worker } from 'node:worker_threads';
import { sourceFile } from '../shared/source-files.ts';
import { type ClassifierSpec, type CountedArrival, CounterHost, type CountingInbox, nowMs } from './counting-inbox.ts';
import { inboxUrl, matchSinkPath, type SinkBase, type SinkPath, sinkBase } from './sink-paths.ts';
import { readRequest, type StrayRequest } from './sink-request.ts';
import type { SigningKeys } from './sink-signature.ts';
import type { ForwardedAnswer, ForwardedRequest, FromThread, ThreadInput, ToThread } from './sink-thread.ts';
import { type RequestSignature, type SignatureScheme, SignatureVerifier } from './sink-verifier.ts';

export type { ClassifiedRequest, Classifier, ClassifierSpec, CountedArrival, CountingInbox } from './counting-inbox.ts';
export type { StrayRequest } from './sink-request.ts';
export type { RequestSignature } from './sink-verifier.ts';

export interface SinkOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** The base URL the target must call, with a path prefix or not. @default http://<host>:<port> */
  readonly publicUrl?: string;
  /** The header carrying the signature (`Svc-Signature`, `Upstash-Signature`). */
  readonly signatureHeader: string;
  /** The target's signature scheme; `none` leaves every signature unchecked. @default 'jwt-hs256' */
  readonly scheme?: SignatureScheme;
  /** The target's signing keys; called again after a verification fails (keys may have rotated). */
  readonly keys: () => Promise<SigningKeys | undefined>;
  /** The most of one request body kept. @default 8 MiB */
  readonly maxBodyBytes?: number;
  /** Worker threads serving the counting inboxes; 0 runs everything on the calling thread. @default 0 */
  readonly threads?: number;
}

export interface SinkRequest {
  /** The role the inbox URL named: `dest`, `callback`, `failure`, … */
  readonly role: string;
  readonly method: string;
  /** The path after `/<token>/<role>`, with the query. */
  readonly rest: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Unix milliseconds of arrival. */
  readonly at: number;
  readonly signature: RequestSignature;
  /**
   * Where the same token (its `jti`) was presented first, when this request presents one again: a
   * re-send with the token it was signed with. Recorded, never refused: the spec shows no signature
   * scheme, and RFC 7519 makes `jti` optional, so a replay is an observation, not a failure.
   */
  readonly replayOf?: string;
  /** The status the sink answered. */
  readonly answered: number;
  /** The headers and body the sink answered with, to compare with what a callback reports. */
  readonly answeredWith: { readonly headers: Readonly<Record<string, string>>; readonly body: Buffer };
}

/** How the sink answers one role of an inbox. */
export interface SinkAnswer {
  /** @default 200 */
  readonly status?: number;
  /** Answer 500 to this many requests first. */
  readonly failFirst?: number;
  readonly body?: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering (a slow endpoint, for timeouts). */
  readonly delayMs?: number;
}

/** A token no one can guess: it starts every URL of one inbox. */
const newToken = (): string => randomBytes(9).toString('base64url');

/** What the sink answers when a role sets no body. */
const defaultAnswerBody = 'ok';

export class SinkTimeout extends Error {
  override readonly name = 'SinkTimeout';
}

export class Inbox {
  readonly token: string;
  readonly label: string;
  readonly #base: SinkBase;
  readonly #requests: SinkRequest[] = [];
  readonly #answers = new Map<string, SinkAnswer>();
  readonly #counts = new Map<string, number>();
  readonly #waiters = new Set<() => void>();
  #closed = false;

  constructor(base: SinkBase, label: string) {
    this.token = newToken();
    this.label = label;
    this.#base = base;
  }

  /** The URL to hand the target for `role` (letters, digits, `-`). */
  url(role: string, rest = ''): string {
    return inboxUrl(this.#base, this.token, role, rest);
  }

  answer(role: string, answer: SinkAnswer): void {
    this.#answers.set(role, answer);
  }

  /** Every request so far, or those of one role, in arrival order. */
  requests(role?: string): SinkRequest[] {
    return role === undefined ? [...this.#requests] : this.#requests.filter((item) => item.role === role);
  }

  /** Waits until `count` requests of `role` arrived; a SinkTimeout says how many did. */
  waitFor(role: string, count: number, timeoutMs: number, signal?: AbortSignal): Promise<SinkRequest[]> {
    return this.waitUntil(
      () => this.requests(role).length >= count,
      timeoutMs,
      () => {
        const got = this.requests(role).length;
        const seconds = Math.round(timeoutMs / 100) / 10;
        return count === 1 || got === 0
          ? `never arrived within ${seconds} s`
          : `${got} of ${count} arrived within ${seconds} s`;
      },
      signal,
    ).then(() => this.requests(role));
  }

  /**
   * Waits until `done()` holds, checked at once and after every request; `evidence()`, checked at the
   * same moments, ends the wait early with the error it gives (a request that already decides the
   * case). A timeout rejects with a SinkTimeout saying `shortfall()`.
   */
  waitUntil(
    done: () => boolean,
    timeoutMs: number,
    shortfall: () => string,
    signal?: AbortSignal,
    evidence: () => Error | undefined = () => undefined,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        let early: Error | undefined;
        try {
          early = evidence();
        } catch (error) {
          early = error instanceof Error ? error : new Error(String(error));
        }
        if (early !== undefined) finish(early);
        else if (done()) finish();
      };
      const onAbort = () => finish(new SinkTimeout('the case ended while waiting'));
      const timer = setTimeout(() => finish(new SinkTimeout(shortfall())), timeoutMs);
      this.#waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  /** Checks the pending waits again (a condition outside the inbox changed). */
  recheck(): void {
    for (const wake of this.#waiters) wake();
  }

  /** Waits `ms` so that requests that should not come have had their chance. */
  async settle(ms: number, signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** One line per request, for a case's details: role, method, status answered, signature, time. */
  describe(started: number): string[] {
    return this.#requests.map(
      (item) =>
        `sink: ${item.method} ${item.role}${item.rest} → ${item.answered} at +${item.at - started} ms, signature ${
          item.signature.ok === true
            ? `ok (${item.signature.key} key)`
            : item.signature.ok === false
              ? item.signature.problem
              : `not checked (${item.signature.reason})`
        }${item.replayOf === undefined ? '' : ` (its token was presented before, on ${item.replayOf})`}`,
    );
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  /** Called by the server: records the request and picks the status to answer. */
  receive(request: Omit<SinkRequest, 'answered' | 'answeredWith'>): { status: number; answer: SinkAnswer } {
    const answer = this.#answers.get(request.role) ?? {};
    const seen = (this.#counts.get(request.role) ?? 0) + 1;
    this.#counts.set(request.role, seen);
    const status = seen <= (answer.failFirst ?? 0) ? 500 : (answer.status ?? 200);
    const answeredWith = { headers: { ...answer.headers }, body: Buffer.from(answer.body ?? defaultAnswerBody) };
    this.#requests.push({ ...request, answered: status, answeredWith });
    for (const wake of this.#waiters) wake();
    return { status, answer };
  }
}

export interface Sink {
  /** The advertised base URL (with its path prefix, if any; no trailing `/`). */
  readonly url: string;
  /** Where it listens, which differs from `url` behind a tunnel or proxy. */
  readonly localUrl: string;
  /** Worker threads serving the counting inboxes; 0: all on the calling thread. */
  readonly threads: number;
  /** Opens a conformance inbox (every request kept, with its body); `label` names its user in stray reports. */
  open(label: string): Inbox;
  /** Load's inbox: keeps no bodies; each request is classified where it arrives and handed on in batches. */
  openCounter<R>(label: string, classifier: ClassifierSpec): CountingInbox<R>;
  /** Requests that matched no open inbox. */
  strays(): readonly StrayRequest[];
  /** What went wrong on the sink's side (a classifier that did not load or threw, a thread that failed), each once. */
  problems(): readonly string[];
  /** Unix milliseconds of the last request of any kind (inbox, stray or late); 0 before the first. */
  lastArrivalAt(): number;
  close(): Promise<void>;
}

/** How the sink answers one request. */
interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  readonly delayMs?: number;
}

const noInbox: Reply = { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no inbox' };

function send(res: ServerResponse, reply: Reply): void {
  const write = () => {
    if (res.destroyed) return;
    // Status and headers set, not written: `end` then sends head and body in one write.
    res.statusCode = reply.status;
    for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
    res.end(reply.body);
  };
  if (reply.delayMs) setTimeout(write, reply.delayMs).unref();
  else write();
}

/** Calls of `read` made while one is under way share it (many failures at once ask the target once). */
function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined;
  return () => {
    current ??= read().finally(() => {
      current = undefined;
    });
    return current;
  };
}

interface CounterEntry {
  readonly label: string;
  readonly listeners: Array<(batch: readonly CountedArrival<unknown>[]) => void>;
  /** Batches that came before the first listener. */
  held: CountedArrival<unknown>[][];
}

export async function startSink(options: SinkOptions): Promise<Sink> {
  const host = options.host ?? '127.0.0.1';
  const maxBody = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const threads = options.threads ?? 0;
  if (!Number.isInteger(threads) || threads < 0) throw new Error(`sink threads must be 0 or more, not ${threads}`);
  const scheme = options.scheme ?? 'jwt-hs256';
  const inboxes = new Map<string, Inbox>();
  const counters = new Map<string, CounterEntry>();
  const strays: StrayRequest[] = [];
  const problems: string[] = [];
  let lastArrivalAt = 0;
  let base: SinkBase | undefined;
  const readKeys = shared(async () => options.keys().catch(() => undefined));
  const verifier = new SignatureVerifier(scheme, readKeys);
  /** Token ids already presented to conformance inboxes, each with the first request's path: a second use is recorded. */
  const seenIds = new Map<string, string>();

  const arrived = (at: number) => {
    lastArrivalAt = Math.max(lastArrivalAt, Math.floor(at));
  };
  const problem = (line: string) => {
    if (!problems.includes(line)) problems.push(line);
  };
  const stray = (item: StrayRequest) => {
    arrived(item.at);
    strays.push(item);
  };
  const deliver = (token: string, batch: CountedArrival<unknown>[]) => {
    const last = batch[batch.length - 1];
    if (last !== undefined) arrived(last.at);
    const entry = counters.get(token);
    if (entry === undefined) return;
    if (entry.listeners.length === 0) entry.held.push(batch);
    for (const listener of entry.listeners) listener(batch);
  };

  /**
   * The signature's verdict, and where its token was presented first when it was before. A token
   * presented again (a retry re-sent with the first attempt's token) is not refused: the spec shows no
   * scheme and `jti` is optional in RFC 7519, so whether a token may serve an identical re-send is the
   * implementation's; the sink records it for the case's details.
   */
  const verifyOnce = async (
    match: SinkPath,
    signature: string | undefined,
    body: Uint8Array,
  ): Promise<{ readonly signature: RequestSignature; readonly replayOf?: string }> => {
    const verdict = await verifier.verify(signature, match.publicUrl, body);
    if (verdict.jti === undefined) return { signature: verdict.signature };
    const first = seenIds.get(verdict.jti);
    if (first !== undefined) return { signature: verdict.signature, replayOf: first };
    seenIds.set(verdict.jti, `${match.role}${match.rest.split('?')[0]}`);
    return { signature: verdict.signature };
  };

  /** A request for a conformance inbox, or for none: answered on this thread. */
  const answerInbox = async (
    path: string,
    method: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
    at: number,
  ): Promise<Reply> => {
    const match = matchSinkPath(path, base as SinkBase);
    const inbox = match === undefined ? undefined : inboxes.get(match.token);
    if (match === undefined || inbox === undefined || inbox.closed) {
      stray({ path: path.slice(0, 200), method, at: Math.floor(at), kind: inbox ? 'late' : 'stray' });
      return noInbox;
    }
    arrived(at);
    const header = headers[options.signatureHeader.toLowerCase()];
    const { signature, replayOf } = await verifyOnce(match, Array.isArray(header) ? header[0] : header, body);
    const { status, answer } = inbox.receive({
      role: match.role,
      method,
      rest: match.rest,
      headers,
      body,
      at: Math.floor(at),
      signature,
      ...(replayOf !== undefined && { replayOf }),
    });
    return {
      status,
      headers: { ...answer.headers },
      body: answer.body ?? defaultAnswerBody,
      ...(answer.delayMs !== undefined && { delayMs: answer.delayMs }),
    };
  };

  let server: Server | undefined;
  let local: CounterHost | undefined;
  const workers: Worker[] = [];
  let port = options.port ?? 0;
  let nextId = 0;
  /** Flushes under way, each with the threads that have yet to answer it. */
  const flushes = new Map<number, { readonly waiting: Set<Worker>; readonly done: () => void }>();
  /** A thread answered a flush, or ended (it has nothing more to hand on): no flush waits for it. */
  const flushedBy = (worker: Worker, id?: number) => {
    for (const [key, flush] of flushes) {
      if (id !== undefined && key !== id) continue;
      flush.waiting.delete(worker);
      if (flush.waiting.size === 0) {
        flushes.delete(key);
        flush.done();
      }
    }
  };
  const running = new Set<Worker>();
  let closing = false;
  const stopped = new Map<Worker, () => void>();

  if (threads === 0) {
    const counting = new CounterHost({
      signatureHeader: options.signatureHeader,
      verifier,
      emit: deliver,
      problem,
    });
    local = counting;
    server = createServer((req, res) => {
      readRequest(req, maxBody, (body) => {
        const at = nowMs();
        const path = req.url ?? '/';
        const method = req.method ?? '';
        const match = matchSinkPath(path, base as SinkBase);
        const state = match === undefined ? undefined : counting.state(match.token);
        if (match !== undefined && state === 'open') {
          const status = counting.receive({ ...match, method, headers: req.headers, body, at });
          if (typeof status === 'number') {
            res.statusCode = status;
            res.end(defaultAnswerBody);
          } else {
            status.then(
              (later) => send(res, { status: later, headers: {}, body: defaultAnswerBody }),
              () => send(res, { status: 500, headers: {}, body: '' }),
            );
          }
          return;
        }
        const replied =
          state === 'closed'
            ? Promise.resolve(noInbox).finally(() =>
                stray({ path: path.slice(0, 200), method, at: Math.floor(at), kind: 'late' }),
              )
            : answerInbox(path, method, req.headers, body, at);
        replied.then(
          (reply) => send(res, reply),
          () => send(res, { status: 500, headers: {}, body: '' }),
        );
      });
    });
    server.keepAliveTimeout = 5000;
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, host, () => resolve());
    });
    port = (listening.address() as { port: number }).port;
  } else {
    const onMessage = (worker: Worker, message: FromThread) => {
      const post = (reply: ToThread) => worker.postMessage(reply);
      switch (message.type) {
        case 'keys?':
          void readKeys().then((keys) => post({ type: 'keys', id: message.id, keys }));
          break;
        case 'batch':
          deliver(message.token, message.batch);
          break;
        case 'flushed':
          flushedBy(worker, message.id);
          break;
        case 'stray':
          stray(message.stray);
          break;
        case 'problem':
          problem(message.line);
          break;
        case 'request': {
          const { path, method, headers, body, at } = message.request satisfies ForwardedRequest;
          const match = matchSinkPath(path, base as SinkBase);
          if (match !== undefined && counters.has(match.token)) {
            post({ type: 'answer', id: message.id, answer: { counter: true } });
            break;
          }
          const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
          answerInbox(path, method, headers, bytes, at).then(
            (reply) => post({ type: 'answer', id: message.id, answer: reply satisfies ForwardedAnswer }),
            () => post({ type: 'answer', id: message.id, answer: { status: 500, headers: {}, body: '' } }),
          );
          break;
        }
        case 'stopped':
          stopped.get(worker)?.();
          break;
        default:
          break;
      }
    };
    const spawn = (bindPort: number) =>
      new Promise<number>((resolve, reject) => {
        const input: ThreadInput = {
          host,
          port: bindPort,
          signatureHeader: options.signatureHeader,
          scheme,
          maxBodyBytes: maxBody,
        };
        const worker = new Worker(new URL(sourceFile('./sink-thread'), import.meta.url), { workerData: input });
        workers.push(worker);
        worker.on('message', (message: FromThread) => {
          if (message.type === 'listening') {
            running.add(worker);
            resolve(message.port);
          } else if (message.type === 'failed') {
            const hint = message.message.includes('EADDRINUSE')
              ? ' (sink threads share one port through SO_REUSEPORT: Node >= 22.12 on Linux, and no other program on it)'
              : '';
            reject(new Error(`the sink could not listen: ${message.message}${hint}`));
          } else onMessage(worker, message);
        });
        worker.on('error', (error) => {
          problem(`a sink thread failed: ${error.message}`);
          reject(error);
        });
        worker.on('exit', (code) => {
          if (running.has(worker) && !closing) problem(`a sink thread ended (exit code ${code}) while the sink ran`);
          running.delete(worker);
          stopped.get(worker)?.();
          flushedBy(worker);
          reject(new Error('a sink thread ended before it listened'));
        });
      });
    try {
      // The first thread picks the port (when asked for any); the others bind the same one.
      port = await spawn(port);
      await Promise.all(Array.from({ length: threads - 1 }, () => spawn(port)));
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
  }

  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const localUrl = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  base = sinkBase(options.publicUrl ?? localUrl);
  const sinkUrl = base;
  const toThreads = (message: ToThread) => {
    for (const worker of workers) worker.postMessage(message);
  };
  // The threads learn the base URL once the port is known (before any inbox hands out a URL).
  toThreads({ type: 'base', url: sinkUrl.url });

  return {
    url: sinkUrl.url,
    localUrl,
    threads,
    open(label) {
      const inbox = new Inbox(sinkUrl, label);
      inboxes.set(inbox.token, inbox);
      return inbox;
    },
    openCounter<R>(label: string, classifier: ClassifierSpec): CountingInbox<R> {
      const token = newToken();
      const entry: CounterEntry = { label, listeners: [], held: [] };
      counters.set(token, entry);
      if (local !== undefined) local.register(token, classifier);
      else toThreads({ type: 'register', token, classifier });
      return {
        token,
        url: (role, rest) => inboxUrl(sinkUrl, token, role, rest),
        onArrivals(listener) {
          const typed = listener as (batch: readonly CountedArrival<unknown>[]) => void;
          entry.listeners.push(typed);
          const held = entry.held;
          entry.held = [];
          for (const batch of held) typed(batch);
        },
        flush() {
          if (local !== undefined) return local.flush(token);
          const id = nextId++;
          return new Promise<void>((resolve) => {
            if (running.size === 0) {
              resolve();
              return;
            }
            flushes.set(id, { waiting: new Set(running), done: resolve });
            toThreads({ type: 'flush', token, id });
          });
        },
        close() {
          if (local !== undefined) local.close(token);
          else toThreads({ type: 'close', token });
        },
      };
    },
    strays: () => strays,
    problems: () => problems,
    lastArrivalAt: () => lastArrivalAt,
    async close() {
      closing = true;
      local?.stop();
      if (server !== undefined) {
        const listening = server;
        await new Promise<void>((resolve) => {
          listening.closeAllConnections();
          listening.close(() => resolve());
        });
      }
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(() => void worker.terminate().then(() => resolve()), 2000);
              stopped.set(worker, () => {
                clearTimeout(timer);
                resolve();
              });
              worker.postMessage({ type: 'stop' } satisfies ToThread);
            }),
        ),
      );
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
