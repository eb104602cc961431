/**
 * The node engine's two ways to send a request, behind one interface so the open and closed models
 * do not know which they drive: `net`, pre-encoded requests on raw sockets read by http-parser-js
 * (the default, for cost), and `undici`, undici's dispatch API (the `node-undici` engine, the path
 * the harness trusts for correctness). `test/engines/load/transport-equal.test.ts` holds them to the
 * same answers against the same servers. Each ends a request exactly once, by calling the listener
 * with the context it was sent with: no closure or promise per request on the `net` path.
 */
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { AnswerMemory } from '../../http/answer-memory.ts';
import { loadDispatcher, tlsOptions } from '../../http/http-client.ts';
import { type ExchangeResult, exchange } from './exchange.ts';
import type { LoadTarget } from './load-target.ts';
import { type AnswerListener, answerBudgetBytes, SocketPool } from './net/socket-pool.ts';
import { WireEncoder } from './net/wire-request.ts';

export type ClientName = 'net' | 'undici';

/** What a transport sends: a scenario request's method, path (below the base URL), body, and its headers. */
export interface OutgoingRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
}

export interface Transport<Context> {
  /** False when `connections` requests are in flight already (the request is not sent). */
  send(request: OutgoingRequest, headers: Readonly<Record<string, string>>, context: Context): boolean;
  readonly inFlight: number;
  /**
   * Answers that paused for the answer budget (AnswerMemory): time the harness added to their latency,
   * reported as the counter `answers_waited_for_memory` (answerWaitCounter).
   */
  readonly memoryWaits: number;
  /**
   * Waits until nothing is in flight (true), or `ms` has passed (false). A drain that runs out ends the
   * delivery of answers: what is still in flight then is the caller's to count as cut short, and no
   * answer of it reaches the listener afterwards.
   */
  drain(ms: number): Promise<boolean>;
  /** Ends what is in flight (as reset, never told to the listener) and closes the connections. */
  close(): Promise<void>;
}

/** A transport before `drain`: what each client gives. */
type BaseTransport<Context> = Omit<Transport<Context>, 'drain'>;

/** The counter a scenario's report shows when answers waited for the answer budget. */
export const answerWaitCounter = 'answers_waited_for_memory';

export interface TransportOptions {
  readonly connections: number;
  readonly timeoutMs: number;
}

export function openTransport<Context>(
  client: ClientName,
  target: LoadTarget,
  options: TransportOptions,
  listener: AnswerListener<Context>,
): Transport<Context> {
  let delivering = true;
  let idle: (() => void) | undefined;
  // Both clients count a request out of `inFlight` before they tell the listener, so the count is
  // final when the listener (which may send the next request) returns.
  const told: AnswerListener<Context> = (context, result) => {
    if (!delivering) return;
    listener(context, result);
    if (idle !== undefined && base.inFlight === 0) idle();
  };
  const base: BaseTransport<Context> =
    client === 'net' ? socketTransport(target, options, told) : undiciTransport(target, options, told);
  return {
    send: (request, headers, context) => base.send(request, headers, context),
    get inFlight() {
      return base.inFlight;
    },
    get memoryWaits() {
      return base.memoryWaits;
    },
    drain: (ms) =>
      new Promise<boolean>((resolve) => {
        if (base.inFlight === 0) return resolve(true);
        const timer = setTimeout(() => {
          idle = undefined;
          delivering = false;
          resolve(false);
        }, ms).unref();
        idle = () => {
          clearTimeout(timer);
          idle = undefined;
          resolve(true);
        };
      }),
    close: () => {
      delivering = false;
      return base.close();
    },
  };
}

function socketTransport<Context>(
  target: LoadTarget,
  options: TransportOptions,
  listener: AnswerListener<Context>,
): BaseTransport<Context> {
  const url = new URL(target.baseUrl);
  const pool = new SocketPool<Context>(
    {
      origin: url,
      connections: options.connections,
      timeoutMs: options.timeoutMs,
      maxAnswerBytes: target.maxAnswerBytes,
      ...(url.protocol === 'https:' && { tls: tlsOptions(target.tls) }),
    },
    listener,
  );
  const encoder = new WireEncoder(url.host, url.pathname.replace(/\/+$/, ''));
  return {
    send: (request, headers, context) => {
      let payload: string;
      try {
        payload = encoder.encode(request.method, request.path, headers, request.body);
      } catch (error) {
        // A header HTTP cannot carry ends this request as an error, later, as undici's dispatch ends it:
        // never synchronously, which would recurse in the closed model.
        setImmediate(() => listener(context, { kind: 'error', error: error as Error, end: performance.now() }));
        return true;
      }
      return pool.send(payload, context);
    },
    get inFlight() {
      return pool.inFlight;
    },
    get memoryWaits() {
      return pool.memory.waits;
    },
    close: async () => pool.close(),
  };
}

function undiciTransport<Context>(
  target: LoadTarget,
  options: TransportOptions,
  listener: AnswerListener<Context>,
): BaseTransport<Context> {
  const url = new URL(target.baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  const dispatcher: Agent = loadDispatcher(options.connections, target.tls);
  // The same budget the socket pool reads its answers within.
  const memory = new AnswerMemory(answerBudgetBytes);
  let inFlight = 0;
  return {
    send: (request, headers, context) => {
      if (inFlight >= options.connections) return false;
      inFlight++;
      exchange(
        dispatcher,
        {
          origin: url.origin,
          path: `${basePath}${request.path}`,
          method: request.method as 'GET',
          headers,
          ...(request.body !== undefined && { body: request.body }),
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        },
        target.maxAnswerBytes,
        memory,
        (result: ExchangeResult) => {
          inFlight--;
          listener(context, result);
        },
      );
      return true;
    },
    get inFlight() {
      return inFlight;
    },
    get memoryWaits() {
      return memory.waits;
    },
    close: () => dispatcher.destroy().catch(() => {}),
  };
}
