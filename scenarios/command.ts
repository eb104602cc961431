/**
 * command: single commands, a GET/SET mix over a key space, at a given arrival rate. The baseline
 * scenario (and the one the latency-truth benchmark uses): one request is one command.
 */
import { pathRequest, pipelineRequest } from '../src/protocol/kv/request-forms.ts';
import {
  type CheckOutcome,
  defineScenario,
  isResultObject,
  parseJson,
  type ScenarioContext,
  valueOfSize,
} from '../src/protocol/scenario.ts';

/** Keys the mix reads and writes; a GET finds a value, since setup writes every key first. */
const keySpace = 1000;
/** One request in five is a SET. */
const setShare = 0.2;

interface State {
  readonly prefix: string;
  readonly values: readonly string[];
}

type Meta = { readonly op: 'GET' | 'SET' };

/** One tag object per operation, reused: engines find their metrics by it. */
const tagsOf = { GET: { op: 'GET' }, SET: { op: 'SET' } } as const;

const keyOf = (prefix: string, index: number) => `${prefix}:k:${index}`;

async function forEachChunk(context: ScenarioContext, build: (index: number) => (string | number)[]): Promise<void> {
  for (let start = 0; start < keySpace; start += 250) {
    const commands = Array.from({ length: Math.min(250, keySpace - start) }, (_, offset) => build(start + offset));
    const request = pipelineRequest(commands);
    const answer = await context.send({ method: 'POST', path: request.path, body: request.body ?? '' });
    if (answer.status !== 200) throw new Error(`command: preparing the key space answered ${answer.status}`);
  }
}

export default defineScenario<State, Meta>({
  name: 'command',
  title: 'Single commands: a GET/SET mix over 1,000 keys',
  area: 'kv',
  defaults: { rate: 200, durationS: 10, batch: [1], valueSize: [64] },
  // 1500 ms: 2.5 times the worst p99 measured on a 2-core machine loaded eight times over (609 ms),
  // where 500 ms failed a newcomer's first run at 587 ms (README, "Load", the default latency bounds).
  // A GET's value at its largest, in {"result":…}; SET answers {"result":"OK"}.
  largestAnswer: (options) => Math.max(0, ...options.valueSize) + 32,
  thresholds: ['http_req_failed: rate<0.01', 'checks: rate>0.99', 'http_req_duration: p(99)<1500'],
  async setup(context) {
    const values = context.options.valueSize.map((size, index) => valueOfSize(size, context.options.seed + index));
    const state = { prefix: context.prefix, values };
    // Unprepared, the load still runs (a hostile target's errors are what the run is for); GETs then fail their check.
    await forEachChunk(context, (index) => [
      'SET',
      keyOf(state.prefix, index),
      values[index % values.length] ?? '',
    ]).catch((error: unknown) =>
      context.problem(`preparing the key space failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    return state;
  },
  request(state, iteration) {
    const key = keyOf(state.prefix, Math.floor(iteration.random() * keySpace));
    const isSet = iteration.random() < setShare;
    const value = state.values[iteration.index % state.values.length] ?? '';
    const shape = isSet ? pathRequest('POST', ['SET', key, value]) : pathRequest('GET', ['GET', key]);
    const op = isSet ? 'SET' : 'GET';
    return {
      method: shape.method === 'GET' ? 'GET' : 'POST',
      path: shape.path,
      tags: tagsOf[op],
      commands: 1,
      meta: { op },
    };
  },
  check(state, request, answer) {
    if (answer === null) return [];
    const json = parseJson(answer.body);
    const outcomes: CheckOutcome[] = [{ name: 'status is 200', ok: answer.status === 200 }];
    if (request.meta.op === 'SET') {
      outcomes.push({ name: 'SET answers OK', ok: isResultObject(json) && json.result === 'OK' });
    } else {
      outcomes.push({
        name: 'GET answers a value',
        ok: isResultObject(json) && state.values.includes(String(json.result)),
      });
    }
    return outcomes;
  },
  async finish(state, context) {
    await forEachChunk(context, (index) => ['DEL', keyOf(state.prefix, index)]);
    return {};
  },
});
