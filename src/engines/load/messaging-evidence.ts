/**
 * What the soak's checker (results/soak-check.ts) needs of a messaging scenario once its sink's wait
 * ended: each publish's fate with the keys it causes once taken (the scenario's own `expected`), and
 * every key that reached the sink with its first arrival. Both are views, made as they are read: the
 * publishes from the fate log's arrays, the keys from the sink's ledger, so an hour's soak is never
 * copied a second time per publish (its 720,000 iterations and keys made into objects at once took
 * over 1 GB at the end). Built only when the caller asks for it (the soak).
 */
import type { ArrivalStream, Expectation } from '../../protocol/scenario.ts';
import type { CheckedIteration, KeyArrivals } from '../../results/soak-check.ts';
import { type FatePart, publishRecords } from './fate-log.ts';

export interface MessagingEvidence {
  readonly scenario: string;
  /** Each publish, made as it is read (read it as often as needed). */
  readonly iterations: Iterable<CheckedIteration>;
  /** `stream:key` → its first arrival (Unix ms) and how often it came. */
  readonly arrivals: KeyArrivals;
  /** Publishes whose fate was not kept (past the log's bound): neither lost nor delivered. */
  readonly droppedFates: number;
  /** Acknowledged publishes whose message ids were not kept. */
  readonly droppedIds: number;
}

const streams: readonly ArrivalStream[] = ['delivery', 'callback', 'failureCallback', 'waiter'];

/** The keys, as `stream:key`, one iteration causes once taken. */
function keysOf(expectation: Expectation): string[] {
  const keys: string[] = [];
  for (const stream of streams) {
    for (const item of expectation[stream] ?? []) keys.push(`${stream}:${typeof item === 'string' ? item : item.key}`);
  }
  return keys;
}

export function messagingEvidence(
  scenario: string,
  fates: FatePart,
  arrivals: KeyArrivals,
  expected: (index: number) => Expectation,
): MessagingEvidence {
  const iterations: Iterable<CheckedIteration> = {
    *[Symbol.iterator]() {
      for (const record of publishRecords(fates)) {
        // A refused publish expects nothing: its keys are not asked for.
        yield { ...record, keys: record.fate === 'refused' ? [] : keysOf(expected(record.index)) };
      }
    },
  };
  return { scenario, iterations, arrivals, droppedFates: fates.droppedFates, droppedIds: fates.droppedIds };
}
