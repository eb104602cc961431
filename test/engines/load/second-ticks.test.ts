/**
 * The progress ticks (src/engines/load/second-ticks.ts): just after each whole second since the
 * origin, once a second, so the recorder's last whole second is each time the one that just ended.
 */
import { performance } from 'node:perf_hooks';
import { expect, test } from 'vitest';
import { tickEachSecond } from '../../../src/engines/load/second-ticks.ts';

test("each tick comes just after a second's edge, each second once, and none after stop", async () => {
  // The load began 1.99 s ago: the edges are 10 ms and 1,010 ms ahead.
  const origin = performance.now() - 1990;
  const seconds: number[] = [];
  const lateness: number[] = [];
  let stop = () => {};
  await new Promise<void>((resolve) => {
    stop = tickEachSecond(origin, () => {
      const elapsed = performance.now() - origin;
      seconds.push(Math.floor(elapsed / 1000));
      lateness.push(elapsed % 1000);
      if (seconds.length === 2) resolve();
    });
  });
  stop();
  expect(seconds).toEqual([2, 3]);
  // Never before the edge; after it by the margin and whatever the machine added.
  for (const ms of lateness) expect(ms).toBeLessThan(500);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect(seconds).toHaveLength(2);
});
