/**
 * The subscribers of a fan-out scenario and the exact accounting of every message at every one of
 * them: received, lost (an answered publish never seen), duplicated, out of order, and publish →
 * event latency in an HDR histogram. Out of order is judged only where the order is certain: a
 * message is late if a message received before it was published after its own publish was answered
 * (Redis ran them in that order, so every subscriber must see them in it). Concurrent publishes have
 * no order to keep. The counts are kept in the one fan-out ledger (`arrival-ledger.ts`), the messaging
 * scenarios' too; the live outputs get the subscribers' arrivals as they come, as one stream `fanout`.
 */
import { performance } from 'node:perf_hooks';
import { dispatcherFor } from '../../http/http-client.ts';
import { openSse, type SseStream } from '../../http/sse-client.ts';
import type { FanoutPart } from '../../protocol/scenario.ts';
import { encodeHistogram, newHistogram, recordMs, summarize } from '../../results/histogram.ts';
import type { DeliveryAccounting } from '../../results/load-run.ts';
import type { MessageProgress } from '../../results/reporter.ts';
import { ArrivalLedger } from './arrival-ledger.ts';
import { LiveArrivals } from './live-arrivals.ts';
import type { LoadTarget } from './load-target.ts';
import type { SendObserver } from './open-model.ts';

interface Subscriber {
  readonly stream: SseStream;
  /** Set when the stream ended before the subscriber was closed. */
  cut?: string;
}

/**
 * kv-fanout's ledger: each subscriber is a stream (its index), each message's sequence a key; a first
 * arrival keeps the send time known when it came (NaN when none was: no latency is measured from it).
 * Every published sequence is expected at every subscriber.
 */
type FanoutLedger = ArrivalLedger<number, number, number, undefined>;

export interface Fanout {
  readonly observer: SendObserver;
  /** Every subscriber's arrivals so far, for a progress event (resets their latency). */
  take(): MessageProgress;
  /** Waits until every answered publish reached every subscriber, or `graceMs` passed; then closes. */
  finish(graceMs: number): Promise<{ delivery: DeliveryAccounting; problems: readonly string[] }>;
  close(): void;
}

/** What the publishes did, by sequence: when each was sent and answered (ms, NaN: not), and which were answered 2xx. */
interface Publishes {
  readonly sentAt: Float64Array;
  readonly answeredAt: Float64Array;
  readonly published: Uint8Array;
}

/** Every published sequence, expected at every subscriber. */
function expectPublished(ledger: FanoutLedger, subscribers: number, { published }: Publishes): void {
  const keys = new Map<number, undefined>();
  for (let index = 0; index < published.length; index++) if (published[index] === 1) keys.set(index, undefined);
  ledger.expect(new Map(Array.from({ length: subscribers }, (_, subscriber) => [subscriber, keys])));
}

/**
 * The report's delivery fields from the ledger: received counts every first arrival of a sequence
 * (published or not), duplicated every arrival after a sequence's first, lost the published sequences a
 * subscriber never saw; latency from each first arrival's send time.
 */
function deliveryOf(ledger: FanoutLedger, subscribers: number, publishes: Publishes): DeliveryAccounting {
  const { sentAt, answeredAt } = publishes;
  const histogram = newHistogram();
  let expected = 0;
  let received = 0;
  let lost = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  for (let subscriber = 0; subscriber < subscribers; subscriber++) {
    const arrivals = ledger.arrivals(subscriber);
    const wanted = ledger.expected(subscriber);
    expected += wanted.size;
    received += arrivals.size;
    for (const sequence of wanted.keys()) if (!arrivals.has(sequence)) lost++;
    let latestSent = Number.NEGATIVE_INFINITY;
    for (const [sequence, first] of arrivals) {
      duplicated += first.count - 1;
      if (!Number.isNaN(first.record)) recordMs(histogram, first.at - first.record);
      const answer = answeredAt[sequence] ?? Number.NaN;
      if (!Number.isNaN(answer) && answer < latestSent) outOfOrder++;
      latestSent = Math.max(latestSent, sentAt[sequence] ?? Number.NEGATIVE_INFINITY);
    }
  }
  const delivery: DeliveryAccounting = {
    subscribers,
    expected,
    received,
    lost,
    duplicated,
    outOfOrder,
    latencyMs: summarize(histogram),
    histogram: encodeHistogram(histogram),
  };
  histogram.destroy();
  return delivery;
}

/** Opens `part.subscribers` streams, each read until the target says its subscription is live. */
async function subscribe<State>(
  part: FanoutPart<State>,
  state: State,
  target: LoadTarget,
  timeoutMs: number,
): Promise<Subscriber[]> {
  const subscribers: Subscriber[] = [];
  const url = `${target.baseUrl}${part.streamPath(state)}`;
  try {
    for (let index = 0; index < part.subscribers; index++) {
      const stream = await openSse({
        url,
        headers: target.headers,
        openTimeoutMs: timeoutMs,
        maxBufferedBytes: target.maxAnswerBytes,
        dispatcher: dispatcherFor(target.tls),
      });
      if (stream.status !== 200) throw new Error(`subscriber ${index + 1}: the stream answered ${stream.status}`);
      // The subscription is live once the target says so; publishing earlier could be lost legitimately.
      for (;;) {
        const data = await stream.next(timeoutMs);
        if (part.isReady(data, state)) break;
      }
      subscribers.push({ stream });
    }
  } catch (error) {
    for (const subscriber of subscribers) subscriber.stream.close();
    throw error;
  }
  return subscribers;
}

export async function openFanout<State>(
  part: FanoutPart<State>,
  state: State,
  target: LoadTarget,
  total: number,
  timeoutMs: number,
): Promise<Fanout> {
  const publishes: Publishes = {
    sentAt: new Float64Array(total).fill(Number.NaN),
    answeredAt: new Float64Array(total).fill(Number.NaN),
    published: new Uint8Array(total),
  };
  const subscribers = await subscribe(part, state, target, timeoutMs);
  const ledger: FanoutLedger = new ArrivalLedger(subscribers.map((_, index) => index));
  const live = new LiveArrivals('fanout');
  let closing = false;

  const readers = subscribers.map(async (subscriber, index) => {
    while (!closing) {
      let data: string;
      try {
        data = await subscriber.stream.next(timeoutMs);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A quiet stretch (a ramp's slow start) is not a cut: only the stream's end is.
        if (!closing && message.startsWith('no event within')) continue;
        if (!closing) subscriber.cut = message;
        return;
      }
      const received = performance.now();
      const sequence = part.sequenceOf(data, state);
      if (sequence === undefined || sequence < 0 || sequence >= total) continue;
      const sentAt = publishes.sentAt[sequence] ?? Number.NaN;
      const first = ledger.arrive(index, sequence, received, sentAt) === true;
      live.arrive(first, Number.isNaN(sentAt) ? undefined : received - sentAt);
    }
  });

  const observer: SendObserver = {
    sent: (index, at) => {
      if (index < total) publishes.sentAt[index] = at;
    },
    answered: (index, at, ok) => {
      if (index >= total) return;
      publishes.answeredAt[index] = at;
      if (ok) publishes.published[index] = 1;
    },
  };

  const close = () => {
    closing = true;
    for (const subscriber of subscribers) subscriber.stream.close();
  };

  return {
    observer,
    take: () => live.take(),
    close,
    async finish(graceMs) {
      // The load has ended: which publishes were answered is known, so is what every subscriber must see.
      expectPublished(ledger, subscribers.length, publishes);
      const until = performance.now() + graceMs;
      while (performance.now() < until && ledger.missing() > 0 && subscribers.every((subscriber) => !subscriber.cut)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      close();
      await Promise.all(readers);
      const problems = subscribers.flatMap((subscriber, index) =>
        subscriber.cut ? [`subscriber ${index + 1}'s stream ended early: ${subscriber.cut}`] : [],
      );
      return { delivery: deliveryOf(ledger, subscribers.length, publishes), problems };
    },
  };
}
