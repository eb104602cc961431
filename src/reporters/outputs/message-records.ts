/**
 * A messaging scenario's streams as records, labelled `stream` (kv-fanout's deliveries to its
 * subscribers as the stream `fanout`). While the load runs, each second, what the sink saw:
 * `messages_arrived` and `messages_repeated` (increases since the series' last point) and the second's
 * `message_latency` of first arrivals. At the end, the accounting only the end knows (which keys were
 * expected): the `messages_*` counters and the whole scenario's `message_latency`, and the final
 * arrived/repeated points that make the live ones add up to it. Pure, like live-records.ts, which calls it.
 */
import type { LatencySummary, ScenarioResult } from '../../results/load-run.ts';
import type { MessageProgress } from '../../results/reporter.ts';
import { messagingStreams } from '../messaging-streams.ts';
import type {
  MessageArrivalPoint,
  MessageCounterPoint,
  MessageStream,
  MetricPoint,
  RecordLabels,
} from './live-record-types.ts';

/** What a scenario's arrival points have counted so far, per stream. */
export type ArrivalsCounted = Map<MessageStream, { arrived: number; repeated: number }>;

/** The report's stream names (its series') → the records' `stream` label. */
const names = {
  delivery: 'delivery',
  callback: 'callback',
  failureCallback: 'failure_callback',
  waiter: 'waiter',
  fanout: 'fanout',
} as const satisfies Record<MessageProgress['stream'], MessageStream>;

const round = (value: number) => Math.round(value * 1000) / 1000;

/** The arrival counters of one stream since its last points (`counted` advanced to `now`). */
function arrivalPoints(
  labels: RecordLabels,
  counted: ArrivalsCounted,
  stream: MessageStream,
  now: { readonly arrived: number; readonly repeated: number },
  at: { readonly time: string; readonly elapsed_s?: number; readonly final?: true },
  intervalS?: number,
): MessageArrivalPoint[] {
  const before = counted.get(stream) ?? { arrived: 0, repeated: 0 };
  counted.set(stream, { arrived: now.arrived, repeated: now.repeated });
  const increases = [
    ['messages_arrived', now.arrived - before.arrived],
    ['messages_repeated', now.repeated - before.repeated],
  ] as const;
  return increases.map(([metric, value]) => ({
    type: 'point',
    metric,
    kind: 'counter',
    labels: { ...labels, stream },
    tags: {},
    ...at,
    value,
    ...(intervalS !== undefined && { rate: round(value / intervalS) }),
  }));
}

/** One progress event's points of the streams: arrivals since the last, and the second's latency. */
export function liveMessagePoints(
  labels: RecordLabels,
  counted: ArrivalsCounted,
  messages: readonly MessageProgress[],
  at: { readonly time: string; readonly elapsed_s: number },
  intervalS: number,
): MetricPoint[] {
  // The latency is of the interval since the previous event, a second of the load: the one just closed.
  const second = Math.max(0, Math.round(at.elapsed_s) - 1);
  return messages.flatMap((entry): MetricPoint[] => {
    const stream = names[entry.stream];
    const { count, p50, p90, p99, max } = entry.latencyMs;
    return [
      ...arrivalPoints(labels, counted, stream, entry, at, intervalS),
      ...(count === 0
        ? []
        : [
            {
              type: 'point',
              metric: 'message_latency',
              kind: 'trend',
              unit: 'ms',
              labels: { ...labels, stream },
              time: at.time,
              second,
              count,
              p50,
              p90,
              p99,
              max,
            } as const,
          ]),
    ];
  });
}

/**
 * Each messaging stream's accounting, and kv-fanout's deliveries, as final counters and a latency
 * trend, with the arrivals the live points had not counted (`counted`).
 */
export function messagePoints(
  labels: RecordLabels,
  result: ScenarioResult,
  at: { readonly time: string; readonly final: true },
  counted: ArrivalsCounted = new Map(),
): MetricPoint[] {
  const streams: {
    stream: MessageStream;
    counts: Partial<Record<MessageCounterPoint['metric'], number>>;
    arrivals: { readonly arrived: number; readonly repeated: number } | undefined;
    latencyMs: LatencySummary;
  }[] = [];
  const { messaging, delivery } = result.accounting;
  for (const entry of messaging ? messagingStreams(messaging) : []) {
    const { accounting } = entry;
    streams.push({
      stream: names[entry.series],
      counts: {
        messages_expected: accounting.expected,
        messages_received: accounting.received,
        messages_lost: accounting.lost,
        messages_duplicated: accounting.duplicated,
        messages_unexpected: accounting.unexpected,
      },
      // Every arrival is of an expected key (received once, then duplicated) or of an unexpected one.
      arrivals:
        accounting.unexpectedKeys === undefined
          ? undefined
          : {
              arrived: accounting.received + accounting.duplicated + accounting.unexpected,
              repeated: accounting.duplicated + accounting.unexpected - accounting.unexpectedKeys,
            },
      latencyMs: accounting.latencyMs,
    });
  }
  if (delivery) {
    streams.push({
      stream: 'fanout',
      counts: {
        messages_expected: delivery.expected,
        messages_received: delivery.received,
        messages_lost: delivery.lost,
        messages_duplicated: delivery.duplicated,
        messages_out_of_order: delivery.outOfOrder,
      },
      // A subscriber's received counts every sequence's first arrival, published or not.
      arrivals: { arrived: delivery.received + delivery.duplicated, repeated: delivery.duplicated },
      latencyMs: delivery.latencyMs,
    });
  }
  return streams.flatMap(({ stream, counts, arrivals, latencyMs }): MetricPoint[] => {
    const streamLabels = { ...labels, stream };
    const { count, p50, p90, p99, max } = latencyMs;
    return [
      ...Object.entries(counts).map(
        ([metric, value]): MessageCounterPoint => ({
          type: 'point',
          metric: metric as MessageCounterPoint['metric'],
          kind: 'counter',
          labels: streamLabels,
          tags: {},
          ...at,
          value,
        }),
      ),
      ...(arrivals ? arrivalPoints(labels, counted, stream, arrivals, at) : []),
      {
        type: 'point',
        metric: 'message_latency',
        kind: 'trend',
        unit: 'ms',
        labels: streamLabels,
        ...at,
        count,
        p50,
        p90,
        p99,
        max,
      },
    ];
  });
}
