/**
 * callback-throughput: publishes to sink destinations with `Svc-Callback` and `Svc-Failure-Callback`,
 * a share of them (5 % unless `--param fail-share=S`) to a destination that answers 500, with one
 * retry. The share is exact, not drawn: iteration i fails when ⌊(i+1)·S⌋ > ⌊i·S⌋, so exactly ⌊n·S⌋ of
 * the first n fail, spread evenly, on every seed. Every delivery is keyed by its message and attempt
 * (`<i>#<retried>`), every callback by the attempt it reports on (read from its body: `sourceBody`
 * and `retried`), every failure callback by its message. A message that succeeds causes one delivery
 * and one callback; one that fails causes a delivery and a callback per attempt, then a failure
 * callback. The engine accounts for the three streams and measures publish → delivery, delivery →
 * callback and publish → failure callback.
 */
import { isOk, messageIds, readSentBase64, readSentBody, sentBody, tellFate } from '../src/protocol/messaging-load.ts';
import { defineScenario, paramValues, parseJson, type ScenarioParam } from '../src/protocol/scenario.ts';

/** The share counted in millionths: whole numbers, so ⌊i·S⌋ is exact for every i a run reaches. */
const perMillion = 1_000_000;

const params = {
  'fail-share': {
    description: 'share of messages whose destination answers 500 (exact: ⌊n·S⌋ of the first n), to a millionth',
    default: 0.05,
    min: 0,
    max: 1,
  },
} as const satisfies Record<string, ScenarioParam>;

/** Retries of each message: a failing one is attempted twice, then reported by its failure callback. */
const retries = 1;

const tagsOk = { destination: 'ok' };
const tagsFail = { destination: 'fail' };

interface State {
  /** The failing share in millionths. */
  readonly failPerMillion: number;
  readonly retries: number;
  readonly ok: string;
  readonly fail: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Whether iteration `index`'s destination fails: a pure function of the index, so the sink's threads
 * agree with the publishers (k6 VUs, worker threads) without talking to them.
 */
function failing(state: State, index: number): boolean {
  const share = state.failPerMillion;
  return Math.floor(((index + 1) * share) / perMillion) > Math.floor((index * share) / perMillion);
}

/** The value of a header whose name ends with `suffix` (the dialect's prefix is the target's). */
function headerEnding(headers: Readonly<Record<string, string>>, suffix: string): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.endsWith(suffix)) return value;
  return undefined;
}

const attempts = (state: State, index: number) =>
  Array.from({ length: (failing(state, index) ? state.retries : 0) + 1 }, (_, retried) => `${index}#${retried}`);

export default defineScenario<State, number>({
  name: 'callback-throughput',
  title:
    'Callback throughput: publishes with callbacks and failure callbacks, a share of destinations (5 % by default) failing',
  area: 'messaging',
  defaults: { rate: 20, durationS: 5, batch: [1], valueSize: [0] },
  params,
  // One publish's {"messageId":…} (with its URL and flags, where a target adds them).
  largestAnswer: () => 1024,
  thresholds: [
    'http_req_failed: rate<0.01',
    'messages_lost: count==0',
    'delivery_latency: p(99)<1500',
    'callback_latency: p(99)<1500',
  ],
  async setup(context) {
    const sink = context.sink;
    if (sink === undefined) throw new Error('callback-throughput needs the sink');
    return {
      failPerMillion: Math.round(paramValues(params, context.options)['fail-share'] * perMillion),
      retries,
      ok: sink.url('dest', '/ok/'),
      fail: sink.url('dest', '/fail/'),
      headers: {
        'Svc-Retries': String(retries),
        'Svc-Callback': sink.url('callback'),
        'Svc-Failure-Callback': sink.url('failure'),
      },
    };
  },
  request(state, iteration) {
    const fails = failing(state, iteration.index);
    return {
      method: 'POST',
      path: `/v2/publish/${fails ? state.fail : state.ok}${iteration.index}`,
      body: sentBody(iteration.index),
      contentType: 'application/json',
      headers: state.headers,
      tags: fails ? tagsFail : tagsOk,
      commands: 1,
      meta: iteration.index,
    };
  },
  check(_state, request, answer, tally) {
    if (answer === null) {
      tellFate(tally, request, answer, undefined);
      return [];
    }
    const json = parseJson(answer.body);
    const accepted =
      isOk(answer) &&
      typeof json === 'object' &&
      json !== null &&
      typeof (json as Record<string, unknown>).messageId === 'string';
    if (accepted) tally.mark('accepted', request.meta);
    tellFate(tally, request, answer, accepted ? (messageIds(json) ?? []) : undefined);
    return [
      { name: 'status is 2xx', ok: isOk(answer) },
      { name: 'a message id', ok: accepted },
    ];
  },
  async finish() {
    // Nothing is left: every message ended delivered, or failed into the dead letters it is reported by.
    return {};
  },
  sink: {
    answer: (_state, role, rest) => (role === 'dest' && rest.startsWith('/fail/') ? 500 : 200),
    classify(state, arrival) {
      if (arrival.role === 'dest') {
        const sent = readSentBody(arrival.body);
        const retried = Number(headerEnding(arrival.headers, '-retried') ?? 'NaN');
        if (sent === undefined || !Number.isInteger(retried)) return undefined;
        const tags = failing(state, sent.i) ? tagsFail : tagsOk;
        return { stream: 'delivery', index: sent.i, key: `${sent.i}#${retried}`, sentAt: sent.t, tags };
      }
      if (arrival.role !== 'callback' && arrival.role !== 'failure') return undefined;
      const body = parseJson(arrival.body);
      if (typeof body !== 'object' || body === null) return undefined;
      const fields = body as Record<string, unknown>;
      const sent = readSentBase64(fields.sourceBody);
      if (sent === undefined) return undefined;
      const tags = failing(state, sent.i) ? tagsFail : tagsOk;
      if (arrival.role === 'failure') {
        return { stream: 'failureCallback', index: sent.i, key: `${sent.i}`, sentAt: sent.t, tags };
      }
      if (!Number.isInteger(fields.retried)) return undefined;
      const key = `${sent.i}#${fields.retried as number}`;
      return { stream: 'callback', index: sent.i, key, causeKey: key, sentAt: sent.t, tags };
    },
    expected(state, index) {
      const tags = failing(state, index) ? tagsFail : tagsOk;
      const keys = attempts(state, index).map((key) => ({ key, tags }));
      return {
        delivery: keys,
        callback: keys,
        ...(failing(state, index) && { failureCallback: [{ key: `${index}`, tags }] }),
      };
    },
  },
});
