/**
 * What the sink records beside its inboxes, from whichever thread saw it: requests no open inbox
 * expected (strays, late ones), what went wrong on its own side, and when the last request of any kind
 * came (a case's drought detection asks). Kept on the calling thread; the sink threads post theirs.
 */
import type { StrayRequest } from './sink-request.ts';

export class SinkLog {
  readonly strays: StrayRequest[] = [];
  readonly problems: string[] = [];
  #lastArrivalAt = 0;

  /** Unix milliseconds of the last request of any kind; 0 before the first. */
  get lastArrivalAt(): number {
    return this.#lastArrivalAt;
  }

  /** A request came at `at` (fractional ms: counting inboxes time with performance.now). */
  arrived(at: number): void {
    this.#lastArrivalAt = Math.max(this.#lastArrivalAt, Math.floor(at));
  }

  stray(item: StrayRequest): void {
    this.arrived(item.at);
    this.strays.push(item);
  }

  /** Each line once: a classifier that throws on every request is one problem, not thousands. */
  problem(line: string): void {
    if (!this.problems.includes(line)) this.problems.push(line);
  }
}
