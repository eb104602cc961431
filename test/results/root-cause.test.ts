/**
 * The root cause: named only when the reasons show it, in at least 80 % (and at least 5) of the cases
 * that failed, blocked or ended in error; what was expected never counts as what was seen.
 */
import { describe, expect, test } from 'vitest';
import { causesIn, rootCauseLine, rootCauseLines, rootCauseOf } from '../../src/results/root-cause.ts';
import type { Verdict } from '../../src/results/verdict.ts';
import { sampleRun, wrongTokenResults } from '../reporters/sample-run.ts';

const verdicts = (...list: Verdict[]) => list.map((verdict) => ({ verdict }));
const fail = (reason: string): Verdict => ({ kind: 'fail', reason, rule: 'B.a' });

describe('causesIn', () => {
  test('a status received, in the forms checks write it; never the one expected, never 2xx', () => {
    expect(causesIn('received status 401 (application/json) "x" / expected status 200')).toEqual(
      new Set(['status 401']),
    );
    expect(causesIn('the adapter could not create a queue: status 401 {"error":"unauthorized"}')).toEqual(
      new Set(['status 401']),
    );
    expect(causesIn('received status 200 / expected status 404')).toEqual(new Set());
    expect(causesIn('first answered 503, then status 500')).toEqual(new Set(['status 503', 'status 500']));
  });

  test('connections refused, reset or timed out', () => {
    expect(causesIn('the target refused the connection (ECONNREFUSED)')).toEqual(new Set(['connection refused']));
    expect(causesIn('GET / timed out after 10 s')).toEqual(new Set(['timed out']));
    expect(causesIn('Svc-Timeout was ignored')).toEqual(new Set());
  });
});

describe('rootCauseOf', () => {
  test('a wrong token: the 401 most failures share, counted of the cases that failed, blocked or errored', () => {
    const cause = rootCauseOf(wrongTokenResults(96, 4));
    expect(cause).toEqual({
      cause: 'status 401',
      cases: 96,
      of: 100,
      hint: 'check the token or credentials the target gives',
    });
    expect(rootCauseLine('prod', cause!)).toBe(
      'root cause: prod: 96 of 100 cases that failed, blocked or ended in error saw status 401: check the token or credentials the target gives',
    );
  });

  test('under 80 % shared: no root cause, the verdicts speak for themselves', () => {
    expect(rootCauseOf(wrongTokenResults(79, 21))).toBeUndefined();
    expect(rootCauseOf(wrongTokenResults(80, 20))?.cases).toBe(80);
  });

  test('too few cases to summarise: none', () => {
    expect(rootCauseOf(wrongTokenResults(4, 0))).toBeUndefined();
    expect(rootCauseOf(wrongTokenResults(5, 0))?.of).toBe(5);
  });

  test('passes, skips and observations are not what a root cause explains', () => {
    const many = Array.from({ length: 20 }, () => ({ kind: 'observation', reason: 'status 401 text' }) as const);
    expect(rootCauseOf(verdicts(...many, ...Array.from({ length: 5 }, () => fail('status 500'))))).toMatchObject({
      cause: 'status 500',
      of: 5,
      hint: 'the target fails on its side: see its logs',
    });
  });

  test('failures with different reasons: none', () => {
    expect(rootCauseOf(verdicts(...['a', 'b', 'c', 'd', 'e', 'f'].map((reason) => fail(`received ${reason}`))))).toBe(
      undefined,
    );
  });
});

describe('rootCauseLines', () => {
  test('one line per target that has one; a target that could not be used has its problem instead', () => {
    const cases = wrongTokenResults(10, 0);
    const target = { ...sampleRun.targets[0]!, name: 'wrong', cases };
    expect(rootCauseLines({ targets: [sampleRun.targets[0]!, target] })).toEqual([
      expect.stringMatching(/^root cause: wrong: 10 of 10 cases .* saw status 401: check the token/),
    ]);
    expect(rootCauseLines({ targets: [{ ...target, problem: 'refused' }] })).toEqual([]);
  });
});
