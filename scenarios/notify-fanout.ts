/**
 * notify-fanout: W waiters (100 unless `--param waiters=N`) on one event id per round, then one notify
 * per round at a rate. Setup creates every round's waiters (`POST /v2/wait/{eventId}`, the real
 * service's operation; the spec documents notify), each calling the sink at `/<round>/<w>`; each
 * iteration notifies its round with its send time in the event data, which every waiter's request
 * carries back. The engine accounts for every waiter of every accepted notify and measures notify →
 * each waiter's request and notify → the last of them (`complete_latency`). Waiters of rounds never
 * notified (an interrupted run) expire after the run's duration plus two minutes, calling nothing.
 * Rounds are prepared for the open model's planned notifies, so the closed model (no planned count,
 * as many notifies as the target answers) is refused.
 */
import { isOk, messageIds, readSentBody, sendAll, sentBody, tellFate } from '../src/protocol/messaging-load.ts';
import { defineScenario, paramValues, parseJson, type ScenarioParam } from '../src/protocol/scenario.ts';

const params = {
  waiters: {
    description: 'waiters per event id, each notified by one notify (setup creates waiters × rate × duration)',
    default: 100,
    integer: true,
    min: 1,
    max: 10_000,
  },
} as const satisfies Record<string, ScenarioParam>;

const noTags = {};

interface State {
  /** The event id of round r is `${eventPrefix}${r}`. */
  readonly eventPrefix: string;
  readonly rounds: number;
  readonly waiters: number;
}

export default defineScenario<State, number>({
  name: 'notify-fanout',
  title: 'Notify fan-out: waiters per event (100 by default), notifies at a rate, every waiter accounted',
  area: 'messaging',
  defaults: { rate: 2, durationS: 5, batch: [1], valueSize: [0] },
  params,
  needsOpenModel:
    'setup creates the waiters of every notify the plan sends, and the closed model has no plan (it would notify rounds that have none)',
  // One item per waiter notified: the waiter as it waited (its URL, deadline, timeout request) and the message id.
  largestAnswer: (options) => paramValues(params, options).waiters * 4096,
  thresholds: [
    'http_req_failed: rate<0.01',
    'messages_lost: count==0',
    'waiter_latency: p(99)<1500',
    'complete_latency: p(99)<3000',
  ],
  async setup(context) {
    const sink = context.sink;
    if (sink === undefined) throw new Error('notify-fanout needs the sink');
    // Every round the load can reach: the plateau rate for the whole duration (a ramp reaches fewer).
    const rounds = Math.max(1, Math.ceil(context.options.rate * context.options.durationS));
    const eventPrefix = `${context.prefix}:event:`;
    const timeout = `${Math.ceil(context.options.durationS) + 120}s`;
    const waiterCount = paramValues(params, context.options).waiters;
    const requests = [];
    for (let round = 0; round < rounds; round++) {
      for (let waiter = 0; waiter < waiterCount; waiter++) {
        requests.push({
          method: 'POST' as const,
          path: `/v2/wait/${encodeURIComponent(`${eventPrefix}${round}`)}`,
          body: JSON.stringify({ url: sink.url('waiter', `/${round}/${waiter}`), timeout }),
        });
      }
    }
    await sendAll(context, requests, 'creating the waiters');
    return { eventPrefix, rounds, waiters: waiterCount };
  },
  request(state, iteration) {
    return {
      method: 'POST',
      path: `/v2/notify/${encodeURIComponent(`${state.eventPrefix}${iteration.index}`)}`,
      body: sentBody(iteration.index),
      contentType: 'application/json',
      tags: noTags,
      commands: 1,
      meta: iteration.index,
    };
  },
  check(state, request, answer, tally) {
    if (answer === null) {
      if (request.meta < state.rounds) tellFate(tally, request, answer, undefined);
      return [];
    }
    const json = parseJson(answer.body);
    const all = isOk(answer) && Array.isArray(json) && json.length === state.waiters && request.meta < state.rounds;
    if (all) tally.mark('accepted', request.meta);
    // A notify past the rounds set up has no waiters: nothing to acknowledge, no fate.
    if (request.meta < state.rounds) tellFate(tally, request, answer, all ? (messageIds(json) ?? []) : undefined);
    return [
      { name: 'status is 2xx', ok: isOk(answer) },
      { name: 'every waiter notified', ok: all },
    ];
  },
  async finish() {
    // A notified waiter is gone; the others expire on their own (the spec gives no way to cancel one).
    return {};
  },
  sink: {
    answer: () => 200,
    classify(state, arrival) {
      if (arrival.role !== 'waiter') return undefined;
      const [, round, waiter] = arrival.rest.split('/');
      const sent = readSentBody(arrival.body);
      if (sent === undefined || String(sent.i) !== round || !/^\d+$/.test(waiter ?? '')) return undefined;
      if (Number(waiter) >= state.waiters) return undefined;
      return { stream: 'waiter', index: sent.i, key: `${round}/${waiter}`, sentAt: sent.t };
    },
    expected: (state, index) => ({
      waiter: Array.from({ length: state.waiters }, (_, waiter) => `${index}/${waiter}`),
    }),
  },
});
