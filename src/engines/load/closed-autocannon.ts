/**
 * The closed model: `connections` connections at maximum throughput through autocannon, for
 * throughput ceilings. Each connection sends its next request when its answer came, so latency here
 * is service time under load (what autocannon measures), not what an arriving user would see; the
 * open model is the one for that. Every answer is checked by the scenario and recorded in the same
 * histograms as the open model's. autocannon does not wait for the answers in flight when it stops:
 * those requests are withdrawn from the counts (see the end of runClosed).
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { Scenario, ScenarioRequest, Tally } from '../../protocol/scenario.ts';
import { seededRandom } from '../../protocol/scenario.ts';
import type { ErrorClass } from '../../results/load-run.ts';
import type { LoadTarget } from './load-target.ts';
import { type PartProgress, requestHeaders } from './open-model.ts';
import { Recorder } from './recorder.ts';
import { tickEachSecond } from './second-ticks.ts';

export interface ClosedOptions {
  readonly connections: number;
  readonly durationS: number;
  readonly timeoutMs: number;
  readonly seed: number;
  readonly origin: number;
  /** Says why the run stopped early (autocannon: an answer past the cap). */
  readonly problem?: (line: string) => void;
  /** Each second's progress carries the part's totals (the scenario has live thresholds). */
  readonly totals?: boolean;
}

/** autocannon's per-connection client: its documented events, and `destroy`, which ends it for good. */
type AutocannonClient = autocannon.Client & { destroy(): void };

/** An answer's Content-Length in http-parser-js's raw header list, or 0 when it names none. */
function declaredLength(raw: readonly string[] | undefined): number {
  for (let i = 0; raw !== undefined && i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'content-length') return Number(raw[i + 1]) || 0;
  }
  return 0;
}

/**
 * autocannon reads every answer whole (its request queue appends each body to a string) and has no
 * way to stop reading one: against a target answering 50 MB, four connections grew past 1.2 GB in
 * five seconds. So each connection is watched through autocannon's documented client events, and one
 * whose answer passes `max` bytes (declared, or as it comes) is ended for good, its rest never read
 * (`destroy`: autocannon then drops that answer, and a parse of its remainder reaches a cleared queue).
 */
function capAnswers(client: AutocannonClient, max: number, onCut: () => void): void {
  let size = 0;
  let ended = false;
  const cut = () => {
    if (ended) return;
    ended = true;
    client.destroy();
    onCut();
  };
  // What autocannon 9 passes is http-parser-js's header info (`headers`: the raw name/value list), not
  // the object its type definitions name: read as what it is.
  client.on('headers', (info: unknown) => {
    size = 0;
    const raw = typeof info === 'object' && info !== null && 'headers' in info ? info.headers : undefined;
    if (Array.isArray(raw) && declaredLength(raw.map(String)) > max) cut();
  });
  client.on('body', (chunk: Buffer) => {
    size += chunk.length;
    if (size > max) cut();
  });
}

/** One connection's request in flight (autocannon keeps a context object per connection). */
interface ConnectionContext {
  request?: ScenarioRequest<unknown>;
  /** When it was sent; undefined once its answer came. */
  sentAt?: number;
}

export async function runClosed<State, Meta>(
  scenario: Scenario<State, Meta>,
  state: State,
  target: LoadTarget,
  options: ClosedOptions,
  signal: AbortSignal,
  progress?: (progress: PartProgress) => void,
): Promise<Recorder> {
  const recorder = new Recorder(options.origin);
  const tally: Tally = recorder.tallyApi;
  const iteration = { index: 0, random: seededRandom(options.seed) };
  const basePath = new URL(target.baseUrl).pathname.replace(/\/+$/, '');
  const headersFor = requestHeaders(target);
  // Requests sent and not yet answered, oldest first. With one request per connection at a time, more
  // than `connections` of them means the oldest were abandoned: autocannon reconnects after a reset
  // or its own timeout and sends a new request, and the old one's answer never comes.
  const pending = new Set<ConnectionContext>();
  let timeouts = 0;
  // autocannon calls onResponse, then emits 'response' for the same answer: the context passes between them here.
  let answered: ConnectionContext | undefined;

  const unanswered = (context: ConnectionContext, kind: ErrorClass, example: string) => {
    pending.delete(context);
    const request = context.request as ScenarioRequest<Meta> | undefined;
    if (!request || context.sentAt === undefined) return;
    const now = performance.now();
    recorder.failed(request.tags, kind, example, now);
    for (const outcome of scenario.check(state, request, null, tally)) recorder.check(outcome.name, outcome.ok);
    context.sentAt = undefined;
  };
  const failAbandoned = () => {
    for (const context of pending) {
      if (pending.size <= options.connections) break;
      if (timeouts > 0) {
        timeouts--;
        unanswered(context, 'timeout', `no answer within ${options.timeoutMs} ms`);
      } else unanswered(context, 'reset', 'the connection closed before the answer');
    }
  };

  let settle: (error?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  let cuts = 0;
  const onCut = () => {
    if (cuts++ > 0) return;
    options.problem?.(
      `the closed run stopped: an answer passed ${target.maxAnswerBytes} bytes (the scenario's largest answer with room, or maxAnswerBytes); autocannon reads every answer whole, so its run ends there (the node engine's closed model reads within the cap)`,
    );
    instance.stop();
  };
  const instance = autocannon(
    {
      url: target.baseUrl,
      setupClient: (client) => capAnswers(client as AutocannonClient, target.maxAnswerBytes, onCut),
      connections: options.connections,
      pipelining: 1,
      duration: options.durationS,
      timeout: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
      headers: { ...target.headers },
      requests: [
        {
          setupRequest: (request, raw) => {
            const context = raw as ConnectionContext;
            const next = scenario.request(state, iteration) as ScenarioRequest<unknown>;
            iteration.index++;
            context.request = next;
            context.sentAt = performance.now();
            recorder.sent(next.tags, context.sentAt);
            pending.add(context);
            failAbandoned();
            return {
              ...request,
              method: next.method,
              path: `${basePath}${next.path}`,
              ...(next.body !== undefined && { body: next.body }),
              headers: { ...headersFor(next) },
            };
          },
          onResponse: (status, body, raw) => {
            const context = raw as ConnectionContext;
            answered = context;
            const request = context.request as ScenarioRequest<Meta> | undefined;
            if (!request) return;
            for (const outcome of scenario.check(state, request, { status, body }, tally)) {
              recorder.check(outcome.name, outcome.ok);
            }
          },
        },
      ],
    },
    (error: unknown) => settle(error ?? undefined),
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    const context = answered;
    answered = undefined;
    const request = context?.request;
    if (!context || !request || context.sentAt === undefined) return;
    context.sentAt = undefined;
    pending.delete(context);
    const now = performance.now();
    if (statusCode >= 200 && statusCode < 300) recorder.completed(request.tags, request.commands, responseTime, now);
    else recorder.failed(request.tags, 'status', `status ${statusCode}`, now);
  });
  // autocannon's request errors are its own timeouts (a bare Error('request timed out')): the next
  // abandoned request is counted as one.
  instance.on('reqError', () => {
    timeouts++;
  });
  const stop = () => instance.stop();
  signal.addEventListener('abort', stop, { once: true });
  const stopProgress = progress
    ? tickEachSecond(options.origin, () => progress(recorder.progress(performance.now(), options.totals)))
    : undefined;
  try {
    await done;
  } finally {
    stopProgress?.();
    signal.removeEventListener('abort', stop);
  }
  // autocannon stops without waiting for its last answers (one per connection): those requests are
  // withdrawn from `sent` and counted in `abandoned-at-end`, and the scenario hears their outcome is
  // unknown (a transaction may have committed).
  failAbandoned();
  for (const context of pending) {
    const request = context.request as ScenarioRequest<Meta> | undefined;
    if (!request || context.sentAt === undefined) continue;
    recorder.withdraw(request.tags, context.sentAt);
    recorder.tally('abandoned-at-end');
    for (const outcome of scenario.check(state, request, null, tally)) recorder.check(outcome.name, outcome.ok);
  }
  return recorder;
}
