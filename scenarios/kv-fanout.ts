/**
 * kv-fanout: publishers on `/publish/{channel}/{message}` at a given rate and N subscribers on
 * `/subscribe/{channel}` (server-sent events). Each message is its publishing iteration's index; the
 * engine accounts for every one at every subscriber (received, lost, duplicated, out of order) and
 * measures publish → event latency. PUBLISH answers how many subscribers it reached.
 */
import { publishPath, subscribePath } from '../src/protocol/kv/request-forms.ts';
import { defineScenario, isResultObject, parseJson } from '../src/protocol/scenario.ts';

const subscribers = 8;

/** Publishes carry no tags; one object, reused. */
const noTags = {};

interface State {
  readonly channel: string;
}

export default defineScenario<State, undefined>({
  name: 'kv-fanout',
  title: `Pub/sub fan-out: publishers and ${subscribers} subscribers on server-sent events`,
  area: 'kv',
  defaults: { rate: 100, durationS: 10, batch: [1], valueSize: [0] },
  // PUBLISH's count of receivers, {"result":n}.
  largestAnswer: () => 64,
  thresholds: [
    'http_req_failed: rate<0.01',
    'delivery_lost: count==0',
    'delivery_duplicated: count==0',
    'delivery_out_of_order: count==0',
    // As command's bound, from the same measured spread (README, "Load", the default latency bounds).
    'delivery_latency: p(99)<1500',
  ],
  async setup(context) {
    return { channel: `${context.prefix}:fanout` };
  },
  request(state, iteration) {
    return {
      method: 'POST',
      path: publishPath(state.channel, String(iteration.index)),
      tags: noTags,
      commands: 1,
      meta: undefined,
    };
  },
  check(_state, _request, answer, tally) {
    if (answer === null) return [];
    const json = parseJson(answer.body);
    const ok = answer.status === 200 && isResultObject(json);
    if (ok) tally.add('published');
    return [
      { name: 'status is 200', ok: answer.status === 200 },
      { name: 'every subscriber reached', ok: ok && json.result === subscribers },
    ];
  },
  async finish() {
    // Nothing is stored: a channel keeps no data once its subscribers leave.
    return {};
  },
  fanout: {
    subscribers,
    streamPath: (state) => subscribePath(state.channel),
    isReady: (data, state) => data.startsWith(`subscribe,${state.channel},`),
    sequenceOf(data, state) {
      const head = `message,${state.channel},`;
      if (!data.startsWith(head)) return undefined;
      const sequence = Number(data.slice(head.length));
      return Number.isInteger(sequence) ? sequence : undefined;
    },
  },
});
