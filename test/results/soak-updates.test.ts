/** The counters after each recovery: at least every increment answered before the read, else lost updates. */
import { describe, expect, test } from 'vitest';
import { checkUpdates, type UpdateFate } from '../../src/results/soak-updates.ts';

const acked = (answeredAt: number, ...ids: string[]): UpdateFate => ({ fate: 'acknowledged', answeredAt, ids });

describe('checkUpdates', () => {
  test('a counter holding every increment answered before the read has no lost update; one after it is not yet owed', () => {
    const fates = [acked(10, '0', '1'), acked(20, '0'), { fate: 'indeterminate' as const, ids: ['1'] }, acked(40, '1')];
    expect(checkUpdates(fates, [{ faultId: 'f1-1', at: 30, values: { '0': 2, '1': 2 } }])).toEqual([
      {
        faultId: 'f1-1',
        at: 30,
        lost: 0,
        counters: [
          { name: '0', value: 2, committed: 2 },
          { name: '1', value: 2, committed: 1 },
        ],
      },
    ]);
  });

  test('a counter below what was committed before the read: its shortfall is lost, and stays so at the next read', () => {
    const fates = [acked(10, '0', '0'), acked(20, '1'), acked(60, '0')];
    const checked = checkUpdates(fates, [
      { faultId: 'f1-2', at: 70, values: { '0': 1, '1': 1 } },
      { faultId: 'f1-1', at: 30, values: { '0': 0 } },
    ]);
    expect(checked.map((item) => [item.faultId, item.lost])).toEqual([
      ['f1-1', 3],
      ['f1-2', 2],
    ]);
  });

  test('a read that failed is no data, with its reason', () => {
    expect(checkUpdates([acked(1, '0')], [{ faultId: 'f1-1', at: 5, error: 'reset' }])).toEqual([
      { faultId: 'f1-1', at: 5, lost: null, counters: [], error: 'reset' },
    ]);
  });
});
