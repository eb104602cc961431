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

/**
 * Every key that reached the sink, looked up by `stream:key` (a Map is one): a view of the sink's
 * ledger, so the check copies no key of a long run.
 */
export interface KeyArrivals {
  get(key: string): KeyArrival | undefined;
  /** How many keys arrived. */
  readonly size: number;
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

/** What one fault's window has gathered so far. */
interface WindowTally {
  errors: number;
  firstSuccess: number;
  /** The last first arrival of a key acknowledged while it lasted (-Infinity: none yet). */
  drainedAt: number;
  backlogLost: boolean;
}

/**
 * The checker as a fold: `add` takes one iteration at a time, looking its keys up once, and `result`
 * says what the iterations added so far show. What it keeps grows with the lost keys, the undelivered
 * indeterminates and the faults, never with the iterations. `faults` is read at each `add`: the run's
 * faults so far, a fault still on with `healedAt` Infinity, so iterations can be folded while the run
 * goes on (a fault begun after an iteration was added cannot hold its send, which came before; one
 * still on holds it when it began before the send). A key is caused by one iteration only (keys are
 * unique within their stream: `ArrivalRecord.key`).
 */
export class SoakChecker {
  readonly #faults: () => readonly FaultWindow[];
  readonly #nearMs: number;
  readonly #lost: LostKey[] = [];
  readonly #undelivered: UndeliveredIndeterminate[] = [];
  readonly #windows = new Map<string, WindowTally>();
  readonly #counts = { acknowledged: 0, refused: 0 };
  readonly #indeterminate = { total: 0, delivered: 0, undelivered: 0 };
  #expectedKeys = 0;
  #duplicates = 0;
  #causedArrived = 0;

  constructor(faults: () => readonly FaultWindow[], nearMs = nearFaultMs) {
    this.#faults = faults;
    this.#nearMs = nearMs;
  }

  #window(fault: FaultWindow): WindowTally {
    let tally = this.#windows.get(fault.id);
    if (tally === undefined) {
      tally = {
        errors: 0,
        firstSuccess: Number.POSITIVE_INFINITY,
        drainedAt: Number.NEGATIVE_INFINITY,
        backlogLost: false,
      };
      this.#windows.set(fault.id, tally);
    }
    return tally;
  }

  #near(at: number, faults: readonly FaultWindow[]): string[] {
    const margin = this.#nearMs;
    return faults
      .filter((fault) => at >= fault.startAt - margin && at <= fault.healedAt + margin)
      .map((fault) => fault.id);
  }

  add(iteration: CheckedIteration, arrivals: KeyArrivals): void {
    const faults = this.#faults();
    const { sentAt, fate } = iteration;
    const during = faults
      .filter((fault) => sentAt >= fault.startAt && sentAt <= fault.healedAt)
      .map((f) => this.#window(f));
    if (fate === 'acknowledged') {
      for (const fault of faults) {
        if (sentAt >= fault.healedAt) {
          const window = this.#window(fault);
          window.firstSuccess = Math.min(window.firstSuccess, iteration.answeredAt ?? sentAt);
        }
      }
    } else {
      for (const window of during) window.errors++;
    }
    if (fate === 'refused') {
      this.#counts.refused++;
      return;
    }
    let anyArrived = false;
    for (const key of iteration.keys) {
      const arrival = arrivals.get(key);
      if (arrival !== undefined) {
        anyArrived = true;
        this.#causedArrived++;
        this.#duplicates += arrival.count - 1;
      }
      if (fate !== 'acknowledged') continue;
      this.#expectedKeys++;
      // The backlog of a fault: every key acknowledged while it lasted, drained once the last arrived.
      for (const window of during) {
        if (arrival === undefined) window.backlogLost = true;
        else window.drainedAt = Math.max(window.drainedAt, arrival.firstAt);
      }
      if (arrival !== undefined) continue;
      this.#lost.push({
        key,
        index: iteration.index,
        sentAt,
        faults: this.#near(sentAt, faults),
        ...(iteration.ids !== undefined && { ids: iteration.ids }),
      });
    }
    if (fate === 'acknowledged') {
      this.#counts.acknowledged++;
      return;
    }
    this.#indeterminate.total++;
    if (anyArrived) this.#indeterminate.delivered++;
    else {
      this.#indeterminate.undelivered++;
      this.#undelivered.push({ index: iteration.index, sentAt, faults: this.#near(sentAt, faults) });
    }
  }

  /** What the iterations added show, against the run's faults as they are now; `arrivedKeys`: how many keys reached the sink. */
  result(arrivedKeys: number): SoakCheck {
    const recoveries = this.#faults().map((fault): FaultRecovery => {
      const { errors, firstSuccess, drainedAt, backlogLost } = this.#window(fault);
      return {
        id: fault.id,
        text: fault.text,
        errors,
        firstSuccessS: Number.isFinite(firstSuccess) ? seconds(firstSuccess - fault.healedAt) : null,
        // Drained at its heal when nothing acknowledged while it lasted came later (or none was).
        drainedS: backlogLost ? null : seconds(Math.max(fault.healedAt, drainedAt) - fault.healedAt),
        ...(fault.cut === true && { cut: true }),
      };
    });
    return {
      ...this.#counts,
      indeterminate: { ...this.#indeterminate },
      expectedKeys: this.#expectedKeys,
      lost: [...this.#lost],
      undelivered: [...this.#undelivered],
      duplicates: this.#duplicates,
      unexpected: arrivedKeys - this.#causedArrived,
      faults: recoveries,
    };
  }
}

/**
 * One pass over the iterations (an array, or a view that makes each as it is read: an hour's soak
 * has 720,000) through the checker; the arrived keys no kept iteration caused are the arrivals' count
 * less those that one did.
 */
export function checkSoak(
  iterations: Iterable<CheckedIteration>,
  arrivals: KeyArrivals,
  faults: readonly FaultWindow[],
  nearMs = nearFaultMs,
): SoakCheck {
  const checker = new SoakChecker(() => faults, nearMs);
  for (const iteration of iterations) checker.add(iteration, arrivals);
  return checker.result(arrivals.size);
}
