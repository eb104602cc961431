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
    // The HTTP client's own words for no answer.
    expect(causesIn('http://h:1 did not answer within 10000 ms')).toEqual(new Set(['timed out']));
    expect(causesIn('http://h:1 closed the connection without an answer (UND_ERR_SOCKET)')).toEqual(
      new Set(['connection reset']),
    );
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

  test('cases blocked on one broken capability: the rule it is, and the case failing it to fix first', () => {
    const blocked: Verdict = {
      kind: 'blocked',
      reason: 'it rests on plain-replies, which did not work',
      rule: 'B.enc',
    };
    const cause = rootCauseOf(
      verdicts(
        ...Array.from({ length: 8 }, () => blocked),
        { kind: 'fail', reason: 'received x', rule: 'B.enc' },
        fail('y'),
      ),
    );
    expect(cause).toEqual({
      cause: 'B.enc broken (8 blocked on it, 1 failing it)',
      cases: 9,
      of: 10,
      hint: 'the blocked cases rest on what B.enc judges: fix the case failing it first',
    });
    // Blocked on several rules, none holding four in five: no cause.
    const spread = ['B.x', 'B.y'].flatMap((rule) => Array.from({ length: 4 }, () => ({ ...blocked, rule })));
    expect(rootCauseOf(verdicts(...spread))).toBeUndefined();
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

describe('a target that stopped answering during the run', () => {
  const stop = {
    lastAnswer: { caseId: 'kv.a', at: '2026-11-28T17:40:12.345Z' },
    firstSilence: { caseId: 'kv.b', at: '2026-11-28T17:40:12.401Z' },
  };
  const refused: Verdict = { kind: 'error', reason: 'http://h:1 refused the connection' };
  const notRun: Verdict = { kind: 'error', reason: 'not run: the target stopped answering during the run: …' };
  const results = [
    { verdict: { kind: 'pass' } as Verdict },
    { verdict: refused },
    { verdict: refused },
    ...Array.from({ length: 6 }, () => ({ verdict: notRun, stop })),
    { verdict: fail('received status 400') },
  ];

  test('is said so, with its last answer, the first case that got none, the times and how it went silent', () => {
    const cause = rootCauseOf(results);
    expect(cause).toEqual({
      cause: 'the target stop answering during the run',
      cases: 8,
      of: 9,
      hint: 'its last answer came at 2026-11-28T17:40:12.345Z (to kv.a); the first case to get none: kv.b, at 2026-11-28T17:40:12.401Z (connection refused); see whether it crashed or restarted then',
    });
    expect(rootCauseLine('ref', cause!)).toMatch(
      /^root cause: ref: 8 of 9 cases that failed, blocked or ended in error saw the target stop answering during the run: its last answer came at/,
    );
  });

  test('a target that never answered a case says so; too few silent cases name no stop', () => {
    const { lastAnswer: _, ...silentFromStart } = stop;
    expect(
      rootCauseOf([...results.slice(0, 3), { verdict: notRun, stop: silentFromStart }, ...results.slice(3)])?.hint,
    ).toMatch(/^no case got an answer \(only the probe before the run did\); the first case to get none: kv.b/);
    const mostlyFailing = [...results, ...Array.from({ length: 4 }, () => ({ verdict: fail('received "x"') }))];
    expect(rootCauseOf(mostlyFailing)).toBeUndefined();
  });
});
