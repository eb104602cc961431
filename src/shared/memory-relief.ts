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

let lastAt = Number.NEGATIVE_INFINITY;

/** The load engine's interval between collections after big answers (both of its transports). */
export const loadCollectIntervalMs = 250;

/**
 * Call after reading an answer of `bytes` bytes: collects garbage when it was big and memory is high,
 * if the last collection was at least `minIntervalMs` ago. A collection costs milliseconds: the load
 * engine, reading 1 MB values at hundreds per second, must not pay one per answer and passes an
 * interval; a conformance case's answers come few at a time and are collected after each (with 250 ms,
 * the suite against 10 MB answers peaked 110 MB higher).
 */
export function afterBigAnswer(bytes: number, minIntervalMs = 0): void {
  if (bytes < bigAnswerBytes) return;
  const rss = process.memoryUsage.rss();
  if (rss < rssCeilingBytes) return;
  const now = performance.now();
  if (now - lastAt < minIntervalMs) return;
  lastAt = now;
  collector()();
}

let settling: NodeJS.Timeout | undefined;

/**
 * Call when a burst let go of big buffers (the reference dropping a slow subscriber it held megabytes
 * for): a full collection runs `settleMs` after the last such call, if resident memory is still over
 * the ceiling. An idle process runs no collection of its own, so without one the dropped frames and
 * the heap the burst grew stayed resident for good (a `serve` process held 85 to 160 MB above idle
 * after 40 slow subscribers were dropped). The timer is unref'd: it never keeps a process alive.
 */
export function collectWhenSettled(settleMs = 1_000): void {
  clearTimeout(settling);
  settling = setTimeout(() => {
    settling = undefined;
    if (process.memoryUsage.rss() >= rssCeilingBytes) collector()({ type: 'major', flavor: 'last-resort' });
  }, settleMs);
  settling.unref();
}
