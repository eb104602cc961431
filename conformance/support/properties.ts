/**
 * Property-based checks (fast-check) against a target: bounded runs, no shrinking (each run is a
 * network round trip), a time limit, and a fixed seed printed with any failure so it can be replayed
 * with SVC_FC_SEED.
 */
import fc from 'fast-check';
import { CheckFailure, isCheckFailure } from '../../src/suite-kit/suite-api.ts';

/** The seed of every property case: SVC_FC_SEED, else a fixed value, so runs are reproducible. */
export const propertySeed: number = Number.parseInt(process.env.SVC_FC_SEED ?? '', 10) || 20_261_121;

export interface PropertyOptions {
  readonly numRuns: number;
  /** @default 15_000 */
  readonly timeLimitMs?: number;
}

/**
 * Runs the property; a failing run becomes one CheckFailure naming the seed and the counterexample.
 * Returns a note on how many runs were made (fewer than asked when the time limit interrupted it).
 */
export async function checkProperty<Ts>(property: fc.IAsyncProperty<Ts>, options: PropertyOptions): Promise<string> {
  const details = await fc.check(property, {
    seed: propertySeed,
    numRuns: options.numRuns,
    endOnFailure: true,
    plugins: [fc.interruptAfterTimeLimit(options.timeLimitMs ?? 15_000)],
  });
  if (!details.failed) {
    const cut = details.interrupted ? ' (interrupted by the time limit)' : '';
    return `${details.numRuns} runs with fast-check seed ${details.seed}${cut}`;
  }
  const example = JSON.stringify(details.counterexample, (_key, value: unknown) =>
    value instanceof Uint8Array ? `bytes ${Buffer.from(value).toString('hex')}` : value,
  );
  const replay = `fast-check seed ${details.seed}, path ${details.counterexamplePath}, counterexample ${example.length > 120 ? `${example.slice(0, 120)}…` : example}`;
  const error = details.errorInstance;
  if (isCheckFailure(error)) throw new CheckFailure(error.rule, error.received, error.expected, replay);
  // A transport failure or garbage answer, a blocked step, a harness defect: never a property's failure.
  throw error;
}

/**
 * One code point, any but a surrogate (fast-check's `unit: 'binary'`, the same set). Not that unit
 * itself: its first use builds a reverse table of all 1.1 million code points, 59 MB that fast-check
 * keeps for the process, and so for the rest of every conformance run (issue 25, found in a heap
 * snapshot of the suite's worker).
 */
const codePoint = (): fc.Arbitrary<string> =>
  fc
    .integer({ min: 0, max: 0x10ffff - surrogateCount })
    .map((n) => String.fromCodePoint(n < firstSurrogate ? n : n + surrogateCount));
const firstSurrogate = 0xd800;
const surrogateCount = 0x800;

/**
 * Byte strings biased towards invalid UTF-8: raw bytes, high bytes only, and valid text with a bad byte.
 * Arbitraries are built on call, not at import: every run imports the case files, few run properties.
 */
export const byteValues = (): fc.Arbitrary<Uint8Array> =>
  fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 200 }),
    fc
      .array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 40 })
      .map((bytes) => Uint8Array.from(bytes)),
    fc
      .tuple(
        fc.string({ unit: codePoint(), maxLength: 30 }),
        fc.integer({ min: 0x80, max: 0xff }),
        fc.string({ maxLength: 10 }),
      )
      .map(([a, bad, b]) => Uint8Array.from([...Buffer.from(a), bad, ...Buffer.from(b)])),
  );

/** Unicode text: graphemes (combining marks, emoji) and any code point but lone surrogates. */
export const unicodeText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
    fc.string({ unit: codePoint(), minLength: 1, maxLength: 20 }),
  );
