/**
 * A messaging scenario's streams live (issue 38): the ledger's `take` on arrivals made by hand (first
 * arrivals, repeats of an expected key, an unexpected key twice, a callback before and after its
 * delivery), and LiveRecords on those takes: counters that are increases since the last event, each
 * second's latency of first arrivals, and at the end final points that make live + final equal the
 * end's accounting exactly (arrived = received + duplicated + unexpected, repeated = duplicated +
 * unexpected − the unexpected keys).
 */
import { describe, expect, test } from 'vitest';
import { type LedgerArrival, MessagingLedger } from '../../../src/engines/load/messaging-accounting.ts';
import type { ArrivalRecord, Expectation } from '../../../src/protocol/scenario.ts';
import { type LiveRecord, LiveRecords } from '../../../src/reporters/outputs/live-records.ts';
import type { ScenarioResult } from '../../../src/results/load-run.ts';
import type { LoadProgress, MessageProgress } from '../../../src/results/reporter.ts';
import { sampleLoadRun } from '../../reporters/sample-load-run.ts';

const sent = 1_000_000;
const arrival = (record: ArrivalRecord, at: number): LedgerArrival => ({ record, at, signature: 'ok' });
const delivery = (index: number, at: number) =>
  arrival({ stream: 'delivery', index, key: `d${index}`, sentAt: sent + index }, at);
const callback = (index: number, at: number) =>
  arrival({ stream: 'callback', index, key: `c${index}`, causeKey: `d${index}` }, at);
/** Iterations 0–4 expect a delivery and its callback each; 9 is never accepted. */
const expected = (_state: unknown, index: number): Expectation => ({
  delivery: [`d${index}`],
  callback: [`c${index}`],
});

const byStream = (taken: readonly MessageProgress[]) => Object.fromEntries(taken.map((entry) => [entry.stream, entry]));

describe('MessagingLedger.take', () => {
  test('counts every arrival and the repeats, and the latency of first arrivals since the last take', () => {
    const ledger = new MessagingLedger();
    expect(ledger.take()).toEqual([]);
    ledger.add([
      delivery(0, sent + 10),
      delivery(1, sent + 21),
      delivery(1, sent + 50),
      // A callback before its delivery: counted, no latency (nothing to measure it from yet).
      callback(2, sent + 30),
      callback(0, sent + 15),
      delivery(9, sent + 40),
      delivery(9, sent + 41),
    ]);
    const first = byStream(ledger.take());
    expect(Object.keys(first).sort()).toEqual(['callback', 'delivery']);
    // 5 deliveries, of 3 keys: 2 repeats (d1 again, unexpected d9 again).
    expect(first.delivery).toMatchObject({ arrived: 5, repeated: 2 });
    // First arrivals: d0 10 ms, d1 19 ms, d9 31 ms (unexpected keys too: the sink cannot tell yet).
    expect(first.delivery?.latencyMs).toMatchObject({ count: 3, min: 10, max: 31 });
    // c0 5 ms after d0's arrival; c2 before d2: no sample.
    expect(first.callback).toMatchObject({ arrived: 2, repeated: 0, latencyMs: { count: 1, max: 5 } });
    ledger.add([delivery(2, sent + 70), delivery(0, sent + 71)]);
    const second = byStream(ledger.take());
    // Cumulative counts; the latency is only the new first arrival's (d2, 68 ms).
    expect(second.delivery).toMatchObject({ arrived: 7, repeated: 3, latencyMs: { count: 1, max: 68 } });
    expect(second.callback).toMatchObject({ arrived: 2, repeated: 0, latencyMs: { count: 0 } });
  });
});

const start = { engine: 'node', target: 'reference', embedded: true, durationS: 2 };
const progressAt = (elapsedS: number, messages: readonly MessageProgress[]): LoadProgress => ({
  scenario: 'publish',
  engine: 'node',
  elapsedS,
  durationS: 2,
  rate: 0,
  p99Ms: 0,
  errors: 0,
  dropped: 0,
  requests: { sent: 0, completed: 0, failed: 0, dropped: 0 },
  messages,
});

const points = (records: readonly LiveRecord[], metric: string, stream: string) =>
  records.filter(
    (record) =>
      record.type === 'point' && record.metric === metric && record.labels.stream === stream && 'value' in record,
  ) as (LiveRecord & { value: number; final?: true; elapsed_s?: number; rate?: number })[];
const sum = (records: readonly LiveRecord[], metric: string, stream: string) =>
  points(records, metric, stream).reduce((total, point) => total + point.value, 0);

describe('live messaging records', () => {
  test('per second: arrivals and repeats since the last event, with a rate, and the second latency; at the end, live + final = the accounting', () => {
    const ledger = new MessagingLedger();
    const records = new LiveRecords(() => new Date('2026-12-02T10:00:00.000Z'));
    const out: LiveRecord[] = [...records.scenarioStart('publish', 'node, open model', start)];
    ledger.add([delivery(0, sent + 10), delivery(1, sent + 20), delivery(1, sent + 22), callback(0, sent + 14)]);
    out.push(...records.progress(progressAt(1.002, ledger.take())));
    ledger.add([delivery(9, sent + 40), delivery(9, sent + 41), delivery(9, sent + 42), delivery(2, sent + 45)]);
    out.push(...records.progress(progressAt(2.001, ledger.take())));
    // The end's wait: what came after the last event, and a duplicate.
    ledger.add([delivery(3, sent + 60), delivery(3, sent + 61), callback(1, sent + 70)]);
    ledger.expect([0, 1, 2, 3, 4], expected, undefined);
    const messaging = ledger.account({ waitedS: 0.2, strays: 0 });
    expect(messaging.delivery).toMatchObject({ received: 4, lost: 1, duplicated: 2, unexpected: 3, unexpectedKeys: 1 });

    const live = out.filter((record) => record.type === 'point' && record.labels.stream === 'delivery');
    expect(points(live, 'messages_arrived', 'delivery')).toMatchObject([
      { kind: 'counter', value: 3, elapsed_s: 1.002, rate: 2.994 },
      { value: 4, elapsed_s: 2.001 },
    ]);
    expect(points(live, 'messages_repeated', 'delivery').map((point) => point.value)).toEqual([1, 2]);
    expect(live.filter((record) => record.type === 'point' && record.metric === 'message_latency')).toMatchObject([
      // d0 10 ms, d1 19 ms (its repeat adds nothing); then d9 31 ms, d2 43 ms (2 significant digits).
      { kind: 'trend', unit: 'ms', second: 0, count: 2, max: 19 },
      { second: 1, count: 2, max: 43 },
    ]);
    expect(out.some((record) => record.type === 'point' && 'final' in record)).toBe(false);

    const base: ScenarioResult | undefined = sampleLoadRun.scenarios[0];
    if (base === undefined) throw new Error('no sample scenario');
    const end = records.scenarioEnd({ ...base, name: 'publish', engine: 'node', accounting: { messaging } });
    expect(points(end, 'messages_arrived', 'delivery')).toMatchObject([{ final: true, value: 2 }]);
    expect(points(end, 'messages_repeated', 'delivery')).toMatchObject([{ final: true, value: 1 }]);
    const all = [...out, ...end];
    const totals = (stream: 'delivery' | 'callback') => {
      const accounting = stream === 'delivery' ? messaging.delivery : messaging.callbacks;
      if (accounting === undefined) throw new Error(`no ${stream} accounting`);
      return {
        arrived: accounting.received + accounting.duplicated + accounting.unexpected,
        repeated: accounting.duplicated + accounting.unexpected - (accounting.unexpectedKeys ?? 0),
      };
    };
    // 9 deliveries arrived (d0, d1 ×2, d9 ×3, d2, d3 ×2), 4 of them repeats; 2 callbacks, none.
    expect(totals('delivery')).toEqual({ arrived: 9, repeated: 4 });
    for (const stream of ['delivery', 'callback'] as const) {
      expect(sum(all, 'messages_arrived', stream), stream).toBe(totals(stream).arrived);
      expect(sum(all, 'messages_repeated', stream), stream).toBe(totals(stream).repeated);
    }
    // The whole scenario's latency stays as it was: final, no second.
    expect(end.find((record) => record.type === 'point' && record.metric === 'message_latency')).toMatchObject({
      final: true,
      count: messaging.delivery?.latencyMs.count,
    });
  });
});
