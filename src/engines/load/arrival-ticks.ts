/**
 * When the open model's scheduler wakes. Each wake-up sends every arrival due by then, so what a
 * wake-up costs (the timer, the event loop's turn, a context switch, and the target's answers coming
 * back in as many separate reads) is shared by the arrivals it sends. Waking for each arrival made
 * those wake-ups most of the engine's CPU at a fixed rate (a profile at 2,000 req/s: the kernel's
 * task switches alone 15 %). So dense arrivals are sent together on the edges of a fixed tick from
 * the scenario's start; sparse ones (further apart than a tick) are still sent when due.
 *
 * Never early: an arrival is sent at or after its due time, and its latency is measured from that
 * due time, so the wait for a tick's edge is in the latency (at most one tick, plus the timer's own
 * lateness), never hidden. The tick is that bound on the harness's own delay.
 */

/** The tick's length in milliseconds: the most a dense arrival waits for its wake-up. */
export const arrivalTickMs = 4;

/**
 * The time to wake next (on `performance.now()`'s clock) after a wake-up at `now` that sent every
 * arrival due by `now`: the next arrival's due time, or the first tick edge after `now` when that
 * comes later (the arrival is dense: it waits for the edge, with the others due by then).
 */
export function nextWakeAt(now: number, nextDue: number, origin: number, tickMs = arrivalTickMs): number {
  if (tickMs <= 0) return nextDue;
  const edge = origin + (Math.floor((now - origin) / tickMs) + 1) * tickMs;
  return Math.max(nextDue, edge);
}
