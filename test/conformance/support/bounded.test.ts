import { describe, expect, test } from 'vitest';
import { mapLimit, sleep } from '../../../conformance/support/bounded.ts';

describe('mapLimit', () => {
  test('keeps the order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (ms, index) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await sleep(ms);
      inFlight--;
      return index * 10;
    });
    expect(results).toEqual([0, 10, 20, 30, 40, 50]);
    expect(peak).toBe(2);
  });

  test('rejects with the first failure', async () => {
    await expect(mapLimit([1, 2], 2, async (n) => (n === 2 ? Promise.reject(new Error('two')) : n))).rejects.toThrow(
      'two',
    );
  });
});
