/** The soak's checker: lost by key with the faults around it, indeterminates never lost, recovery per fault. */
import { describe, expect, test } from 'vitest';
import { seededRandom } from '../../src/protocol/scenario.ts';
import {
  type CheckedIteration,
  checkSoak,
  type FaultWindow,
  type KeyArrival,
  SoakChecker,
} from '../../src/results/soak-check.ts';

const iteration = (
  index: number,
  fate: CheckedIteration['fate'],
  sentAt: number,
  answeredAt?: number,
): CheckedIteration => ({
  index,
  fate,
  sentAt,
  ...(answeredAt !== undefined && { answeredAt }),
  keys: [`delivery:${index}`],
});
const arrived = (entries: [number, number, number?][]) =>
  new Map<string, KeyArrival>(
    entries.map(([index, at, count]) => [`delivery:${index}`, { firstAt: at, count: count ?? 1 }]),
  );

describe('checkSoak', () => {
  test('a clean run: everything acknowledged arrived once, nothing lost, nothing unexpected', () => {
    const check = checkSoak(
      [iteration(0, 'acknowledged', 0), iteration(1, 'acknowledged', 10)],
      arrived([
        [0, 5],
        [1, 15],
      ]),
      [],
    );
    expect(check).toMatchObject({ acknowledged: 2, expectedKeys: 2, lost: [], duplicates: 0, unexpected: 0 });
  });

  test('a key acknowledged during a kill and never delivered is lost, by key, with the kill named', () => {
    const check = checkSoak(
      [iteration(0, 'acknowledged', 1000), iteration(1, 'acknowledged', 20_000), iteration(2, 'acknowledged', 60_000)],
      arrived([[0, 1100]]),
      [
        { id: 'f1-1', text: 'kill every 10m', startAt: 19_000, healedAt: 21_000 },
        { id: 'f1-2', text: 'kill every 10m', startAt: 120_000, healedAt: 121_000 },
      ],
    );
    expect(check.lost).toEqual([
      { key: 'delivery:1', index: 1, sentAt: 20_000, faults: ['f1-1'] },
      { key: 'delivery:2', index: 2, sentAt: 60_000, faults: [] },
    ]);
    expect(check.faults[0]).toMatchObject({ id: 'f1-1', drainedS: null });
  });

  test('indeterminate iterations are never lost; one that arrives is delivered, not unexpected; a refused one expects nothing', () => {
    const check = checkSoak(
      [
        iteration(0, 'indeterminate', 0),
        iteration(1, 'indeterminate', 0),
        iteration(2, 'refused', 0, 5),
        iteration(3, 'acknowledged', 0, 5),
      ],
      arrived([
        [0, 50],
        [2, 60],
        [3, 70, 3],
        [9, 80],
      ]),
      [],
    );
    expect(check.lost).toEqual([]);
    expect(check.indeterminate).toEqual({ total: 2, delivered: 1, undelivered: 1 });
    expect(check.undelivered).toEqual([{ index: 1, sentAt: 0, faults: [] }]);
    expect(check.refused).toBe(1);
    expect(check.duplicates).toBe(2);
    // The refused iteration's key and a key nobody caused.
    expect(check.unexpected).toBe(2);
  });

  test('a lost key carries the message ids its acknowledgement named; a fault cut by the end says so', () => {
    const check = checkSoak(
      [{ index: 4, fate: 'acknowledged', sentAt: 100, answeredAt: 110, keys: ['delivery:4'], ids: ['msg_4'] }],
      new Map(),
      [{ id: 'f1-1', text: 'kill every 1m', startAt: 90, healedAt: 200, cut: true }],
    );
    expect(check.lost).toEqual([{ key: 'delivery:4', index: 4, sentAt: 100, faults: ['f1-1'], ids: ['msg_4'] }]);
    expect(check.faults[0]).toMatchObject({ cut: true, firstSuccessS: null });
  });

  test("per fault: the errors while it lasted, heal to first success, heal to the backlog's last arrival", () => {
    const check = checkSoak(
      [
        iteration(0, 'indeterminate', 10_000),
        iteration(1, 'refused', 11_000, 11_010),
        iteration(2, 'acknowledged', 11_500, 11_600),
        iteration(3, 'acknowledged', 12_500, 12_700),
      ],
      arrived([
        [2, 14_000],
        [3, 12_900],
      ]),
      [{ id: 'f1-1', text: 'pause 2s every 1m', startAt: 10_000, healedAt: 12_000 }],
    );
    expect(check.faults).toEqual([
      { id: 'f1-1', text: 'pause 2s every 1m', errors: 2, firstSuccessS: 0.7, drainedS: 2 },
    ]);
  });

  test('iterations made as they are read and arrivals looked up (an hour is never copied): the same verdict, read once', () => {
    const made: number[] = [];
    const iterations = {
      *[Symbol.iterator]() {
        for (let index = 0; index < 4; index++) {
          made.push(index);
          yield iteration(index, index === 3 ? 'indeterminate' : 'acknowledged', index * 1000, index * 1000 + 10);
        }
      },
    };
    const looked: string[] = [];
    const keys = arrived([
      [0, 5, 3],
      [2, 2100],
      [9, 50],
    ]);
    const arrivals = {
      size: keys.size,
      get(key: string) {
        looked.push(key);
        return keys.get(key);
      },
    };
    const check = checkSoak(iterations, arrivals, [
      { id: 'f1-1', text: 'kill every 1m', startAt: 900, healedAt: 1500 },
    ]);
    expect(made).toEqual([0, 1, 2, 3]);
    expect(looked).toEqual(['delivery:0', 'delivery:1', 'delivery:2', 'delivery:3']);
    expect(check).toMatchObject({
      acknowledged: 3,
      expectedKeys: 3,
      lost: [{ key: 'delivery:1', index: 1, faults: ['f1-1'] }],
      indeterminate: { total: 1, delivered: 0, undelivered: 1 },
      // Key 0 came three times (two duplicates); key 9 no iteration caused.
      duplicates: 2,
      unexpected: 1,
    });
    expect(check.faults).toEqual([
      { id: 'f1-1', text: 'kill every 1m', errors: 0, firstSuccessS: 0.51, drainedS: null },
    ]);
  });
});

describe('SoakChecker: folded while the run goes on', () => {
  test('each iteration added once it is settled, the faults as they were then, gives what the check at the end gives', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const faults: FaultWindow[] = [0, 1, 2].map((n) => {
        const startAt = 2_000 + n * 6_000 + Math.floor(random() * 2_000);
        return {
          id: `f${n + 1}-1`,
          text: `fault ${n}`,
          startAt,
          healedAt: startAt + 500 + Math.floor(random() * 3_000),
        };
      });
      const iterations: CheckedIteration[] = [];
      const keys = new Map<string, KeyArrival>();
      for (let index = 0; index < 400; index++) {
        const sentAt = index * 50;
        const roll = random();
        const fate = roll < 0.8 ? 'acknowledged' : roll < 0.9 ? 'refused' : 'indeterminate';
        const own = [`delivery:${index}`, `callback:${index}`];
        iterations.push({
          index,
          fate,
          sentAt,
          ...(fate !== 'indeterminate' && { answeredAt: sentAt + 5 + Math.floor(random() * 300) }),
          keys: fate === 'refused' ? [] : own,
        });
        for (const key of own) {
          if (random() < 0.05) continue; // never arrives: lost, or an undelivered indeterminate
          keys.set(key, { firstAt: sentAt + 10 + Math.floor(random() * 4_000), count: random() < 0.1 ? 2 : 1 });
        }
      }
      // When each is settled: its answer came and each of its keys arrived; one with a key that never
      // arrives (and an indeterminate with none) is settled only at the end.
      const settledAt = (item: CheckedIteration) => {
        let at = item.answeredAt ?? (item.fate === 'indeterminate' ? Number.POSITIVE_INFINITY : item.sentAt);
        for (const key of item.keys) at = Math.max(at, keys.get(key)?.firstAt ?? Number.POSITIVE_INFINITY);
        return at;
      };
      let now = 0;
      // The faults as the nemesis knows them at `now`: begun ones only, a fault still on not yet healed.
      const live = () =>
        faults
          .filter((fault) => fault.startAt <= now)
          .map((fault) => (fault.healedAt <= now ? fault : { ...fault, healedAt: Number.POSITIVE_INFINITY }));
      const checker = new SoakChecker(live);
      const order = [...iterations].sort((a, b) => settledAt(a) - settledAt(b) || a.index - b.index);
      for (const item of order) {
        now = Math.min(settledAt(item), Number.MAX_SAFE_INTEGER);
        checker.add(item, keys);
      }
      now = Number.MAX_SAFE_INTEGER;
      const folded = checker.result(keys.size);
      const atEnd = checkSoak(iterations, keys, faults);
      const byIndex = <T extends { index: number }>(items: readonly T[]) =>
        [...items].sort((a, b) => a.index - b.index);
      expect(
        { ...folded, lost: byIndex(folded.lost), undelivered: byIndex(folded.undelivered) },
        `seed ${seed}`,
      ).toEqual({
        ...atEnd,
        lost: byIndex(atEnd.lost),
        undelivered: byIndex(atEnd.undelivered),
      });
      expect(
        atEnd.faults.some((fault) => fault.errors > 0),
        `seed ${seed}: a fault saw errors`,
      ).toBe(true);
    }
  });
});
