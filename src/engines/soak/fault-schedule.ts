/**
 * A soak's faults as a timeline (issue 39): each spec's occurrences over the run, seeded, so the same
 * seed and specs give the same times, which the report writes down so a run can be repeated. Jepsen's
 * nemeses strike at random; a soak before a release wants "about every 10 minutes" with room to
 * recover, so each occurrence after the first is moved by a seeded jitter of up to ±10% of its period.
 * The first falls at `after` exactly (default: one period in). Process faults never overlap one another:
 * the process has one state at a time, so an occurrence due while another is still on (a pause, a
 * restart's start-up) waits for it, and says so (`delayedMs`). Network faults on different paths may
 * overlap; two on one path are layered by the tool, in time order. Pure: specs, seed and duration in.
 */
import { type FaultSpec, isProcessFault } from '../../shared/fault-spec.ts';
import { seededRandom } from '../../shared/seeded-random.ts';

export interface FaultOccurrence {
  /** `f<spec>-<n>`: spec index and occurrence number, from 1, stable across runs with the same specs. */
  readonly id: string;
  readonly spec: FaultSpec;
  /** From the start of the measured load, ms. */
  readonly startMs: number;
  /** When it is healed (start + window, cut at the run's end); equal to the start for kill and restart. */
  readonly endMs: number;
  /** How long it waited for the process fault before it (process faults only). */
  readonly delayedMs: number;
}

/** The share of a period an occurrence may move either way. */
export const jitterShare = 0.1;

/**
 * Each spec's occurrences that start before `durationMs`, in time order. `restartAllowanceMs` is how
 * long a kill or restart is assumed to keep the process busy when the next process fault is placed
 * (the runner still waits for the real readiness).
 */
export function faultSchedule(
  specs: readonly FaultSpec[],
  durationMs: number,
  seed: number,
  restartAllowanceMs = 0,
): FaultOccurrence[] {
  const random = seededRandom(seed);
  const planned: Omit<FaultOccurrence, 'delayedMs'>[] = [];
  specs.forEach((spec, index) => {
    for (let n = 0; ; n += 1) {
      const jitter = n === 0 ? 0 : (random() * 2 - 1) * jitterShare * spec.everyMs;
      const startMs = Math.max(0, Math.round(spec.afterMs + n * spec.everyMs + jitter));
      if (startMs >= durationMs) break;
      planned.push({
        id: `f${index + 1}-${n + 1}`,
        spec,
        startMs,
        endMs: Math.min(durationMs, startMs + spec.windowMs),
      });
    }
  });
  planned.sort((a, b) => a.startMs - b.startMs || a.id.localeCompare(b.id));
  const placed: FaultOccurrence[] = [];
  let processFreeAt = 0;
  for (const occurrence of planned) {
    if (!isProcessFault(occurrence.spec)) {
      placed.push({ ...occurrence, delayedMs: 0 });
      continue;
    }
    const startMs = Math.max(occurrence.startMs, processFreeAt);
    if (startMs >= durationMs) continue;
    const endMs = Math.min(durationMs, startMs + occurrence.spec.windowMs);
    placed.push({ ...occurrence, startMs, endMs, delayedMs: startMs - occurrence.startMs });
    processFreeAt = endMs + (occurrence.spec.windowMs === 0 ? restartAllowanceMs : 0);
  }
  return placed.sort((a, b) => a.startMs - b.startMs || a.id.localeCompare(b.id));
}
