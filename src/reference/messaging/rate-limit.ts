/**
 * The plan's requests per second (spec "Errors": 429 when exceeded), counted in one-second windows
 * in this process: the reference is one process, and a limit that survives a restart would only
 * refuse the first second after it.
 */
export class RateLimit {
  #second = 0;
  #count = 0;

  /** Counts one request; false when it is over `perSecond` in the current second. */
  take(perSecond: number, now = Date.now()): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#count = 0;
    }
    this.#count += 1;
    return this.#count <= perSecond;
  }
}
