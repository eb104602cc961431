/**
 * The subscribers of a fan-out scenario and the exact accounting of every message at every one of
 * them: received, lost (an answered publish never seen), duplicated, out of order, and publish →
 * event latency in an HDR histogram. Out of order is judged only where the order is certain: a
 * message is late if a message received before it was published after its own publish was answered
 * (Redis ran them in that order, so every subscriber must see them in it). Concurrent publishes have
 * no order to keep.
 */
import { performance } from 'node:perf_hooks';
import { dispatcherFor } from '../../http/http-client.ts';
import { openSse, type SseStream } from '../../http/sse-client.ts';
import type { FanoutPart } from '../../protocol/scenario.ts';
import { encodeHistogram, newHistogram, recordMs, summarize } from '../../results/histogram.ts';
import type { DeliveryAccounting } from '../../results/load-run.ts';
import type { LoadTarget } from './load-target.ts';
import type { SendObserver } from './open-model.ts';

interface Subscriber {
  readonly stream: SseStream;
  readonly seen: Uint8Array;
  readonly order: number[];
  duplicated: number;
  /** Set when the stream ended before the subscriber was closed. */
  cut?: string;
}

export interface Fanout {
  readonly observer: SendObserver;
  /** Waits until every answered publish reached every subscriber, or `graceMs` passed; then closes. */
  finish(graceMs: number): Promise<{ delivery: DeliveryAccounting; problems: readonly string[] }>;
  close(): void;
}

export async function openFanout<State>(
  part: FanoutPart<State>,
  state: State,
  target: LoadTarget,
  total: number,
  timeoutMs: number,
): Promise<Fanout> {
  const sentAt = new Float64Array(total).fill(Number.NaN);
  const answeredAt = new Float64Array(total).fill(Number.NaN);
  const published = new Uint8Array(total);
  const histogram = newHistogram();
  const subscribers: Subscriber[] = [];
  let closing = false;
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
      subscribers.push({ stream, seen: new Uint8Array(total), order: [], duplicated: 0 });
    }
  } catch (error) {
    for (const subscriber of subscribers) subscriber.stream.close();
    throw error;
  }

  const readers = subscribers.map(async (subscriber) => {
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
      if (subscriber.seen[sequence] !== 0) {
        subscriber.duplicated++;
        continue;
      }
      subscriber.seen[sequence] = 1;
      subscriber.order.push(sequence);
      const sent = sentAt[sequence] ?? Number.NaN;
      if (!Number.isNaN(sent)) recordMs(histogram, received - sent);
    }
  });

  const observer: SendObserver = {
    sent: (index, at) => {
      if (index < total) sentAt[index] = at;
    },
    answered: (index, at, ok) => {
      if (index >= total) return;
      answeredAt[index] = at;
      if (ok) published[index] = 1;
    },
  };

  const close = () => {
    closing = true;
    for (const subscriber of subscribers) subscriber.stream.close();
  };

  const missing = () => {
    let count = 0;
    for (const subscriber of subscribers) {
      for (let index = 0; index < total; index++) if (published[index] === 1 && subscriber.seen[index] === 0) count++;
    }
    return count;
  };

  return {
    observer,
    close,
    async finish(graceMs) {
      const until = performance.now() + graceMs;
      while (performance.now() < until && missing() > 0 && subscribers.every((subscriber) => !subscriber.cut)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      close();
      await Promise.all(readers);
      let expected = 0;
      let received = 0;
      let lost = 0;
      let duplicated = 0;
      let outOfOrder = 0;
      const answered = published.reduce((sum, value) => sum + value, 0);
      for (const subscriber of subscribers) {
        expected += answered;
        duplicated += subscriber.duplicated;
        received += subscriber.order.length;
        for (let index = 0; index < total; index++) if (published[index] === 1 && subscriber.seen[index] === 0) lost++;
        let latestSent = Number.NEGATIVE_INFINITY;
        for (const sequence of subscriber.order) {
          const answer = answeredAt[sequence] ?? Number.NaN;
          if (!Number.isNaN(answer) && answer < latestSent) outOfOrder++;
          latestSent = Math.max(latestSent, sentAt[sequence] ?? Number.NEGATIVE_INFINITY);
        }
      }
      const problems = subscribers.flatMap((subscriber, index) =>
        subscriber.cut ? [`subscriber ${index + 1}'s stream ended early: ${subscriber.cut}`] : [],
      );
      const delivery: DeliveryAccounting = {
        subscribers: subscribers.length,
        expected,
        received,
        lost,
        duplicated,
        outOfOrder,
        latencyMs: summarize(histogram),
        histogram: encodeHistogram(histogram),
      };
      histogram.destroy();
      return { delivery, problems };
    },
  };
}
