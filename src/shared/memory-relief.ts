/**
 * Gives memory back after a big answer. V8 collects garbage when its heap has grown by a factor of what
 * survived the last collection, so against a target answering 10 MB bodies each request's copies (the
 * bytes, the text, the parsed value) pile up for hundreds of megabytes before a collection: the
 * conformance suite peaked near 1 GB that way with nothing kept (issue 25). After an answer of at least
 * `bigAnswerBytes`, once the process's resident memory passes `rssCeilingBytes`, a full collection
 * runs at once. Against ordinary targets nothing happens: answers are small and the ceiling is not reached.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Answers smaller than this never trigger a collection (a check of resident memory costs a syscall). */
export const bigAnswerBytes = 1024 * 1024;
const rssCeilingBytes = 160 * 1024 * 1024;

/** V8's exposed gc(); `flavor: 'last-resort'` is its memory-reducing collection (all garbage, pooled pages released). */
type Collect = (options?: { readonly type: 'major'; readonly flavor: 'regular' | 'last-resort' }) => void;
let collect: Collect | undefined;

function collector(): Collect {
  if (collect === undefined) {
    // The documented way to reach V8's collector from a running process without --expose-gc: the flag
    // makes each new context get a `gc` function.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Collect;
  }
  return collect;
}

/** V8's memory-reducing full collection: every garbage object, and the pages they sat on given back. */
const reducing = { type: 'major', flavor: 'last-resort' } as const;

let lastAt = Number.NEGATIVE_INFINITY;

/** How often a thread may collect after big answers, and how thoroughly. */
export interface CollectionPace {
  /** The least time between two collections. */
  readonly minIntervalMs: number;
  /** V8's memory-reducing flavour, which also gives back the pages the garbage sat on (3 times the pause). */
  readonly reducing: boolean;
  /** Also give the pages back once the big answers stop (`collectWhenSettled`). */
  readonly settles: boolean;
}

/**
 * A conformance case's answers come a few at a time: each big one is collected after, in the reducing
 * flavour (the suite against 10 MB answers peaked 110 MB higher with a 250 ms interval, and 10 to 30 MB
 * higher without the flavour).
 */
export const everyAnswer: CollectionPace = { minIntervalMs: 0, reducing: true, settles: false };

/**
 * An answer refused unread (its Content-Length passes the request's cap) leaves no body, but a run of
 * them piles up what ends at once (cases' errors and reports, dropped sockets and their first reads)
 * faster than V8 collects it and gives pages back. Against a target answering 50 MB to everything, with
 * at most four reducing collections a second after such refusals: the conformance suite peaked at 221 to
 * 243 MB (279 to 296 without), `load command --model closed` at 189 to 195 MB (300 to 350 without,
 * refusing 3,300 to 4,900 answers a second on new connections). Ordinary targets never come here.
 */
export const refusedAnswer: CollectionPace = { minIntervalMs: 250, reducing: true, settles: false };

/**
 * The load engine (both its transports) reads 1 MB values at hundreds per second: at most four regular
 * collections a second, so a collection's milliseconds never set the throughput.
 */
export const underLoad: CollectionPace = { minIntervalMs: 250, reducing: false, settles: false };

/**
 * The reference serves big values at the same pace, and, a process that stays up between runs, gives
 * the pages back once a burst is over: 3 s after the kv suite's 10 MB values, a `serve` process held
 * 306 MB without the settling, 117 MB with it.
 */
export const serving: CollectionPace = { ...underLoad, settles: true };

/**
 * Call after reading an answer of `bytes` bytes, or sending a request of that many (a 10 MB value sent
 * twice by a limits case left 60 MB more behind): collects garbage when it was big and memory is high,
 * at the `pace` of the caller.
 */
export function afterBigAnswer(bytes: number, pace: CollectionPace = everyAnswer): void {
  if (bytes < bigAnswerBytes) return;
  if (pace.settles) collectWhenSettled();
  const rss = process.memoryUsage.rss();
  if (rss < rssCeilingBytes) return;
  const now = performance.now();
  if (now - lastAt < pace.minIntervalMs) return;
  lastAt = now;
  collector()(pace.reducing ? reducing : undefined);
}

let settling: NodeJS.Timeout | undefined;

/**
 * Call when a burst let go of big buffers (the reference dropping a slow subscriber it held megabytes
 * for): a full collection runs `settleMs` after the last such call. An idle process runs no collection
 * of its own, so without one the dropped frames and the heap the burst grew stayed resident for good (a
 * `serve` process held 85 to 160 MB above idle after 40 slow subscribers were dropped). No ceiling here,
 * unlike after a big answer: a drop already says megabytes were let go, and a burst whose peak stayed
 * under the 160 MB ceiling (156 MB, on a CI machine whose cores other tests filled) kept them, 55 MB over
 * idle. One collection per burst, once it has settled. The timer is unref'd: it never keeps a process alive.
 */
export function collectWhenSettled(settleMs = 1_000): void {
  clearTimeout(settling);
  settling = setTimeout(() => {
    settling = undefined;
    collector()(reducing);
  }, settleMs);
  settling.unref();
}

/**
 * One memory-reducing collection, once a burst of work is over. V8 keeps the pages a heap grew to after
 * the garbage on them is gone. Called after vitest's first start in a process (`collectAfterFirstStart`:
 * its config and vite's server left the heap at 200 MB committed with 53 MB live, and nothing shrank it
 * during the run; a conformance run peaked 30 to 45 MB lower with this), once `serve` has started, and
 * between the two phases of `run` (its conformance, then its load: against a target answering 50 MB the
 * load phase peaked at 336 to 354 MB on the conformance phase's 300 without it).
 */
export function collectAfterBurst(): void {
  collector()(reducing);
}

let startCollected = false;

/**
 * `collectAfterBurst` after a start's burst (vitest's config and vite's server), the first time in a
 * process only. The first start is what sets a process's peak; a later start in the same process (the
 * programmatic API called again, as the self-validation's batches of one-rule runs do) reuses the pages the
 * first one grew, and a reducing collection there only made V8 grow them back: 6 one-rule kv runs in one
 * process took 9.0 CPU seconds with a collection after each start, 6.6 without.
 */
export function collectAfterFirstStart(): void {
  if (startCollected) return;
  startCollected = true;
  collectAfterBurst();
}
