/** The gate's pure steps: a target whose cases all ended without a pass or a failure judged nothing. */
import { describe, expect, test } from 'vitest';
import { type CaseResult, judgedNothing } from '../../src/results/conformance-run.ts';
import type { Verdict } from '../../src/results/verdict.ts';
import { sampleResults } from '../reporters/sample-run.ts';

const only = (...verdicts: Verdict[]): CaseResult[] =>
  verdicts.map((verdict, index) => ({ ...sampleResults[0]!, caseId: `kv.case.${index}`, verdict }));

describe('judgedNothing', () => {
  test('all skipped, blocked or observed: one line with the counts and the first reason', () => {
    expect(
      judgedNothing(
        'kv-only',
        only(
          { kind: 'skip', reason: 'the target has no messaging area' },
          { kind: 'blocked', reason: 'set-up failed', rule: 'B.a' },
          { kind: 'observation', reason: 'seen' },
        ),
      ),
    ).toBe(
      'kv-only: judged nothing: none of its 3 cases passed or failed (1 blocked, 1 observation, 1 skip); first: kv.case.0: the target has no messaging area',
    );
  });

  test('one case that passed or failed (or a known failure) judged something', () => {
    for (const verdict of [
      { kind: 'pass' },
      { kind: 'fail', reason: 'x' },
      { kind: 'expected-failure', reason: 'known' },
      { kind: 'stale', reason: 'passed' },
    ] as const) {
      expect(judgedNothing('t', only({ kind: 'skip', reason: 'no admin hook' }, verdict))).toBeUndefined();
    }
  });

  test('no case, or an error (which fails the gate already): no line', () => {
    expect(judgedNothing('t', [])).toBeUndefined();
    expect(judgedNothing('t', only({ kind: 'skip', reason: 's' }, { kind: 'error', reason: 'down' }))).toBeUndefined();
  });
});
