/**
 * The node engine's closed model on its own transport: `connections` loops, each sending its next
 * request when its answer came, for `durationS`. Latency here is service time under load (what
 * autocannon measures), not what an arriving user would see; the open model is the one for that.
 * Unlike autocannon (the `node-undici` engine's closed model), the answers in flight when the time is
 * up are waited for, up to the timeout, so none is abandoned; what is still missing then is cut short.
 */
import { performance } from 'node:perf_hooks';
import type { Scenario, ScenarioRequest, Tally } from '../../protocol/scenario.ts';
import { seededRandom } from '../../protocol/scenario.ts';
import type { ClosedOptions } from './closed-autocannon.ts';
import type { ExchangeResult } from './exchange.ts';
import type { LoadTarget } from './load-target.ts';
import { type PartProgress, requestHeaders } from './open-model.ts';
import { recordResult } from './record-result.ts';
import { Recorder } from './recorder.ts';
import { tickEachSecond } from './second-ticks.ts';
import { answerWaitCounter, type ClientName, openTransport } from './transport.ts';

interface Sent<Meta> {
  readonly request: ScenarioRequest<Meta>;
  readonly at: number;
}

export async function runClosedLoop<State, Meta>(
  scenario: Scenario<State, Meta>,
  state: State,
  target: LoadTarget,
  client: ClientName,
  options: ClosedOptions,
  signal: AbortSignal,
  progress?: (progress: PartProgress) => void,
): Promise<Recorder> {
  const recorder = new Recorder(options.origin);
  const tally: Tally = recorder.tallyApi;
  const iteration = { index: 0, random: seededRandom(options.seed) };
  const headersFor = requestHeaders(target);
  let stopping = false;

  const ended = ({ request, at }: Sent<Meta>, result: ExchangeResult) => {
    const answer = recordResult(recorder, request, result, result.end - at);
    for (const outcome of scenario.check(state, request, answer, tally)) recorder.check(outcome.name, outcome.ok);
    if (!stopping) sendNext();
  };
  const transport = openTransport<Sent<Meta>>(
    client,
    target,
    { connections: options.connections, timeoutMs: options.timeoutMs },
    ended,
  );
  const sendNext = () => {
    const request = scenario.request(state, iteration);
    iteration.index++;
    const at = performance.now();
    recorder.sent(request.tags, at);
    transport.send(request, headersFor(request), { request, at });
  };

  const stopProgress = progress
    ? tickEachSecond(options.origin, () => progress(recorder.progress(performance.now(), options.totals)))
    : undefined;
  await new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(deadline);
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const deadline = setTimeout(stop, options.durationS * 1000);
    signal.addEventListener('abort', stop, { once: true });
    for (let i = 0; i < options.connections; i++) sendNext();
  });
  stopping = true;
  // The answers in flight may come within the timeout (a second when interrupted: the user is waiting).
  const drained = await transport.drain(signal.aborted ? Math.min(1000, options.timeoutMs) : options.timeoutMs);
  stopProgress?.();
  if (!drained) recorder.cutShort(transport.inFlight, `still in flight ${options.timeoutMs} ms after the load ended`);
  // Answers that waited for the answer budget: their latency holds time the harness added.
  if (transport.memoryWaits > 0) recorder.tally(answerWaitCounter, transport.memoryWaits);
  await transport.close();
  return recorder;
}
