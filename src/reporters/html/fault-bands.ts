/**
 * A soak's faults as bands over index.html's charts of time (issue 39 item 5: the timeline with fault
 * bands over throughput, latency and errors). The reporter hears each fault start and heal as it
 * happens (`onFault`, seconds from the faults' time 0: the first scenario's measured load) and each
 * scenario's measured load start (`onPhase`); a band is placed on a scenario's charts in the seconds of
 * its own series, whose 0 is its own load's start, so scenarios run one after another get theirs where
 * they struck.
 */
import type { FaultChange, PhaseChange } from '../../results/reporter.ts';

/** One fault on a chart's x axis (seconds since the scenario's measured load began). */
export interface FaultBand {
  readonly from: number;
  readonly to: number;
  /** The occurrence and its spec: `f1-2 kill every 10m`. */
  readonly label: string;
}

interface Heard {
  readonly id: string;
  readonly fault: string;
  startS: number;
  endS?: number;
}

export class FaultTimeline {
  readonly #now: () => number;
  /** Unix ms of the first measured load's start: the faults' time 0. */
  #origin: number | undefined;
  readonly #loadStarts = new Map<string, number>();
  readonly #faults = new Map<string, Heard>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  onPhase(change: PhaseChange): void {
    if (change.phase !== 'load' || change.edge !== 'start' || this.#loadStarts.has(change.scenario)) return;
    const at = this.#now();
    this.#origin ??= at;
    this.#loadStarts.set(change.scenario, at);
  }

  onFault(change: FaultChange): void {
    if (change.edge === 'start') {
      this.#faults.set(change.id, { id: change.id, fault: change.fault, startS: change.elapsedS });
      return;
    }
    const heard = this.#faults.get(change.id);
    if (heard !== undefined) heard.endS = change.elapsedS;
    else
      this.#faults.set(change.id, {
        id: change.id,
        fault: change.fault,
        startS: change.elapsedS,
        endS: change.elapsedS,
      });
  }

  /**
   * The bands over a scenario's series from second 0 to `lastS`: each fault that overlapped it, cut to
   * it; one still on when the run ended reaches the end. None when the run had no faults.
   */
  bandsFor(scenario: string, lastS: number): FaultBand[] {
    const start = this.#loadStarts.get(scenario);
    if (start === undefined || this.#origin === undefined) return [];
    const shift = (this.#origin - start) / 1000;
    const bands: FaultBand[] = [];
    for (const heard of this.#faults.values()) {
      const from = Math.max(0, heard.startS + shift);
      const to = Math.min(lastS, (heard.endS ?? Number.POSITIVE_INFINITY) + shift);
      if (to < 0 || from > lastS) continue;
      // A kill is healed when the restarted process is ready: its band is as wide as the outage.
      bands.push({ from, to: Math.max(from, to), label: `${heard.id} ${heard.fault}` });
    }
    return bands.sort((a, b) => a.from - b.from);
  }
}
