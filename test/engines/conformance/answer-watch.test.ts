/**
 * When the target stopped answering, as the cases tell it while they end (in any order: cases run
 * concurrently, so moments are compared by time).
 */
import { describe, expect, test } from 'vitest';
import { AnswerWatch, stalledAfterCases } from '../../../src/engines/conformance/answer-watch.ts';

const at = (ms: number) => new Date(ms).toISOString();

describe('AnswerWatch', () => {
  test('after three cases in a row with no answer: the last answer and the first silence after it, with times', () => {
    const watch = new AnswerWatch();
    watch.caseEnded('a', { lastAnswerAt: 1_000, silentSince: undefined }, undefined);
    watch.caseEnded('b', { lastAnswerAt: 3_000, silentSince: 3_500 }, 'refused', 3_600);
    // Ended later, but its last answer came before b's (b's stays the last) and it went silent first.
    watch.caseEnded('c', { lastAnswerAt: 2_000, silentSince: 3_400 }, 'refused', 3_700);
    expect(watch.stopped()).toBeUndefined();
    watch.caseEnded('d', { lastAnswerAt: undefined, silentSince: undefined }, 'reset', 4_000);
    const stopped = watch.stopped();
    expect(stalledAfterCases).toBe(3);
    expect(stopped?.stop).toEqual({
      lastAnswer: { caseId: 'b', at: at(3_000) },
      firstSilence: { caseId: 'c', at: at(3_400) },
    });
    expect(stopped?.reason).toBe(
      `not run: the target stopped answering during the run: its last answer came at ${at(3_000)} (to b); the first case to get none: c, at ${at(3_400)}; 3 cases in a row got no whole answer (refused, reset, timed out or endless; the last: reset)`,
    );
  });

  test('an answer ends the streak; a silence before a later answer is no stop', () => {
    const watch = new AnswerWatch();
    watch.caseEnded('a', { lastAnswerAt: undefined, silentSince: 100 }, 'refused', 150);
    watch.caseEnded('b', { lastAnswerAt: undefined, silentSince: 200 }, 'refused', 250);
    watch.caseEnded('c', { lastAnswerAt: 300, silentSince: undefined }, undefined);
    expect(watch.stopped()).toBeUndefined();
    for (const [id, time] of [
      ['d', 400],
      ['e', 500],
      ['f', 600],
    ] as const) {
      watch.caseEnded(id, { lastAnswerAt: undefined, silentSince: time }, 'timed out', time + 10);
    }
    expect(watch.stopped()?.stop).toEqual({
      lastAnswer: { caseId: 'c', at: at(300) },
      firstSilence: { caseId: 'd', at: at(400) },
    });
  });

  test('a case that went silent without a request going unanswered (a stream) went silent when it ended', () => {
    const watch = new AnswerWatch();
    for (const id of ['a', 'b', 'c']) watch.caseEnded(id, { lastAnswerAt: undefined, silentSince: undefined }, 'x', 42);
    expect(watch.stopped()?.stop).toEqual({ firstSilence: { caseId: 'a', at: at(42) } });
  });
});
