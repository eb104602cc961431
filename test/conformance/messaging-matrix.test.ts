/**
 * The callback matrix's oracle, checked against the spec's sentences one combination at a time: what
 * the sink must get follows the attempts it saw (how many retries a message gets is the target's).
 */
import { describe, expect, test } from 'vitest';
import { combinations, expectedFor } from '../../conformance/messaging/matrix.cases.ts';
import type { SinkRequest } from '../../src/suite-kit/suite-api.ts';

/** Attempts answered with these statuses, as the sink records them (only `answered` is read). */
const attempts = (...statuses: number[]): SinkRequest[] =>
  statuses.map((answered) => ({ answered }) as unknown as SinkRequest);

describe('the callback matrix oracle', () => {
  test('covers callback, failure callback, both and neither × three destinations × methods set or not', () => {
    expect(combinations).toHaveLength(24);
    expect(new Set(combinations.map((item) => JSON.stringify(item))).size).toBe(24);
  });

  test.each([
    [
      { callbacks: 'neither', destination: 'always-fails', configured: false },
      [500, 500],
      { callbacks: 0, failures: 0 },
    ],
    [{ callbacks: 'callback', destination: 'succeeds', configured: false }, [200], { callbacks: 1, failures: 0 }],
    [{ callbacks: 'callback', destination: 'fails-once', configured: true }, [500, 200], { callbacks: 2, failures: 0 }],
    [{ callbacks: 'failure', destination: 'fails-once', configured: false }, [500, 200], { callbacks: 0, failures: 0 }],
    // A target whose own retries are none: the one failed attempt spends them.
    [{ callbacks: 'failure', destination: 'fails-once', configured: false }, [500], { callbacks: 0, failures: 1 }],
    [
      { callbacks: 'failure', destination: 'always-fails', configured: false },
      [500, 500],
      { callbacks: 0, failures: 1 },
    ],
    // A target that ignores the retries asked (one) and uses its own three.
    [
      { callbacks: 'both', destination: 'always-fails', configured: true },
      [500, 500, 500, 500],
      { callbacks: 4, failures: 1 },
    ],
  ] as const)('%j after attempts %j', (combination, statuses, expected) => {
    expect(expectedFor(combination, attempts(...statuses))).toMatchObject(expected);
  });

  test('the method headers set PUT for callbacks and PATCH for failure callbacks, POST otherwise', () => {
    expect(expectedFor({ callbacks: 'both', destination: 'succeeds', configured: true }, attempts(200))).toMatchObject({
      callbackMethod: 'PUT',
      failureMethod: 'PATCH',
      callbackDelayMs: 1000,
    });
    expect(expectedFor({ callbacks: 'both', destination: 'succeeds', configured: false }, attempts(200))).toMatchObject(
      { callbackMethod: 'POST', failureMethod: 'POST', callbackDelayMs: 0 },
    );
  });
});
