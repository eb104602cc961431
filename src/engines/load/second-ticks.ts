/**
 * A part's progress, once a second, on the seconds of its recorder: each call comes just after a
 * whole second since `origin` ended, so the recorder's last whole second is the one that just ended,
 * once each. A plain `setInterval(1000)` from when the load began drifts from those seconds, and can
 * fire a hair early (libuv measures timers from its loop's cached time): its first call saw no whole
 * second yet, and a later one could see a second twice or skip one.
 */
import { performance } from 'node:perf_hooks';

/** How long after a second's edge the call comes: answers ending on the edge are in. */
const afterEdgeMs = 5;

/** Calls `tick` after each whole second since `origin` (`performance.now()`'s clock); the result stops it. */
export function tickEachSecond(origin: number, tick: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // The next second's edge to wait for: the first one ahead.
  let edge = Math.max(1, Math.floor((performance.now() - origin) / 1000) + 1);
  const arm = () => {
    timer = setTimeout(
      () => {
        if (stopped) return;
        const now = performance.now();
        // Early (the loop's cached time was behind): wait the rest.
        if (now < origin + edge * 1000) return arm();
        edge = Math.floor((now - origin) / 1000) + 1;
        tick();
        if (!stopped) arm();
      },
      Math.max(0, origin + edge * 1000 + afterEdgeMs - performance.now()),
    );
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
