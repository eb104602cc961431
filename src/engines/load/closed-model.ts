/**
 * The closed model: `connections` connections at maximum throughput through autocannon, for
 * throughput ceilings. Each connection sends its next request when its answer came, so latency here
 * is service time under load (what autocannon measures), not what an arriving user would see; the
 * open model is the one for that. Every answer is checked by the scenario and recorded in the same
 * histograms as the open model's.
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { Scenario, ScenarioRequest, Tally } from '../../protocol/scenario.ts';
import { seededRandom } from '../../protocol/scenario.ts';
import { classifyError } from './error-class.ts';
import type { LoadTarget } from './load-target.ts';
import type { PartProgress } from './open-model.ts';
import { Recorder } from './recorder.ts';

export interface ClosedOptions {
  readonly connections: number;
  readonly durationS: number;
  readonly timeoutMs: number;
  readonly seed: number;
  readonly origin: number;
}

/** One connection's request in flight (autocannon keeps a context object per connection). */
interface ConnectionContext {
  request?: ScenarioRequest<unknown>;
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
  const tally: Tally = { add: (name, value) => recorder.tally(name, value) };
  const iteration = { index: 0, random: seededRandom(options.seed) };
  let lastTags: Readonly<Record<string, string>> = {};
  // autocannon calls onResponse, then emits 'response' for the same answer: the request passes between them here.
  let answered: ScenarioRequest<Meta> | undefined;
  let settle: (error?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });

  const instance = autocannon(
    {
      url: target.baseUrl,
      connections: options.connections,
      pipelining: 1,
      duration: options.durationS,
      timeout: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
      headers: { ...target.headers },
      requests: [
        {
          setupRequest: (request, context) => {
            const next = scenario.request(state, iteration) as ScenarioRequest<unknown>;
            iteration.index++;
            (context as ConnectionContext).request = next;
            lastTags = next.tags;
            return {
              ...request,
              method: next.method,
              path: `${new URL(target.baseUrl).pathname.replace(/\/+$/, '')}${next.path}`,
              ...(next.body !== undefined && { body: next.body }),
              headers: { ...target.headers, ...(next.contentType && { 'content-type': next.contentType }) },
            };
          },
          onResponse: (status, body, context) => {
            const request = (context as ConnectionContext).request as ScenarioRequest<Meta> | undefined;
            answered = request;
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
  // autocannon reports each answer's status and time; the request it answers is the connection's own.
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    const now = performance.now();
    const request = answered;
    answered = undefined;
    const tags = request?.tags ?? lastTags;
    recorder.sent(tags, now - responseTime);
    if (statusCode >= 200 && statusCode < 300) recorder.completed(tags, request?.commands ?? 1, responseTime, now);
    else recorder.failed(tags, 'status', `status ${statusCode}`, responseTime, now);
  });
  instance.on('reqError', (error: unknown) => {
    const now = performance.now();
    const { kind, example } = classifyError(error);
    recorder.sent(lastTags, now);
    recorder.failed(lastTags, kind, example, options.timeoutMs, now);
  });
  const stop = () => instance.stop();
  signal.addEventListener('abort', stop, { once: true });
  const timer = progress
    ? setInterval(() => {
        const last = recorder.lastSecond(performance.now());
        progress({ ...last, errors: recorder.failures, dropped: 0 });
      }, 1000)
    : undefined;
  try {
    await done;
  } finally {
    if (timer) clearInterval(timer);
    signal.removeEventListener('abort', stop);
  }
  return recorder;
}
