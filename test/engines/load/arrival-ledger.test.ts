/**
 * The one fan-out ledger: a key's first arrival is kept with how often it came, streams it was not
 * given refuse arrivals, and what is missing is the expected keys not arrived, before or after `expect`.
 */
import { describe, expect, test } from 'vitest';
import { ArrivalLedger } from '../../../src/engines/load/arrival-ledger.ts';

describe('ArrivalLedger', () => {
  test('keeps each key’s first arrival and its count, in first-arrival order; refuses an unknown stream', () => {
    const ledger = new ArrivalLedger<string, number, string, undefined>(['a', 'b']);
    expect(ledger.arrive('a', 2, 10, 'first')).toBe(true);
    expect(ledger.arrive('a', 1, 11, 'other')).toBe(true);
    expect(ledger.arrive('a', 2, 12, 'again')).toBe(false);
    expect(ledger.arrive('c', 1, 13, 'none')).toBeUndefined();
    expect([...ledger.arrivals('a')]).toEqual([
      [2, { at: 10, record: 'first', count: 2 }],
      [1, { at: 11, record: 'other', count: 1 }],
    ]);
    expect(ledger.arrivals('b').size).toBe(0);
    expect(ledger.arrivals('c').size).toBe(0);
    expect([...ledger.allArrivals()].map((keys) => keys.size)).toEqual([2, 0]);
  });

  test('missing counts the expected keys not arrived, whenever the arrivals came', () => {
    const ledger = new ArrivalLedger<string, number, undefined, string>(['a', 'b']);
    expect(ledger.missing()).toBe(0);
    expect(ledger.expectsAny()).toBe(false);
    ledger.arrive('a', 1, 0, undefined);
    ledger.expect(
      new Map([
        [
          'a',
          new Map([
            [1, 'x'],
            [2, 'y'],
          ]),
        ],
        ['b', new Map([[1, 'z']])],
      ]),
    );
    expect(ledger.expectsAny()).toBe(true);
    expect(ledger.expected('a').get(2)).toBe('y');
    expect(ledger.missing()).toBe(2);
    ledger.arrive('b', 1, 5, undefined);
    expect(ledger.missing()).toBe(1);
  });
});
