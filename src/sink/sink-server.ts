/**
 * The sink: the HTTP receiver the harness runs for what a messaging target sends back (deliveries,
 * callbacks, failure callbacks, waiter notifications, timeouts). It binds where told and advertises
 * the URL the target must call (a tunnel's, a CI runner's, with a path prefix or not). Each user opens
 * an inbox with a unique token that starts every URL it hands out, so requests are matched to their
 * inbox by path, never by timing. A conformance case's inbox (`open`, `conformance-inbox.ts`) keeps
 * every request with its body, arrival time and signature; a load scenario's (`openCounter`,
 * `counting-inbox.ts`) keeps nothing and hands on classified records in batches. A request for no open
 * inbox is a stray, and one for a closed inbox is late: both are counted, never dropped silently.
 *
 * Threads: with `threads: 0` everything runs on the calling thread. With N >= 1, N worker threads
 * (`sink-pool.ts`, `sink-thread.ts`) listen on one port and serve the counting inboxes, so the sink
 * keeps up with a load on the cores the caller does not use; conformance inboxes stay on the calling
 * thread (workers hand their requests over): a case's waits, answers and replay checks need all its
 * requests in one place, and a conformance run sends few.
 *
 * This module puts the parts together: the front that takes requests (`sink-front.ts`), the
 * conformance inboxes (`inbox-registry.ts`, with replay detection in `replay-watch.ts`), the counting
 * inboxes' listeners (`counter-listeners.ts`) and what the sink saw besides (`sink-log.ts`).
 */

import { type Inbox, newToken } from './conformance-inbox.ts';
import { CounterListeners } from './counter-listeners.ts';
import type { ClassifierSpec, CountedArrival, CountingInbox } from './counting-inbox.ts';
import { InboxRegistry } from './inbox-registry.ts';
import { ReplayWatch } from './replay-watch.ts';
import { listenOnThisThread, type SinkDesk, type SinkFront } from './sink-front.ts';
import { SinkLog } from './sink-log.ts';
import { inboxUrl, type SinkBase, sinkBase } from './sink-paths.ts';
import { startSinkPool } from './sink-pool.ts';
import type { StrayRequest } from './sink-request.ts';
import type { SigningKeys } from './sink-signature.ts';
import { type SignatureScheme, SignatureVerifier } from './sink-verifier.ts';

export {
  Inbox,
  type SinkAnswer,
  type SinkRequest,
  SinkTimeout,
} from './conformance-inbox.ts';
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

/** The URL the sink is reached at on this machine: a wildcard address is shown as loopback. */
function localUrlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** A counting inbox served by `front`, its batches handed to `counters`' listeners. */
function countingInbox<R>(
  front: SinkFront,
  counters: CounterListeners,
  base: SinkBase,
  label: string,
  classifier: ClassifierSpec,
): CountingInbox<R> {
  const token = newToken();
  counters.add(token, label);
  front.register(token, classifier);
  return {
    token,
    url: (role, rest) => inboxUrl(base, token, role, rest),
    onArrivals: (listener) => counters.listen(token, listener as (batch: readonly CountedArrival<unknown>[]) => void),
    flush: () => front.flush(token),
    close: () => front.close(token),
  };
}

export async function startSink(options: SinkOptions): Promise<Sink> {
  const host = options.host ?? '127.0.0.1';
  const threads = options.threads ?? 0;
  if (!Number.isInteger(threads) || threads < 0) throw new Error(`sink threads must be 0 or more, not ${threads}`);
  const frontOptions = {
    host,
    port: options.port ?? 0,
    signatureHeader: options.signatureHeader,
    scheme: options.scheme ?? 'jwt-hs256',
    maxBodyBytes: options.maxBodyBytes ?? 8 * 1024 * 1024,
  };
  const readKeys = shared(async () => options.keys().catch(() => undefined));
  const verifier = new SignatureVerifier(frontOptions.scheme, readKeys);
  const log = new SinkLog();
  // Known once the front listens; no request is matched and no inbox opened before.
  let base: SinkBase | undefined;
  const baseOf = () => base as SinkBase;
  const desk: SinkDesk = {
    base: baseOf,
    inboxes: new InboxRegistry({
      base: baseOf,
      signatureHeader: options.signatureHeader,
      replays: new ReplayWatch(verifier),
      log,
    }),
    counters: new CounterListeners(log),
    log,
  };
  const front =
    threads === 0
      ? await listenOnThisThread(frontOptions, desk, verifier)
      : await startSinkPool(threads, frontOptions, desk, readKeys);
  const localUrl = localUrlOf(host, front.port);
  const sinkUrl = sinkBase(options.publicUrl ?? localUrl);
  base = sinkUrl;
  // The threads learn the base URL once the port is known (before any inbox hands out a URL).
  front.announce(sinkUrl);
  return {
    url: sinkUrl.url,
    localUrl,
    threads,
    open: (label) => desk.inboxes.open(label),
    openCounter: (label, classifier) => countingInbox(front, desk.counters, sinkUrl, label, classifier),
    strays: () => log.strays,
    problems: () => log.problems,
    lastArrivalAt: () => log.lastArrivalAt,
    close: () => front.stop(),
  };
}
