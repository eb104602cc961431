/**
 * mulberry32, a small seeded generator: the harness's resampling and shuffles draw from it, so the same
 * data always give the same intervals and orders. src/protocol/scenario.ts keeps its own copy of the
 * same function: that layer imports nothing of the harness, so k6 can load it.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
