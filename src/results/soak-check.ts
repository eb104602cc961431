/**
 * The soak's checker (issue 39): what a messaging implementation acknowledged against what reached the
 * sink, with the faults of the run around it. Counters say how many; a checker says which, and why it
 * matters:
 *
 * - an iteration whose publish was acknowledged must cause every key it expects at least once: a key
 *   that never arrives is **lost**, a failure, listed with its iteration, when it was sent and the
 *   faults around that time; a key that arrives more than once is a duplicate (at-least-once allows
 *   them; a threshold may not);
 * - an iteration whose answer never came (a timeout, a reset: the implementation may or may not have
 *   taken it) is **indeterminate**: never lost, never delivered, until the sink shows its keys; those
 *   that do arrive are counted as delivered indeterminates, not as unexpected;
 * - a refused iteration (an error status) expects nothing; its keys arriving are unexpected, as any
 *   key no iteration caused;
 * - per fault: the iterations that failed while it lasted, the time from its heal to the first
 *   acknowledged answer, and the time from its heal until every key of what was acknowledged while it
 *   lasted had arrived (the backlog drained; null while a key of those is lost).
 *
 * Pure: plain data in (Unix ms on the harness's clock), a verdict out; the engine gathers the inputs
 * from the load's marks, the sink's ledger and the nemesis.
 */

/** What became of one iteration's request, as the harness saw its answer. */
export type IterationFate = 'acknowledged' | 'refused' | 'indeterminate';

export interface CheckedIteration {
  readonly index: number;
  readonly fate: IterationFate;
  readonly sentAt: number;
  /** When its answer came (acknowledged, refused); undefined for an indeterminate one. */
  readonly answeredAt?: number;
  /** The keys it causes once taken, per stream (`delivery:<key>`, …). */
  readonly keys: readonly string[];
  /** The message ids its acknowledgement named (when they were kept). */
  readonly ids?: readonly string[];
}

/** The first arrival of a key at the sink, and how many times it came. */
export interface KeyArrival {
  readonly firstAt: number;
  readonly count: number;
}

/** One fault as it happened: from its start until healed (a kill or restart: until ready again). */
export interface FaultWindow {
  readonly id: string;
  readonly text: string;
  readonly startAt: number;
  readonly healedAt: number;
  /** Cut short by the run's end: no success can follow its heal, so it has no recovery to judge. */
  readonly cut?: boolean;
}

export interface LostKey {
  readonly key: string;
  readonly index: number;
  readonly sentAt: number;
  /** The faults whose window, widened by the checker's margin, holds the send. */
  readonly faults: readonly string[];
  /** The message ids its iteration's acknowledgement named. */
  readonly ids?: readonly string[];
}

/** An iteration left without an answer whose keys never reached the sink: not lost, not delivered. */
export interface UndeliveredIndeterminate {
  readonly index: number;
  readonly sentAt: number;
  readonly faults: readonly string[];
}

export interface FaultRecovery {
  readonly id: string;
  readonly text: string;
  /** Iterations sent while it lasted that were refused or left without an answer. */
  readonly errors: number;
  /** From the heal to the first acknowledged answer sent after it; null when none came. */
  readonly firstSuccessS: number | null;
  /** From the heal until every key acknowledged while it lasted arrived; 0 when none was; null while one is lost. */
  readonly drainedS: number | null;
  readonly cut?: boolean;
}

export interface SoakCheck {
  readonly acknowledged: number;
  readonly refused: number;
  readonly indeterminate: { readonly total: number; readonly delivered: number; readonly undelivered: number };
  readonly expectedKeys: number;
  readonly lost: readonly LostKey[];
  /** The indeterminate iterations the sink never showed, with the faults around each. */
  readonly undelivered: readonly UndeliveredIndeterminate[];
  /** Arrivals past the first of a key that some iteration caused (acknowledged or indeterminate). */
  readonly duplicates: number;
  /** Keys that arrived and that no acknowledged or indeterminate iteration causes. */
  readonly unexpected: number;
  readonly faults: readonly FaultRecovery[];
}

/** How far around a fault's window a lost key's send is said to be near it. */
export const nearFaultMs = 5_000;

const seconds = (ms: number) => Math.round(ms) / 1000;

export function checkSoak(
  iterations: readonly CheckedIteration[],
  arrivals: ReadonlyMap<string, KeyArrival>,
  faults: readonly FaultWindow[],
  nearMs = nearFaultMs,
): SoakCheck {
  const caused = new Set<string>();
  const lost: LostKey[] = [];
  const undelivered: UndeliveredIndeterminate[] = [];
  const near = (at: number) =>
    faults.filter((fault) => at >= fault.startAt - nearMs && at <= fault.healedAt + nearMs).map((fault) => fault.id);
  let expectedKeys = 0;
  const counts = { acknowledged: 0, refused: 0 };
  const indeterminate = { total: 0, delivered: 0, undelivered: 0 };
  for (const iteration of iterations) {
    if (iteration.fate === 'refused') {
      counts.refused++;
      continue;
    }
    for (const key of iteration.keys) caused.add(key);
    if (iteration.fate === 'indeterminate') {
      indeterminate.total++;
      if (iteration.keys.some((key) => arrivals.has(key))) indeterminate.delivered++;
      else {
        indeterminate.undelivered++;
        undelivered.push({ index: iteration.index, sentAt: iteration.sentAt, faults: near(iteration.sentAt) });
      }
      continue;
    }
    counts.acknowledged++;
    for (const key of iteration.keys) {
      expectedKeys++;
      if (arrivals.has(key)) continue;
      lost.push({
        key,
        index: iteration.index,
        sentAt: iteration.sentAt,
        faults: near(iteration.sentAt),
        ...(iteration.ids !== undefined && { ids: iteration.ids }),
      });
    }
  }
  let duplicates = 0;
  let unexpected = 0;
  for (const [key, arrival] of arrivals) {
    if (caused.has(key)) duplicates += arrival.count - 1;
    else unexpected++;
  }
  const lostKeys = new Set(lost.map((item) => item.key));
  const recoveries = faults.map((fault): FaultRecovery => {
    const during = iterations.filter((item) => item.sentAt >= fault.startAt && item.sentAt <= fault.healedAt);
    const errors = during.filter((item) => item.fate !== 'acknowledged').length;
    const firstSuccess = iterations
      .filter((item) => item.fate === 'acknowledged' && item.sentAt >= fault.healedAt)
      .reduce((first, item) => Math.min(first, item.answeredAt ?? item.sentAt), Number.POSITIVE_INFINITY);
    const backlog = during.filter((item) => item.fate === 'acknowledged').flatMap((item) => item.keys);
    const drainedAt = backlog.some((key) => lostKeys.has(key))
      ? undefined
      : backlog.reduce((last, key) => Math.max(last, arrivals.get(key)?.firstAt ?? last), fault.healedAt);
    return {
      id: fault.id,
      text: fault.text,
      errors,
      firstSuccessS: Number.isFinite(firstSuccess) ? seconds(firstSuccess - fault.healedAt) : null,
      drainedS: drainedAt === undefined ? null : seconds(drainedAt - fault.healedAt),
      ...(fault.cut === true && { cut: true }),
    };
  });
  return {
    ...counts,
    indeterminate,
    expectedKeys,
    lost,
    undelivered,
    duplicates,
    unexpected,
    faults: recoveries,
  };
}
