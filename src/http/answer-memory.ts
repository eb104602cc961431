/**
 * What the answers being read at one time may hold together. A case that sends eight requests at once,
 * or a set-up sixteen, to a target answering 50 MB each held 400–800 MB of bytes in flight, and the load
 * engine's sockets past 12 GB (issue 25). Past `limit` bytes, one answer (the lead) reads on and the
 * others pause until it or another ends, so that one always ends and frees its bytes; a paused reader
 * stops reading its socket, and TCP holds the rest at the target. Ordinary answers never come near the
 * limit. The one HTTP client and the load engine's socket pool each read within one.
 */

/** One answer being read at a time (a reader is reused for the next answer once released). */
export interface AnswerReader {
  /** Counts `bytes` more of the answer; true when it must pause until its `resume` is called. */
  hold(bytes: number): boolean;
  /** The answer is read or abandoned: its bytes are no longer counted, and it leaves any wait. */
  release(): void;
}

class Reader implements AnswerReader {
  held = 0;
  waiting = false;
  /** This answer waited once already (counted once). */
  waited = false;
  readonly #memory: AnswerMemory;
  readonly resume: () => void;

  constructor(memory: AnswerMemory, resume: () => void) {
    this.#memory = memory;
    this.resume = resume;
  }

  hold(bytes: number): boolean {
    return this.#memory.hold(this, bytes);
  }

  release(): void {
    this.#memory.release(this);
  }
}

export class AnswerMemory {
  readonly limit: number;
  #held = 0;
  #peak = 0;
  #lead: Reader | undefined;
  readonly #paused: Reader[] = [];
  /** How many answers waited for room: time the harness, not the target, added. */
  waits = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The most bytes the answers being read held at once. */
  get peak(): number {
    return this.#peak;
  }

  /** A reader whose `resume` is called when a pause it was told to take is over. */
  reader(resume: () => void): AnswerReader {
    return new Reader(this, resume);
  }

  hold(reader: Reader, bytes: number): boolean {
    this.#held += bytes;
    reader.held += bytes;
    if (this.#held > this.#peak) this.#peak = this.#held;
    if (this.#held <= this.limit || reader === this.#lead) return false;
    if (this.#lead === undefined) {
      this.#lead = reader;
      return false;
    }
    if (!reader.waited) {
      reader.waited = true;
      this.waits++;
    }
    reader.waiting = true;
    this.#paused.push(reader);
    return true;
  }

  release(reader: Reader): void {
    this.#held -= reader.held;
    reader.held = 0;
    reader.waited = false;
    if (reader.waiting) {
      reader.waiting = false;
      const at = this.#paused.indexOf(reader);
      if (at !== -1) this.#paused.splice(at, 1);
    }
    if (this.#lead === reader) this.#lead = undefined;
    while (this.#paused.length > 0 && (this.#lead === undefined || this.#held <= this.limit)) {
      const next = this.#paused.shift() as Reader;
      if (this.#held > this.limit) this.#lead = next;
      next.waiting = false;
      next.resume();
    }
  }
}

/**
 * Whether an answer is refused at its headers, unread: its Content-Length passes `max` and it has a body
 * (a HEAD answer, a 204 and a 304 have none, whatever length they declare: RFC 9110 §8.6). The HTTP
 * client and both load transports refuse such an answer so.
 */
export function refusedUnread(declared: number | undefined, max: number, status: number, head: boolean): boolean {
  return declared !== undefined && declared > max && !head && status !== 204 && status !== 304;
}

/** The HTTP client's budget: 64 MB of answers being read at once, for the process. */
export const answerMemory = new AnswerMemory(64 * 1024 * 1024);
