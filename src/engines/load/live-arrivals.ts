/**
 * One stream's arrivals as they come, for the live outputs (issue 38, `LoadProgress.messages`): every
 * arrival, the repeats (a key that had arrived before: a duplicate, or an unexpected key again), and the
 * latency of the first arrivals since the last take. Which keys are expected is only known once the
 * load ended, so this counts what the sink sees, not received or lost; the end's accounting has those.
 * The counts are cumulative (a progress event a consumer missed loses nothing); the histogram is of
 * one interval (one progress event, a second), reset by each take, so a take costs one summary.
 */
import { newSecondHistogram, recordMs, summarize } from '../../results/histogram.ts';
import type { MessageProgress } from '../../results/reporter.ts';

export class LiveArrivals {
  readonly #stream: MessageProgress['stream'];
  #arrived = 0;
  #repeated = 0;
  readonly #histogram = newSecondHistogram();

  constructor(stream: MessageProgress['stream']) {
    this.#stream = stream;
  }

  /** One arrival; `latencyMs` only for a first arrival whose start is known. */
  arrive(first: boolean, latencyMs: number | undefined): void {
    this.#arrived++;
    if (!first) this.#repeated++;
    else if (latencyMs !== undefined) recordMs(this.#histogram, latencyMs);
  }

  /** Whether anything arrived yet (a stream nothing reached is in no progress event). */
  get any(): boolean {
    return this.#arrived > 0;
  }

  /** The counts so far, and the first arrivals' latency since the last take (which this resets). */
  take(): MessageProgress {
    const latencyMs = summarize(this.#histogram);
    this.#histogram.reset();
    return { stream: this.#stream, arrived: this.#arrived, repeated: this.#repeated, latencyMs };
  }
}
