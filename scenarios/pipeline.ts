/**
 * pipeline: `/pipeline` with batch sizes 1, 10, 100 and 1,000 and a few value sizes, interleaved
 * request by request and tagged `{batch, value}`, so commands per second and latency per batch size
 * form a curve (where latency starts to climb). Half the commands SET, half GET, over the batch's keys.
 */
import { pipelineRequest } from '../src/protocol/kv/request-forms.ts';
import { defineScenario, parseJson, valueOfSize } from '../src/protocol/scenario.ts';

interface State {
  readonly prefix: string;
  readonly batches: readonly number[];
  readonly values: readonly string[];
  /** The largest batch: keys are `prefix:p:0` to this, so finish knows what to delete. */
  readonly keys: number;
}

type Meta = { readonly batch: number };

/** One tag object per batch and value size, reused: engines find their metrics by it. */
const tagCache = new Map<string, Readonly<Record<string, string>>>();
function tagsFor(batch: number, value: number): Readonly<Record<string, string>> {
  const key = `${batch}/${value}`;
  let tags = tagCache.get(key);
  if (!tags) {
    tags = { batch: String(batch), value: String(value) };
    tagCache.set(key, tags);
  }
  return tags;
}

const keyOf = (prefix: string, index: number) => `${prefix}:p:${index}`;

/** Every item an object with `result` and no `error`, one per command. */
function allResults(body: string, count: number): boolean {
  const json = parseJson(body);
  return (
    Array.isArray(json) &&
    json.length === count &&
    json.every((item: unknown) => typeof item === 'object' && item !== null && 'result' in item && !('error' in item))
  );
}

export default defineScenario<State, Meta>({
  name: 'pipeline',
  title: 'Pipelines of 1, 10, 100 and 1,000 commands at two value sizes',
  area: 'kv',
  defaults: { rate: 40, durationS: 10, batch: [1, 10, 100, 1000], valueSize: [16, 1024] },
  // As command's bound (README, "Load", the defaults); on {batch:1}, since a 1,000-command pipeline is slow by its size.
  // Its largest batch of its largest values, each in {"result":…}.
  largestAnswer: (options) => Math.max(1, ...options.batch) * (Math.max(0, ...options.valueSize) + 32),
  thresholds: ['http_req_failed: rate<0.01', 'checks: rate>0.99', 'http_req_duration{batch:1}: p(99)<1500'],
  async setup(context) {
    const { batch, valueSize, seed } = context.options;
    return {
      prefix: context.prefix,
      batches: [...batch],
      values: valueSize.map((size, index) => valueOfSize(size, seed + index)),
      keys: Math.max(...batch),
    };
  },
  request(state, iteration) {
    const batch = state.batches[iteration.index % state.batches.length] ?? 1;
    const valueIndex = Math.floor(iteration.index / state.batches.length) % state.values.length;
    const value = state.values[valueIndex] ?? '';
    const commands = Array.from({ length: batch }, (_, index) => {
      const key = keyOf(state.prefix, index);
      return index % 2 === 0 ? ['SET', key, value] : ['GET', key];
    });
    const shape = pipelineRequest(commands);
    return {
      method: 'POST',
      path: shape.path,
      body: shape.body ?? '',
      contentType: 'application/json',
      tags: tagsFor(batch, value.length),
      commands: batch,
      meta: { batch },
    };
  },
  check(_state, request, answer) {
    if (answer === null) return [];
    return [
      { name: 'status is 200', ok: answer.status === 200 },
      { name: 'one result per command', ok: allResults(answer.body, request.meta.batch) },
    ];
  },
  async finish(state, context) {
    for (let start = 0; start < state.keys; start += 500) {
      const keys = Array.from({ length: Math.min(500, state.keys - start) }, (_, offset) =>
        keyOf(state.prefix, start + offset),
      );
      const shape = pipelineRequest([['DEL', ...keys]]);
      await context.send({ method: 'POST', path: shape.path, body: shape.body ?? '' });
    }
    return {};
  },
});
