/** The soak's fault timeline: seeded and repeatable, jittered within a tenth of the period, process faults in turn. */
import { describe, expect, test } from 'vitest';
import { faultSchedule, jitterShare } from '../../../src/engines/soak/fault-schedule.ts';
import { parseFaultSpec } from '../../../src/shared/fault-spec.ts';

const specs = (...texts: string[]) => texts.map(parseFaultSpec);

describe('faultSchedule', () => {
  test('kill every 10m over an hour: five kills, the first at 10 m, each within ±10% of its slot, the same for a seed', () => {
    const once = faultSchedule(specs('kill every 10m'), 3_600_000, 7);
    expect(once.map((item) => item.id)).toEqual(['f1-1', 'f1-2', 'f1-3', 'f1-4', 'f1-5']);
    expect(once[0]?.startMs).toBe(600_000);
    once.forEach((item, n) => {
      expect(Math.abs(item.startMs - (n + 1) * 600_000)).toBeLessThanOrEqual(jitterShare * 600_000);
      expect(item.endMs).toBe(item.startMs);
    });
    expect(faultSchedule(specs('kill every 10m'), 3_600_000, 7)).toEqual(once);
    expect(faultSchedule(specs('kill every 10m'), 3_600_000, 8)).not.toEqual(once);
  });

  test('windows end at start + length, cut at the run end; after sets the first', () => {
    const timeline = faultSchedule(specs('partition sink 30s every 15m after 0s'), 1_000_000, 1);
    expect(timeline[0]).toMatchObject({ startMs: 0, endMs: 30_000 });
    const cut = faultSchedule(specs('pause 5s every 20s after 18s'), 20_000, 1);
    expect(cut).toEqual([expect.objectContaining({ startMs: 18_000, endMs: 20_000 })]);
  });

  test('process faults wait for one another; network faults on a path overlap them', () => {
    const timeline = faultSchedule(
      specs('pause 10s every 1m after 10s', 'kill every 1m after 15s', 'latency 50ms for 20s every 1m after 12s'),
      30_000,
      3,
      2000,
    );
    expect(timeline.map((item) => [item.id, item.startMs, item.endMs, item.delayedMs])).toEqual([
      ['f1-1', 10_000, 20_000, 0],
      ['f3-1', 12_000, 30_000, 0],
      ['f2-1', 20_000, 20_000, 5000],
    ]);
  });
});
