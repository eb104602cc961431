/** The callback matrix's oracle, checked against the spec's sentences one combination at a time. */
import { describe, expect, test } from 'vitest';
import { combinations, expectedFor } from '../../conformance/messaging/matrix.cases.ts';

describe('the callback matrix oracle', () => {
  test('covers callback, failure callback, both and neither × three destinations × methods set or not', () => {
    expect(combinations).toHaveLength(24);
    expect(new Set(combinations.map((item) => JSON.stringify(item))).size).toBe(24);
  });

  test.each([
    [
      { callbacks: 'neither', destination: 'always-fails', configured: false },
      { attempts: 2, callbacks: 0, failures: 0 },
    ],
    [
      { callbacks: 'callback', destination: 'succeeds', configured: false },
      { attempts: 1, callbacks: 1, failures: 0 },
    ],
    [
      { callbacks: 'callback', destination: 'fails-once', configured: true },
      { attempts: 2, callbacks: 2, failures: 0 },
    ],
    [
      { callbacks: 'failure', destination: 'fails-once', configured: false },
      { attempts: 2, callbacks: 0, failures: 0 },
    ],
    [
      { callbacks: 'failure', destination: 'always-fails', configured: false },
      { attempts: 2, callbacks: 0, failures: 1 },
    ],
    [
      { callbacks: 'both', destination: 'always-fails', configured: true },
      { attempts: 2, callbacks: 2, failures: 1 },
    ],
  ] as const)('%j', (combination, expected) => {
    expect(expectedFor(combination)).toMatchObject(expected);
  });

  test('the method headers set PUT for callbacks and PATCH for failure callbacks, POST otherwise', () => {
    expect(expectedFor({ callbacks: 'both', destination: 'succeeds', configured: true })).toMatchObject({
      callbackMethod: 'PUT',
      failureMethod: 'PATCH',
    });
    expect(expectedFor({ callbacks: 'both', destination: 'succeeds', configured: false })).toMatchObject({
      callbackMethod: 'POST',
      failureMethod: 'POST',
    });
  });
});
