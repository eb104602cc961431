/**
 * The open model: requests arrive on a schedule whatever the target does (constant rate or ramp).
 * Each request's latency is measured from its *intended* start, so a stalled target shows in the
 * percentiles (coordinated omission corrected, as wrk2 does). A request due while `connections`
 * requests are already in flight is `dropped`: counted, never sent late and never hidden. A part
 * takes every `count`-th arrival starting at `index`, so workers split one schedule exactly.
 */
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import type { Scenario, ScenarioAnswer, ScenarioRequest, Tally } from '../../protocol/scenario.ts';
import { seededRandom } from '../../protocol/scenario.ts';
import { classifyError, looksLikeJson } from './error-class.ts';
import type { LoadTarget } from './load-target.ts';
import { Recorder } from './recorder.ts';
import type { Schedule } from './schedule.ts';

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
}

/** Hears about every publish, for the fan-out accounting (main thread only). */
export interface SendObserver {
  sent(index: number, at: number): void;
  answered(index: number, at: number, ok: boolean): void;
}

export interface PartProgress {
  readonly rate: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly dropped: number;
}

const decoder = new TextDecoder();

/** Reads a body up to `max` bytes; past it the request fails as garbage. */
async function readBody(
  body: AsyncIterable<Uint8Array> & { destroy(): void; text(): Promise<string> },
  declared: string | string[] | undefined,
  max: number,
): Promise<string | undefined> {
  // A declared length within bounds is read in one go (undici's fast path); anything else chunk by chunk.
  if (typeof declared === 'string' && Number(declared) <= max) return body.text();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return decoder.decode(chunks.length === 1 ? chunks[0] : concat(chunks, size));
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return all;
}

export async function runOpenPart<State, Meta>(
  scenario: Scenario<State, Meta>,
  state: State,
  target: LoadTarget,
  dispatcher: Agent,
  options: PartOptions,
  signal: AbortSignal,
  hooks: { readonly progress?: (progress: PartProgress) => void; readonly observer?: SendObserver } = {},
): Promise<Recorder> {
  const recorder = new Recorder(options.origin);
  const tally: Tally = { add: (name, value) => recorder.tally(name, value) };
  const random = seededRandom(options.seed + options.part.index * 7919);
  const iteration = { index: 0, random };
  const { schedule, part } = options;
  const inFlight = new Set<Promise<void>>();
  const url = new URL(target.baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  let next = part.index;
  // One headers object per content type, built once: not a copy per request.
  const headerSets = new Map<string | undefined, Readonly<Record<string, string>>>();
  const headersFor = (contentType: string | undefined) => {
    let headers = headerSets.get(contentType);
    if (!headers) {
      headers = { ...target.headers, ...(contentType && { 'content-type': contentType }) };
      headerSets.set(contentType, headers);
    }
    return headers;
  };

  // Set when the drain time is over: an answer after it is not counted (the request already counts as cut short).
  let closed = false;
  const settle = (request: ScenarioRequest<Meta>, n: number, answer: ScenarioAnswer | null) => {
    for (const outcome of scenario.check(state, request, answer, tally)) recorder.check(outcome.name, outcome.ok);
    if (answer !== null) hooks.observer?.answered(n, performance.now(), answer.status < 300);
  };

  const send = (n: number, due: number) => {
    iteration.index = n;
    const request = scenario.request(state, iteration);
    if (inFlight.size >= options.connections) {
      recorder.dropped(request.tags, due);
      return;
    }
    recorder.sent(request.tags, due);
    hooks.observer?.sent(n, performance.now());
    const headers = headersFor(request.contentType);
    const task = (async () => {
      try {
        const res = await dispatcher.request({
          origin: url.origin,
          path: `${basePath}${request.path}`,
          method: request.method,
          headers,
          ...(request.body !== undefined && { body: request.body }),
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
        const body = await readBody(res.body, res.headers['content-length'], target.maxAnswerBytes);
        if (closed) return;
        const end = performance.now();
        const latency = end - due;
        const type = String(res.headers['content-type'] ?? '');
        if (body === undefined || (type.includes('json') && !looksLikeJson(body))) {
          recorder.failed(
            request.tags,
            'garbage',
            body === undefined
              ? 'an answer longer than maxAnswerBytes'
              : `status ${res.statusCode}: a JSON answer that is not JSON`,
            latency,
            end,
          );
          settle(request, n, null);
          return;
        }
        if (res.statusCode >= 200 && res.statusCode < 300)
          recorder.completed(request.tags, request.commands, latency, end);
        else recorder.failed(request.tags, 'status', `status ${res.statusCode}: ${body.slice(0, 120)}`, latency, end);
        settle(request, n, { status: res.statusCode, body });
      } catch (error) {
        if (closed) return;
        const end = performance.now();
        const { kind, example } = classifyError(error);
        recorder.failed(request.tags, kind, example, end - due, end);
        settle(request, n, null);
      }
    })();
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  };

  const progressTimer = hooks.progress
    ? setInterval(() => {
        const last = recorder.lastSecond(performance.now());
        hooks.progress?.({ ...last, errors: recorder.failures, dropped: recorder.drops });
      }, 1000)
    : undefined;

  // The scheduler: each tick sends everything due by now, then sleeps until the next arrival.
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
      const wait = options.origin + schedule.dueAt(next) * 1000 - performance.now();
      setTimeout(tick, Math.max(0, wait));
    };
    signal.addEventListener('abort', () => resolve(), { once: true });
    tick();
  });

  // In-flight requests may finish within the drain time; what is left is cut short, and counted.
  const drained = await Promise.race([
    Promise.all([...inFlight]).then(() => true),
    // Interrupted, the user is waiting: a second at most.
    new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), signal.aborted ? Math.min(1000, options.drainMs) : options.drainMs).unref(),
    ),
  ]);
  if (progressTimer) clearInterval(progressTimer);
  closed = true;
  if (!drained) recorder.cutShort(inFlight.size, `still in flight ${options.drainMs} ms after the load ended`);
  return recorder;
}
