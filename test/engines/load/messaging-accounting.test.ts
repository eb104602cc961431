/**
 * The messaging ledger on arrivals made by hand, so every count is known: received once per key,
 * duplicates beyond the first, lost = expected − received, unexpected (an index not accepted, a key
 * not expected, or nothing the scenario knows), bad signatures and replayed token ids; latency from
 * the send, callbacks from their delivery's first arrival, and an iteration complete once all of it came.
 */
import { describe, expect, test } from 'vitest';
import { type LedgerArrival, MessagingLedger } from '../../../src/engines/load/messaging-accounting.ts';
import type { ArrivalRecord, Expectation } from '../../../src/protocol/scenario.ts';
import { decodeHistogram } from '../../../src/results/histogram.ts';

const endpoints = ['e0', 'e1', 'e2'];
const fanout = (_state: unknown, index: number): Expectation => ({
  delivery: endpoints.map((endpoint) => ({ key: `${index}/${endpoint}`, tags: { endpoint } })),
});
const sent = 1_000_000;
const delivery = (index: number, endpoint: string, at: number, extra: Partial<LedgerArrival> = {}): LedgerArrival => ({
  record: { stream: 'delivery', index, key: `${index}/${endpoint}`, sentAt: sent + index * 100, tags: { endpoint } },
  at,
  signature: 'ok',
  ...extra,
});

describe('MessagingLedger', () => {
  test('counts each key once: received, duplicated, lost, unexpected; per tag set too', () => {
    const ledger = new MessagingLedger();
    ledger.add([
      delivery(0, 'e0', sent + 10),
      delivery(0, 'e1', sent + 20),
      delivery(0, 'e1', sent + 25),
      delivery(0, 'e1', sent + 26),
      delivery(0, 'e2', sent + 30),
      delivery(1, 'e0', sent + 140),
      // Index 2 was not accepted: its arrival is unexpected, never received.
      delivery(2, 'e0', sent + 250),
      { record: undefined, at: sent, signature: 'unchecked' },
    ]);
    ledger.expect([0, 1, 1], fanout, undefined);
    expect(ledger.missing()).toBe(2);
    const accounting = ledger.account({ waitedS: 1.5, strays: 3 });
    expect(accounting.delivery).toMatchObject({ expected: 6, received: 4, lost: 2, duplicated: 2, unexpected: 1 });
    expect(accounting.accepted).toBe(2);
    expect(accounting.unclassified).toBe(1);
    expect(accounting.strays).toBe(3);
    expect(accounting.waitedS).toBe(1.5);
    const e1 = accounting.delivery?.byTags.find((entry) => entry.tags.endpoint === 'e1');
    expect(e1).toMatchObject({ expected: 2, received: 1, lost: 1, duplicated: 2 });
    const e0 = accounting.delivery?.byTags.find((entry) => entry.tags.endpoint === 'e0');
    expect(e0).toMatchObject({ expected: 2, received: 2, lost: 0, duplicated: 0 });
    // Latency of first arrivals only: 10, 20, 30, 40 ms.
    expect(accounting.delivery?.latencyMs).toMatchObject({ count: 4, min: 10, max: 40 });
    // Index 0 complete at its last endpoint (30 ms); index 1 is not.
    expect(accounting.complete?.latencyMs).toMatchObject({ count: 1, max: 30 });
    expect(accounting.callbacks).toBeUndefined();
    expect(accounting.signatures).toEqual({ verified: 7, failed: 0, unchecked: 1, replays: 0 });
  });

  test('the wait ends when nothing is missing; arrivals after expect count', () => {
    const ledger = new MessagingLedger();
    ledger.expect([5], fanout, undefined);
    expect(ledger.missing()).toBe(3);
    ledger.add(endpoints.map((endpoint) => delivery(5, endpoint, sent + 600)));
    expect(ledger.missing()).toBe(0);
    expect(ledger.account({ waitedS: 0, strays: 0 }).delivery).toMatchObject({ expected: 3, received: 3, lost: 0 });
  });

  test('callbacks are timed from their delivery; failure callbacks from the send; bad signatures and replays', () => {
    const at = (stream: ArrivalRecord['stream'], key: string, time: number, causeKey?: string): LedgerArrival => ({
      record: { stream, index: 0, key, sentAt: sent, ...(causeKey !== undefined && { causeKey }) },
      at: time,
      signature: 'ok',
      jti: `${stream}-${key}`,
    });
    const ledger = new MessagingLedger();
    ledger.add([
      at('delivery', '0#0', sent + 5),
      at('callback', '0#0', sent + 12, '0#0'),
      at('delivery', '0#1', sent + 50),
      { ...at('callback', '0#1', sent + 57, '0#1'), signature: 'failed' },
      // The same token twice: a replay (a proxy sent it again), and a duplicate of the key.
      at('callback', '0#1', sent + 58, '0#1'),
      at('failureCallback', '0', sent + 90),
    ]);
    ledger.expect(
      [0],
      () => ({ delivery: ['0#0', '0#1'], callback: ['0#0', '0#1'], failureCallback: ['0'] }),
      undefined,
    );
    const accounting = ledger.account({ waitedS: 0, strays: 0 });
    expect(accounting.callbacks).toMatchObject({ expected: 2, received: 2, duplicated: 1, badSignatures: 1 });
    expect(accounting.callbacks?.latencyMs).toMatchObject({ count: 2, min: 7, max: 7 });
    expect(accounting.failureCallbacks?.latencyMs).toMatchObject({ count: 1, max: 90 });
    expect(accounting.delivery?.latencyMs).toMatchObject({ count: 2, min: 5, max: 50 });
    expect(accounting.complete?.latencyMs).toMatchObject({ count: 1, max: 90 });
    expect(accounting.signatures).toEqual({ verified: 5, failed: 1, unchecked: 0, replays: 1 });
    const histogram = decodeHistogram(accounting.callbacks?.histogram ?? '');
    expect(histogram.totalCount).toBe(2);
    histogram.destroy();
  });

  test('the series has a point per second and stream, from the first send', () => {
    const ledger = new MessagingLedger();
    ledger.add([delivery(0, 'e0', sent + 10), delivery(0, 'e1', sent + 1500), delivery(0, 'e2', sent + 1600)]);
    ledger.expect([0], fanout, undefined);
    const { series } = ledger.account({ waitedS: 0, strays: 0 });
    expect(series.map((point) => [point.second, point.stream, point.count])).toEqual([
      [0, 'delivery', 1],
      [1, 'delivery', 2],
    ]);
  });
});
