/**
 * A live second's summary without the encode and decode: the same as the report's series reads it
 * (encoded, decoded and added), min and max at their buckets' edges, over histograms of many shapes.
 */
import { describe, expect, test } from 'vitest';
import {
  encodeHistogram,
  mergeEncoded,
  newSecondHistogram,
  recordMs,
  summarize,
  summarizeAsDecoded,
} from '../../src/results/histogram.ts';

/** A small deterministic generator (no Math.random: a failure reproduces). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('summarizeAsDecoded', () => {
  test("equals the summary of the histogram encoded and decoded, where summarize's max does not", () => {
    const random = lcg(7);
    let maxDiffered = 0;
    for (let trial = 0; trial < 300; trial++) {
      const live = newSecondHistogram();
      const spread = [5, 50, 5_000][trial % 3] as number;
      const samples = 1 + Math.floor(random() * 400);
      for (let i = 0; i < samples; i++) recordMs(live, random() * random() * spread);
      const decoded = summarize(mergeEncoded([encodeHistogram(live)], newSecondHistogram));
      expect(summarizeAsDecoded(live), `trial ${trial}`).toEqual(decoded);
      if (summarize(live).max !== decoded.max) maxDiffered++;
    }
    // The case it exists for: a live histogram's exact max is not its bucket's edge.
    expect(maxDiffered).toBeGreaterThan(100);
  });

  test('an empty histogram is all zeros', () => {
    expect(summarizeAsDecoded(newSecondHistogram())).toEqual(summarize(newSecondHistogram()));
  });
});
