/**
 * callback-throughput: publishes to sink destinations with `Svc-Callback` and `Svc-Failure-Callback`,
 * a seeded 5 % of them to a destination that answers 500, with one retry. Every delivery is keyed by
 * its message and attempt (`<i>#<retried>`), every callback by the attempt it reports on (read from
 * its body: `sourceBody` and `retried`), every failure callback by its message. A message that
 * succeeds causes one delivery and one callback; one that fails causes a delivery and a callback per
 * attempt, then a failure callback. The engine accounts for the three streams and measures publish →
 * delivery, delivery → callback and publish → failure callback.
 */
import { isOk, readSentBase64, readSentBody, sentBody } from '../src/protocol/messaging-load.ts';
import { defineScenario, parseJson, seededRandom } from '../src/protocol/scenario.ts';

/** The share of messages whose destination answers 500 (the default). */
const failShare = 0.05;
/** Retries of each message: a failing one is attempted twice, then reported by its failure callback. */
const retries = 1;

const tagsOk = { destination: 'ok' };
const tagsFail = { destination: 'fail' };

interface State {
  readonly seed: number;
  readonly failShare: number;
  readonly retries: number;
  readonly ok: string;
  readonly fail: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Whether iteration `index`'s destination fails: seeded, so the sink's threads agree with the publisher. */
function failing(state: State, index: number): boolean {
  return seededRandom((state.seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0)() < state.failShare;
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
  title: `Callback throughput: publishes with callbacks and failure callbacks, ${failShare * 100} % of destinations failing`,
  area: 'messaging',
  defaults: { rate: 20, durationS: 5, batch: [1], valueSize: [0] },
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
      seed: context.options.seed,
      failShare,
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
    if (answer === null) return [];
    const json = parseJson(answer.body);
    const accepted =
      isOk(answer) &&
      typeof json === 'object' &&
      json !== null &&
      typeof (json as Record<string, unknown>).messageId === 'string';
    if (accepted) tally.mark('accepted', request.meta);
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
