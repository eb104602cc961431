/**
 * When each request of the open model is due: a constant rate, or ramp stages (k6's
 * ramping-arrival-rate: each stage goes linearly from the previous rate to its own over its
 * duration, the first from 0). Arrival n is due when the arrivals integrated so far reach n, which
 * for a linear ramp is a quadratic solved in closed form: no drift, however long the run.
 */

export interface RampStage {
  readonly durationS: number;
  /** Requests per second at the stage's end. */
  readonly rate: number;
}

export interface Schedule {
  /** Arrivals in the whole run. */
  readonly total: number;
  readonly durationS: number;
  /** Seconds from the start at which arrival `n` (0-based) is due. */
  dueAt(n: number): number;
}

export function constantSchedule(rate: number, durationS: number): Schedule {
  return { total: Math.floor(rate * durationS), durationS, dueAt: (n) => n / rate };
}

export function rampSchedule(stages: readonly RampStage[]): Schedule {
  const segments: { start: number; before: number; from: number; to: number; duration: number }[] = [];
  let start = 0;
  let before = 0;
  let from = 0;
  for (const stage of stages) {
    segments.push({ start, before, from, to: stage.rate, duration: stage.durationS });
    before += ((from + stage.rate) / 2) * stage.durationS;
    start += stage.durationS;
    from = stage.rate;
  }
  return {
    total: Math.floor(before + 1e-9),
    durationS: start,
    dueAt(n) {
      const segment = segments.find((item) => n < item.before + ((item.from + item.to) / 2) * item.duration - 1e-9);
      if (!segment) return start;
      const count = n - segment.before;
      const slope = (segment.to - segment.from) / segment.duration;
      // count = from·t + slope·t²/2, solved for t.
      if (Math.abs(slope) < 1e-12) return segment.start + count / segment.from;
      const t = (-segment.from + Math.sqrt(segment.from * segment.from + 2 * slope * count)) / slope;
      return segment.start + t;
    },
  };
}
