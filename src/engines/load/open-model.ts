/**
 * The open model: requests arrive on a schedule whatever the target does (constant rate or ramp).
 * Each request's latency is measured from its *intended* start, so a stalled target shows in the
 * percentiles (coordinated omission corrected, as wrk2 does). A request due while `connections`
 * requests are already in flight is `dropped`: counted, never sent late and never hidden. A part
 * takes every `count`-th arrival starting at `index`, so workers split one schedule exactly. Dense
 * arrivals are sent together on a tick's edge (arrival-ticks.ts), never before they are due, the
 * wait in their latency.
 */
import { performance } from 'node:perf_hooks';
import { dialectHeaders } from '../../protocol/dialect-headers.ts';
import type { Scenario, ScenarioAnswer, ScenarioRequest, Tally } from '../../protocol/scenario.ts';
import { seededRandom } from '../../protocol/scenario.ts';
import { nextWakeAt } from './arrival-ticks.ts';
import type { ExchangeResult } from './exchange.ts';
import type { LoadTarget } from './load-target.ts';
import { recordResult } from './record-result.ts';
import { type PartProgress, Recorder } from './recorder.ts';
import type { Schedule } from './schedule.ts';
import { tickEachSecond } from './second-ticks.ts';
import { answerWaitCounter, type ClientName, openTransport } from './transport.ts';

export interface PartOptions {
  readonly schedule: Schedule;
  /** Most requests in flight at once (and sockets). */
  readonly connections: number;
  readonly timeoutMs: number;
  readonly seed: number;
  /** This part's place among the parts (workers): it sends arrivals index, index + count, … */
  readonly part: { readonly index: number; readonly count: number };
  /** The scenario's start on this thread's `performance.now()` clock. */
  readonly origin: number;
  /** How long in-flight requests may finish after the schedule ends (or is stopped). */
  readonly drainMs: number;
  /** Each second's progress carries the part's totals (the scenario has live thresholds). */
  readonly totals?: boolean;
}

/** Hears about every publish, for the fan-out accounting (main thread only). */
export interface SendObserver {
  sent(index: number, at: number): void;
  answered(index: number, at: number, ok: boolean): void;
}

export type { PartProgress } from './recorder.ts';

/** One request in flight: what the transport hands back with its result. */
interface Sent<Meta> {
  readonly request: ScenarioRequest<Meta>;
  readonly n: number;
  readonly due: number;
}

export async function runOpenPart<State, Meta>(
  scenario: Scenario<State, Meta>,
  state: State,
  target: LoadTarget,
  client: ClientName,
  options: PartOptions,
  signal: AbortSignal,
  hooks: { readonly progress?: (progress: PartProgress) => void; readonly observer?: SendObserver } = {},
): Promise<Recorder> {
  const recorder = new Recorder(options.origin);
  const tally: Tally = recorder.tallyApi;
  const random = seededRandom(options.seed + options.part.index * 7919);
  const iteration = { index: 0, random };
  const { schedule, part } = options;
  let next = part.index;
  const headersFor = requestHeaders(target);

  const settle = (request: ScenarioRequest<Meta>, n: number, answer: ScenarioAnswer | null) => {
    for (const outcome of scenario.check(state, request, answer, tally)) recorder.check(outcome.name, outcome.ok);
    if (answer !== null) hooks.observer?.answered(n, performance.now(), answer.status < 300);
  };

  const ended = ({ request, n, due }: Sent<Meta>, result: ExchangeResult) => {
    settle(request, n, recordResult(recorder, request, result, result.end - due));
  };

  const transport = openTransport<Sent<Meta>>(
    client,
    target,
    { connections: options.connections, timeoutMs: options.timeoutMs },
    ended,
  );
  const send = (n: number, due: number) => {
    iteration.index = n;
    const request = scenario.request(state, iteration);
    if (transport.inFlight >= options.connections) {
      recorder.dropped(request.tags, due);
      return;
    }
    recorder.sent(request.tags, due);
    hooks.observer?.sent(n, performance.now());
    transport.send(request, headersFor(request), { request, n, due });
  };

  const stopProgress = hooks.progress
    ? tickEachSecond(options.origin, () => hooks.progress?.(recorder.progress(performance.now(), options.totals)))
    : undefined;

  // The scheduler: each wake-up sends everything due by now, then sleeps until the next arrival, or
  // the next tick's edge when the next arrival is closer than that (arrival-ticks.ts).
  await new Promise<void>((resolve) => {
    const tick = () => {
      if (signal.aborted) return resolve();
      const now = performance.now();
      while (next < schedule.total) {
        const due = options.origin + schedule.dueAt(next) * 1000;
        if (due > now) break;
        send(next, due);
        next += part.count;
      }
      if (next >= schedule.total) return resolve();
      const nextDue = options.origin + schedule.dueAt(next) * 1000;
      const wake = nextWakeAt(now, nextDue, options.origin);
      setTimeout(tick, Math.max(0, wake - performance.now()));
    };
    signal.addEventListener('abort', () => resolve(), { once: true });
    tick();
  });

  // In-flight requests may finish within the drain time (interrupted, the user is waiting: a second at
  // most); what is left is cut short, and counted.
  const drained = await transport.drain(signal.aborted ? Math.min(1000, options.drainMs) : options.drainMs);
  stopProgress?.();
  if (!drained) recorder.cutShort(transport.inFlight, `still in flight ${options.drainMs} ms after the load ended`);
  // Answers that waited for the answer budget: their latency holds time the harness added.
  if (transport.memoryWaits > 0) recorder.tally(answerWaitCounter, transport.memoryWaits);
  await transport.close();
  return recorder;
}

/**
 * The headers of each request: the target's (credentials), the content type, and the scenario's own
 * renamed into the target's dialect. Built once per content type and headers object of the scenario
 * (its state holds them), not copied per request.
 */
export function requestHeaders(
  target: LoadTarget,
): (request: Pick<ScenarioRequest<unknown>, 'contentType' | 'headers'>) => Readonly<Record<string, string>> {
  const plain = new Map<string | undefined, Readonly<Record<string, string>>>();
  const own = new WeakMap<object, Map<string | undefined, Readonly<Record<string, string>>>>();
  return (request) => {
    const sets = request.headers === undefined ? plain : (own.get(request.headers) ?? new Map());
    if (request.headers !== undefined && !own.has(request.headers)) own.set(request.headers, sets);
    let headers = sets.get(request.contentType);
    if (!headers) {
      headers = {
        ...target.headers,
        ...dialectHeaders(request.headers, target.headerPrefix),
        ...(request.contentType && { 'content-type': request.contentType }),
      };
      sets.set(request.contentType, headers);
    }
    return headers;
  };
}
