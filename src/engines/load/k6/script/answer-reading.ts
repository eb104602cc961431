/**
 * What a k6 VU reads of its answers, within the scenario's cap on one answer (issue 36). k6's `k6/http`
 * has no bounded read: every `responseType` reads the whole body, 'text' and 'binary' into memory,
 * 'none' into nothing (32 KB at a time, then dropped), and a response shows its headers only once its
 * body is in. The node engine refuses an answer whose Content-Length passes the cap unread, and stops
 * reading one that passes it; k6 can do neither. Against a target answering 50 MB a request, each read
 * held its 50 MB and Go's buffer of 64 MB until the next collection, and the VUs reading at once passed
 * 2 GB within three seconds (10 GB in 25 s with 'text', whose checks then parsed each answer for
 * seconds while k6 started more VUs for the arrivals waiting).
 *
 * So a VU reads as bytes ('binary': one copy, no string made of it) until an answer passes the cap,
 * which is garbage and its check sees none, as on node. From then on it reads with 'none', in which
 * nothing is kept, and judges each answer by its Content-Length: past the cap, garbage (what the node
 * engine refuses unread: the same verdict); within it, the body is already gone, so its check sees no
 * answer (unknown, as for an answer that did not come), it is counted under `answers_unread`, and the
 * VU reads as bytes again. An answer with no length declared (chunked) cannot be weighed unread: it is
 * judged as the last one weighed (garbage past the cap), counted under `answers_judged_unread`, and
 * every `probeEvery`-th such answer is read as bytes to weigh it again (within the cap: back to bytes).
 * Those two counters are where k6 differs from node, which checks every answer within the cap and
 * weighs every one past it: a target that answers within the cap never meets them, and one whose
 * answers all pass it (with a length, or without) is judged as on node.
 *
 * With the harness's k6 extension (src/engines/load/k6/extension/answercap.go), none of that: the VU's
 * transport reads an answer only up to the cap, as the node engine does, so every answer is read as
 * bytes and judged by `boundedFate`, and the two counters stay at zero.
 *
 * Pure: no k6 module, so Node's tests run it. One instance per VU and scenario (module state is a VU's).
 */

/** Answers read into nothing after one past the cap and found within it: their checks saw none. */
export const unreadCounter = 'answers_unread';

/** Answers read into nothing with no length declared, judged past the cap as the last one weighed. */
export const judgedUnreadCounter = 'answers_judged_unread';

/** In 'none' mode, one chunked answer in this many is read as bytes, to weigh it again. */
export const probeEvery = 16;

/** How one answer ended, for its check. */
export type AnswerFate =
  /** Read as bytes within the cap: the check reads its text. */
  | 'read'
  /** Past the cap (its bytes, or its Content-Length): garbage, the check sees none. */
  | 'too-long'
  /** No length declared, read into nothing, judged past the cap as the last one weighed: garbage. */
  | 'judged-too-long'
  /** Read into nothing, and its length within the cap: the check sees none. */
  | 'unread';

export type ReadMode = 'binary' | 'none';

/**
 * Whether a Content-Length passes `max` on an answer that has a body (a 204 and a 304 have none,
 * whatever they declare: RFC 9110 §8.6), as src/http/answer-memory.ts's `refusedUnread`, which this
 * folder may not import (a scenario sends GET or POST, never HEAD).
 */
function declaredPast(declared: number, max: number, status: number): boolean {
  return declared > max && status !== 204 && status !== 304;
}

export class AnswerReading {
  readonly maxBytes: number;
  #discarding = false;
  /** Chunked answers read into nothing since the last one weighed. */
  #unweighed = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The `responseType` of the VU's next request. */
  get mode(): ReadMode {
    return this.#discarding && this.#unweighed < probeEvery - 1 ? 'none' : 'binary';
  }

  /**
   * Judges an answer read in `mode`: `size`, the bytes read ('binary'), `declared`, its Content-Length
   * (undefined when absent). Only answers that came: a request with no answer changes nothing.
   */
  judge(answer: {
    readonly mode: ReadMode;
    readonly status: number;
    readonly size: number;
    readonly declared: number | undefined;
  }): AnswerFate {
    if (answer.mode === 'binary') {
      this.#unweighed = 0;
      this.#discarding = answer.size > this.maxBytes;
      return this.#discarding ? 'too-long' : 'read';
    }
    if (answer.declared === undefined) {
      this.#unweighed++;
      return 'judged-too-long';
    }
    if (declaredPast(answer.declared, this.maxBytes, answer.status)) return 'too-long';
    this.#discarding = false;
    return 'unread';
  }
}

/**
 * The harness's k6 extension (`k6/x/svc-harness`), handed to the script by the entry when the k6 that
 * runs it has it (a k6 without it refuses a script that imports it).
 */
export interface AnswerCap {
  /** Caps every later answer of this VU at `maxBytes` (VU context only: setup, an iteration, teardown). */
  bound(maxBytes: number): void;
  /** The header on an answer whose body passed the cap (refused at its Content-Length, or cut short). */
  readonly pastCapHeader: string;
}

/**
 * An answer read through the extension: past the cap when it says so (its body is at most the cap and
 * a byte, or none), or, as a safeguard, when more than the cap came; else read whole, as on node.
 */
export function boundedFate(
  answer: { readonly pastCap: boolean; readonly size: number },
  maxBytes: number,
): AnswerFate {
  return answer.pastCap || answer.size > maxBytes ? 'too-long' : 'read';
}

/** A Content-Length as k6 shows it (a header's value, a string), or undefined. */
export function contentLength(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
