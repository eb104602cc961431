/**
 * publish-fanout: a URL group of E endpoints (8 unless `--param endpoints=N`) on the sink, publishes
 * to it at a rate. Each publish carries its iteration and send time; the sink classifies each
 * delivery by (message, endpoint), so the engine accounts for every one (expected, received, lost,
 * duplicated, per endpoint too) and measures publish → delivery latency per endpoint and overall. The
 * group is deleted at the end.
 */
import {
  groupName,
  isOk,
  messageIds,
  readSentBody,
  sendAll,
  sentBody,
  tellFate,
} from '../src/protocol/messaging-load.ts';
import { defineScenario, paramValues, parseJson, type ScenarioParam } from '../src/protocol/scenario.ts';

const params = {
  endpoints: {
    description:
      "endpoints in the URL group (the target's max_endpoints_per_topic bounds it: 100 on the reference's plan)",
    default: 8,
    integer: true,
    min: 1,
    max: 1000,
  },
} as const satisfies Record<string, ScenarioParam>;

/** Publishes carry no tags; one object, reused. */
const noTags = {};

interface State {
  readonly group: string;
  readonly endpoints: readonly string[];
}

export default defineScenario<State, number>({
  name: 'publish-fanout',
  title: 'Publish fan-out: a URL group of endpoints on the sink (8 by default), every delivery accounted',
  area: 'messaging',
  defaults: { rate: 20, durationS: 5, batch: [1], valueSize: [0] },
  params,
  // One {"messageId":…,"url":…} per endpoint of the URL group.
  largestAnswer: (options) => paramValues(params, options).endpoints * 1024,
  thresholds: [
    'http_req_failed: rate<0.01',
    'messages_lost: count==0',
    // As kv-fanout's bound (README, "Load", the default latency bounds).
    'delivery_latency: p(99)<1500',
  ],
  async setup(context) {
    const sink = context.sink;
    if (sink === undefined) throw new Error('publish-fanout needs the sink');
    const group = groupName(context.prefix, 'fanout');
    const endpoints = Array.from({ length: paramValues(params, context.options).endpoints }, (_, at) => `e${at}`);
    await sendAll(
      context,
      [
        {
          method: 'POST',
          path: `/v2/topics/${group}/endpoints`,
          body: JSON.stringify({ endpoints: endpoints.map((name) => ({ name, url: sink.url('dest', `/${name}`) })) }),
        },
      ],
      'creating the URL group',
    );
    return { group, endpoints };
  },
  request(state, iteration) {
    return {
      method: 'POST',
      path: `/v2/publish/${state.group}`,
      body: sentBody(iteration.index),
      contentType: 'application/json',
      tags: noTags,
      commands: 1,
      meta: iteration.index,
    };
  },
  check(state, request, answer, tally) {
    if (answer === null) {
      tellFate(tally, request, answer, undefined);
      return [];
    }
    const json = parseJson(answer.body);
    const all = isOk(answer) && Array.isArray(json) && json.length === state.endpoints.length;
    if (all) tally.mark('accepted', request.meta);
    tellFate(tally, request, answer, all ? (messageIds(json) ?? []) : undefined);
    return [
      { name: 'status is 2xx', ok: isOk(answer) },
      { name: 'one message per endpoint', ok: all },
    ];
  },
  async finish(state, context) {
    await sendAll(context, [{ method: 'DELETE', path: `/v2/topics/${state.group}` }], 'deleting the URL group');
    return {};
  },
  sink: {
    answer: () => 200,
    classify(state, arrival) {
      if (arrival.role !== 'dest') return undefined;
      const endpoint = arrival.rest.slice(1);
      // `e<n>`, n below the group's size: no search through up to 1,000 names per arrival.
      const at = /^e(0|[1-9]\d{0,3})$/.exec(endpoint)?.[1];
      if (at === undefined || Number(at) >= state.endpoints.length) return undefined;
      const sent = readSentBody(arrival.body);
      if (sent === undefined) return undefined;
      return { stream: 'delivery', index: sent.i, key: `${sent.i}/${endpoint}`, sentAt: sent.t, tags: { endpoint } };
    },
    expected: (state, index) => ({
      delivery: state.endpoints.map((endpoint) => ({ key: `${index}/${endpoint}`, tags: { endpoint } })),
    }),
  },
});
