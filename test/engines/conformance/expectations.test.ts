import { describe, expect, test } from 'vitest';
import { applyExpectations, parseExpectations, utcDay } from '../../../src/engines/conformance/expectations.ts';
import type { CaseResult } from '../../../src/results/conformance-run.ts';
import type { Verdict } from '../../../src/results/verdict.ts';

const known = { caseIds: new Set(['kv.a', 'kv.b']), ruleIds: new Set(['B.x', 'B.y']) };
const parse = (value: unknown) => parseExpectations(value, 'e.json', known);

const result = (caseId: string, rules: string[], verdict: Verdict, target = 't'): CaseResult => ({
  target,
  area: 'kv',
  file: 'conformance/kv/a.test.ts',
  caseId,
  rules,
  title: caseId,
  expect: '',
  verdict,
  notes: [],
  durationMs: 1,
});
const fail: Verdict = { kind: 'fail', reason: 'received 1 / expected 2', rule: 'B.x' };

describe('parseExpectations', () => {
  test('accepts case and rule entries with optional target and expiry', () => {
    const value = {
      expectations: [
        { case: 'kv.a', reason: 'r' },
        { rule: 'B.x', reason: 'r', expires: '2030-01-31', target: 'prod' },
      ],
    };
    expect(parse(value)).toHaveLength(2);
  });

  test.each([
    [{}, "top level must have required property 'expectations'"],
    [{ expectations: [{ case: 'kv.a' }] }, "expectations.0 must have required property 'reason'"],
    [{ expectations: [{ reason: 'r' }] }, 'expectations.0 needs exactly one of case and rule'],
    [
      { expectations: [{ case: 'kv.a', rule: 'B.x', reason: 'r' }] },
      'expectations.0 needs exactly one of case and rule',
    ],
    [{ expectations: [{ case: 'kv.zzz', reason: 'r' }] }, 'expectations.0 names unknown case "kv.zzz"'],
    [{ expectations: [{ rule: 'B.zzz', reason: 'r' }] }, 'expectations.0 names unknown rule "B.zzz"'],
    [{ expectations: [{ rule: 'B.x', reason: 'r', expires: 'soon' }] }, 'expectations.0.expires must match pattern'],
    [{ expectations: [{ rule: 'B.x', reason: 'r', extra: 1 }] }, 'expectations.0 must NOT have additional properties'],
  ])('rejects %j in one line', (value, message) => {
    expect(() => parse(value)).toThrow(message);
    try {
      parse(value);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
      expect((error as { code: string }).code).toBe('SVC_CONFIG');
    }
  });
});

describe('applyExpectations', () => {
  const today = utcDay(new Date('2026-06-15T12:00:00Z'));

  test('a failing case covered by an unexpired expectation is an expected failure', () => {
    const [out] = applyExpectations([result('kv.a', ['B.x'], fail)], [{ case: 'kv.a', reason: 'known bug' }], today);
    expect(out?.verdict).toEqual({
      kind: 'expected-failure',
      reason: 'known bug (known failure: received 1 / expected 2)',
      rule: 'B.x',
    });
  });

  test('a rule expectation absorbs only a failure on its rule, not another rule of the same case', () => {
    const onOther = { kind: 'fail', reason: 'received 1 / expected 2', rule: 'B.y' } as const;
    const [other] = applyExpectations([result('kv.m', ['B.x', 'B.y'], onOther)], [{ rule: 'B.x', reason: 'r' }], today);
    expect(other?.verdict).toEqual(onOther);
    const onOwn = { ...onOther, rule: 'B.x' };
    const [own] = applyExpectations([result('kv.m', ['B.x', 'B.y'], onOwn)], [{ rule: 'B.x', reason: 'r' }], today);
    expect(own?.verdict.kind).toBe('expected-failure');
  });

  test('the expiry day itself still holds; the day after, the failure counts', () => {
    const onDay = applyExpectations(
      [result('kv.a', ['B.x'], fail)],
      [{ case: 'kv.a', reason: 'r', expires: '2026-06-15' }],
      today,
    );
    expect(onDay[0]?.verdict.kind).toBe('expected-failure');
    const after = applyExpectations(
      [result('kv.a', ['B.x'], fail)],
      [{ case: 'kv.a', reason: 'r', expires: '2026-06-14' }],
      today,
    );
    expect(after[0]?.verdict).toMatchObject({ kind: 'fail', reason: expect.stringContaining('expired on 2026-06-14') });
  });

  test('a passing case covered by a case expectation is stale', () => {
    const [out] = applyExpectations(
      [result('kv.a', ['B.x'], { kind: 'pass' })],
      [{ case: 'kv.a', reason: 'r' }],
      today,
    );
    expect(out?.verdict.kind).toBe('stale');
  });

  test('a rule expectation is stale only when no case of the rule failed', () => {
    const results = [result('kv.a', ['B.x'], fail), result('kv.b', ['B.x'], { kind: 'pass' })];
    const out = applyExpectations(results, [{ rule: 'B.x', reason: 'r' }], today);
    expect(out.map((item) => item.verdict.kind)).toEqual(['expected-failure', 'pass']);
    const allPass = applyExpectations(
      [result('kv.b', ['B.x'], { kind: 'pass' })],
      [{ rule: 'B.x', reason: 'r' }],
      today,
    );
    expect(allPass[0]?.verdict.kind).toBe('stale');
  });

  test('an expired expectation on a passing case is not stale', () => {
    const [out] = applyExpectations(
      [result('kv.a', ['B.x'], { kind: 'pass' })],
      [{ case: 'kv.a', reason: 'r', expires: '2020-01-01' }],
      today,
    );
    expect(out?.verdict.kind).toBe('pass');
  });

  test('a target-scoped expectation leaves other targets alone; skips and errors are untouched', () => {
    const out = applyExpectations(
      [result('kv.a', ['B.x'], fail, 'staging'), result('kv.b', ['B.y'], { kind: 'skip', reason: 'no admin' })],
      [
        { case: 'kv.a', reason: 'r', target: 'prod' },
        { case: 'kv.b', reason: 'r' },
      ],
      today,
    );
    expect(out.map((item) => item.verdict.kind)).toEqual(['fail', 'skip']);
  });
});
