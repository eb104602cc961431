/**
 * transaction: `/multi-exec` batches under contention. Every transaction INCRs a few of four shared
 * counters; at the end each counter must equal the increments of the transactions that reported
 * success. A lost update (committed, not counted) or a doubled one (counted beyond what committed or
 * may have) fails a check and is counted. Transactions without an answer (timeout, reset) may or may
 * not have run: their increments widen what the counter may hold, and are counted apart.
 */
import { multiExecRequest, pathRequest } from '../src/protocol/kv/request-forms.ts';
import { defineScenario, isResultObject, parseJson, type ScenarioContext } from '../src/protocol/scenario.ts';

/** Few keys, many clients: the contention the scenario is about. */
const counters = 4;

interface State {
  readonly prefix: string;
  /** INCRs per transaction. */
  readonly size: number;
}

/** The iteration, the counters it increments, and when it was sent (Unix ms: its fate's send time). */
type Meta = { readonly index: number; readonly counters: readonly number[]; readonly sentAt: number };

/** One tag object per transaction size, reused: engines find their metrics by it. */
const tagCache = new Map<number, Readonly<Record<string, string>>>();
function tagsOf(size: number): Readonly<Record<string, string>> {
  let tags = tagCache.get(size);
  if (!tags) {
    tags = { size: String(size) };
    tagCache.set(size, tags);
  }
  return tags;
}

const counterKey = (prefix: string, index: number) => `${prefix}:c:${index}`;

/** `[{result: n}, …]` with an integer per INCR: the transaction ran. */
function committed(body: string, count: number): boolean {
  const json = parseJson(body);
  return (
    Array.isArray(json) &&
    json.length === count &&
    json.every((item: unknown) => isResultObject(item) && Number.isInteger(item.result))
  );
}

/** A counter's value (0 before its first INCR). */
async function readCounter(state: State, context: ScenarioContext, index: number): Promise<number> {
  const shape = pathRequest('GET', ['GET', counterKey(state.prefix, index)]);
  const answer = await context.send({ method: 'GET', path: shape.path });
  const json = parseJson(answer.body);
  if (answer.status !== 200 || !isResultObject(json))
    throw new Error(`transaction: reading counter ${index} answered ${answer.status}`);
  return json.result === null ? 0 : Number(json.result);
}

export default defineScenario<State, Meta>({
  name: 'transaction',
  title: 'Transactions: INCRs of four shared counters, every committed increment accounted for',
  area: 'kv',
  defaults: { rate: 100, durationS: 10, batch: [3], valueSize: [0] },
  // One INCR result per command of its largest batch.
  largestAnswer: (options) => Math.max(1, ...options.batch) * 40,
  thresholds: [
    'http_req_failed: rate<0.01',
    'lost_updates: count==0',
    'doubled_updates: count==0',
    'checks: rate>0.99',
  ],
  async setup(context) {
    return { prefix: context.prefix, size: Math.max(1, context.options.batch[0] ?? 3) };
  },
  request(state, iteration) {
    const chosen = Array.from({ length: state.size }, () => Math.floor(iteration.random() * counters));
    const shape = multiExecRequest(chosen.map((index) => ['INCR', counterKey(state.prefix, index)]));
    return {
      method: 'POST',
      path: shape.path,
      body: shape.body ?? '',
      contentType: 'application/json',
      tags: tagsOf(state.size),
      commands: state.size,
      meta: { index: iteration.index, counters: chosen, sentAt: Date.now() },
    };
  },
  check(_state, request, answer, tally) {
    // Its fate names the counters it incremented (the soak's read-backs after each recovery are judged by them).
    const ids = request.meta.counters.map(String);
    if (answer === null) {
      tally.add('unknown-transactions');
      for (const index of request.meta.counters) tally.add(`unknown:${index}`);
      tally.fate?.(request.meta.index, 'indeterminate', request.meta.sentAt, ids);
      return [];
    }
    const ran = answer.status === 200 && committed(answer.body, request.meta.counters.length);
    if (ran) for (const index of request.meta.counters) tally.add(`committed:${index}`);
    tally.fate?.(request.meta.index, ran ? 'acknowledged' : 'refused', request.meta.sentAt, ran ? ids : undefined);
    return [{ name: 'transaction committed', ok: ran }];
  },
  async readBack(state, context) {
    const values: Record<string, number> = {};
    for (let index = 0; index < counters; index++) values[String(index)] = await readCounter(state, context, index);
    return values;
  },
  async finish(state, context, tallies) {
    let lost = 0;
    let doubled = 0;
    for (let index = 0; index < counters; index++) {
      const actual = await readCounter(state, context, index);
      const sure = tallies[`committed:${index}`] ?? 0;
      const maybe = tallies[`unknown:${index}`] ?? 0;
      lost += Math.max(0, sure - actual);
      doubled += Math.max(0, actual - sure - maybe);
    }
    const keys = Array.from({ length: counters }, (_, index) => counterKey(state.prefix, index));
    const del = pathRequest('POST', ['DEL', ...keys]);
    await context.send({ method: 'POST', path: del.path });
    return {
      checks: [{ name: 'every counter equals its committed increments', ok: lost === 0 && doubled === 0 }],
      lostUpdates: lost,
      doubledUpdates: doubled,
      unknownOutcomes: tallies['unknown-transactions'] ?? 0,
    };
  },
});
