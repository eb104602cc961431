/**
 * The open model's schedules: a constant rate sends `rate × duration` arrivals evenly; a ramp
 * (k6's ramping-arrival-rate, linear from the previous stage's rate, the first from 0) sends the
 * integral of its rate, each arrival due when that integral reaches it, in closed form.
 */
import { describe, expect, test } from 'vitest';
import { constantSchedule, rampSchedule, type Schedule } from '../../../src/engines/load/schedule.ts';

/** Every due time in order. */
const dueTimes = (schedule: Schedule) => Array.from({ length: schedule.total }, (_, n) => schedule.dueAt(n));

/** Arrivals due before `t` seconds. */
const arrivalsBefore = (schedule: Schedule, t: number) => dueTimes(schedule).filter((due) => due < t).length;

function expectMonotonic(times: readonly number[]) {
  for (let index = 1; index < times.length; index++) {
    expect(times[index], `arrival ${index}`).toBeGreaterThanOrEqual(times[index - 1] ?? 0);
  }
}

describe('constantSchedule', () => {
  test('rate × duration arrivals, n-th due at n / rate', () => {
    const schedule = constantSchedule(50, 2);
    expect(schedule.total).toBe(100);
    expect(schedule.durationS).toBe(2);
    expect(schedule.dueAt(0)).toBe(0);
    expect(schedule.dueAt(1)).toBeCloseTo(0.02, 12);
    expect(schedule.dueAt(99)).toBeCloseTo(1.98, 12);
    expectMonotonic(dueTimes(schedule));
    // Evenly: 50 in each second.
    expect(arrivalsBefore(schedule, 1)).toBe(50);
  });

  test('a fractional product is floored; every arrival is due within the duration', () => {
    const schedule = constantSchedule(3, 1.5);
    expect(schedule.total).toBe(4);
    expect(Math.max(...dueTimes(schedule))).toBeLessThan(1.5);
    expect(constantSchedule(0.5, 1).total).toBe(0);
  });
});

describe('rampSchedule', () => {
  test('0 → 100 over 10 s: 500 arrivals, the n-th due at sqrt(n / 5) s', () => {
    const schedule = rampSchedule([{ durationS: 10, rate: 100 }]);
    expect(schedule.total).toBe(500);
    expect(schedule.durationS).toBe(10);
    for (const n of [0, 1, 5, 20, 125, 320, 499])
      expect(schedule.dueAt(n), `arrival ${n}`).toBeCloseTo(Math.sqrt(n / 5), 9);
    const times = dueTimes(schedule);
    expectMonotonic(times);
    expect(times.every((due) => due >= 0 && due < 10)).toBe(true);
    // Rate 10·t: 5·t² arrivals by t.
    expect(arrivalsBefore(schedule, 1)).toBe(5);
    expect(arrivalsBefore(schedule, 5)).toBe(125);
  });

  test('stages: up, plateau, down; each stage sends its own integral', () => {
    const schedule = rampSchedule([
      { durationS: 2, rate: 100 },
      { durationS: 3, rate: 100 },
      { durationS: 2, rate: 0 },
    ]);
    // 100 (ramp up) + 300 (plateau) + 100 (ramp down).
    expect(schedule.total).toBe(500);
    expect(schedule.durationS).toBe(7);
    const times = dueTimes(schedule);
    expectMonotonic(times);
    expect(arrivalsBefore(schedule, 2)).toBe(100);
    expect(arrivalsBefore(schedule, 5)).toBe(400);
    expect(times.every((due) => due < 7)).toBe(true);
    // On the plateau, 100 per second from its start.
    expect(schedule.dueAt(100)).toBeCloseTo(2, 9);
    expect(schedule.dueAt(150)).toBeCloseTo(2.5, 9);
    // Ramping down from 100 to 0 over 2 s: rate 100 - 50·u, so 100·u - 25·u² arrivals u s into it.
    expect(schedule.dueAt(400 + 75)).toBeCloseTo(5 + 1, 9);
  });

  test('a stage at rate 0 sends nothing, and the next starts from 0', () => {
    const schedule = rampSchedule([
      { durationS: 1, rate: 0 },
      { durationS: 2, rate: 20 },
    ]);
    expect(schedule.total).toBe(20);
    expect(schedule.dueAt(0)).toBeCloseTo(1, 9);
    // 5·u² arrivals u s into the second stage.
    expect(schedule.dueAt(5)).toBeCloseTo(2, 9);
    expectMonotonic(dueTimes(schedule));
  });

  test('fractional integrals across stages: floored once, no drift', () => {
    const schedule = rampSchedule([
      { durationS: 1, rate: 3 },
      { durationS: 1, rate: 3 },
    ]);
    // 1.5 + 3 = 4.5
    expect(schedule.total).toBe(4);
    const times = dueTimes(schedule);
    expectMonotonic(times);
    expect(times[1]).toBeCloseTo(Math.sqrt(2 / 3), 9);
    expect(times[2]).toBeCloseTo(1 + 0.5 / 3, 9);
    expect(times.every((due) => due < 2)).toBe(true);
  });

  test('a long ramp matches its rate integral at every second', () => {
    const schedule = rampSchedule([
      { durationS: 60, rate: 1000 },
      { durationS: 60, rate: 200 },
    ]);
    expect(schedule.total).toBe(30_000 + 36_000);
    const times = dueTimes(schedule);
    expectMonotonic(times);
    const dueBefore = (t: number) => times.filter((due) => due < t).length;
    for (const t of [1, 10, 30, 59])
      expect(Math.abs(dueBefore(t) - (1000 / 60) * (t * t) * 0.5)).toBeLessThanOrEqual(1);
    expect(dueBefore(60)).toBe(30_000);
    // Ramping down from 1000 to 200 over 60 s: 1000·u - (800 / 120)·u² arrivals u s into it.
    expect(Math.abs(dueBefore(90) - (30_000 + 1000 * 30 - (800 / 120) * 900))).toBeLessThanOrEqual(1);
    expect(Math.max(...times)).toBeLessThan(120);
  });
});
