/**
 * A messaging scenario's streams as records, at its end (the sink accounts once the load is over):
 * per stream, the `messages_*` counters and `message_latency`, labelled `stream`; kv-fanout's deliveries
 * to its subscribers as the stream `fanout`. Pure, like live-records.ts, which calls it.
 */
import type { LatencySummary, ScenarioResult } from '../../results/load-run.ts';
import { messagingStreams } from '../messaging-streams.ts';
import type { MessageCounterPoint, MessageStream, MetricPoint, RecordLabels } from './live-record-types.ts';

/** The report's stream names (its series') → the records' `stream` label. */
const names = {
  delivery: 'delivery',
  callback: 'callback',
  failureCallback: 'failure_callback',
  waiter: 'waiter',
} as const;

/** Each messaging stream's accounting, and kv-fanout's deliveries, as final counters and a latency trend. */
export function messagePoints(
  labels: RecordLabels,
  result: ScenarioResult,
  at: { readonly time: string; readonly final: true },
): MetricPoint[] {
  const streams: {
    stream: MessageStream;
    counts: Partial<Record<MessageCounterPoint['metric'], number>>;
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
      latencyMs: delivery.latencyMs,
    });
  }
  return streams.flatMap(({ stream, counts, latencyMs }): MetricPoint[] => {
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
