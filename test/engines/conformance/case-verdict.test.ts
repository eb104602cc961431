import { describe, expect, test } from 'vitest';
import { verdictOf } from '../../../src/engines/conformance/case-verdict.ts';
import type { RuleLevel } from '../../../src/results/rule.ts';
import { harnessError } from '../../../src/shared/errors.ts';
import { Blocked, CaseSkipped, CheckFailure, means } from '../../../src/suite-kit/check-failure.ts';

const levels: Record<string, RuleLevel> = { 'B.must': 'MUST', 'B.must2': 'MUST', 'B.observe': 'OBSERVE' };
const levelOf = (id: string) => levels[id];
const end = (rules: string[], error?: unknown, notes: string[] = []) =>
  verdictOf({ rules, levelOf, notes, ...(error !== undefined && { thrown: { error } }) });

describe('verdictOf', () => {
  test('a case that returns passes; a MUST case keeps passing with notes', () => {
    expect(end(['B.must'])).toEqual({ kind: 'pass' });
    expect(end(['B.must'], undefined, ['saw 401'])).toEqual({ kind: 'pass' });
  });

  test('an OBSERVE-only case with notes is an observation', () => {
    expect(end(['B.observe'], undefined, ['a', 'b'])).toEqual({ kind: 'observation', reason: 'a; b' });
    expect(end(['B.observe'])).toEqual({ kind: 'pass' });
  });

  test('a CheckFailure on a MUST rule fails with its rule and message', () => {
    expect(end(['B.must'], new CheckFailure('B.must', '400', '200'))).toEqual({
      kind: 'fail',
      rule: 'B.must',
      reason: 'received 400 / expected 200 [B.must]',
    });
  });

  test('a CheckFailure on an OBSERVE rule never fails', () => {
    expect(end(['B.must', 'B.observe'], new CheckFailure('B.observe', '500', '400'))).toMatchObject({
      kind: 'observation',
    });
  });

  test('a CheckFailure of an OBSERVE-only case is an observation naming the rule, with the notes', () => {
    expect(end(['B.observe'], new CheckFailure('B.observe', '1', '2'), ['n'])).toEqual({
      kind: 'observation',
      reason: 'received 1 / expected 2 [B.observe]; n',
      rule: 'B.observe',
    });
  });

  test("a step that is only a means blocks the case, naming the step's rule", () => {
    expect(end(['B.must'], new Blocked('B.root', 'POST / answered 404'))).toEqual({
      kind: 'blocked',
      rule: 'B.root',
      reason: 'POST / answered 404 [B.root]',
    });
  });

  test('means() turns a failed check inside a step into a block', async () => {
    const error = await means(async () => {
      throw new CheckFailure('B.root', '404', '200', 'set-up');
    }).catch((thrown: unknown) => thrown);
    expect(end(['B.must'], error)).toMatchObject({ kind: 'blocked', rule: 'B.root' });
    expect(await means(async () => 3)).toBe(3);
  });

  test('CaseSkipped skips with its reason', () => {
    expect(end(['B.must'], new CaseSkipped('no token'))).toEqual({ kind: 'skip', reason: 'no token' });
  });

  test('an unreachable or garbage target is an error; so is any other harness error', () => {
    expect(end(['B.must'], harnessError('SVC_TARGET_UNREACHABLE', 'x refused'))).toEqual({
      kind: 'error',
      reason: 'x refused',
    });
    expect(end(['B.must'], harnessError('SVC_TARGET_GARBAGE', 'junk'))).toMatchObject({ kind: 'error' });
    expect(end(['B.must'], harnessError('SVC_CONFIG', 'bad'))).toMatchObject({
      kind: 'error',
      reason: expect.stringMatching(/^harness error/),
    });
  });

  test("any other exception is the harness's own error, never a pass, fail or observation", () => {
    expect(end(['B.must'], new TypeError("Cannot read properties of undefined (reading 'x')"))).toEqual({
      kind: 'error',
      reason:
        "harness error (a defect of the suite, not of the target; please report it): TypeError: Cannot read properties of undefined (reading 'x')",
    });
    for (const rules of [['B.must', 'B.must2'], ['B.observe']]) {
      expect(end(rules, new Error('oops'))).toMatchObject({ kind: 'error', reason: expect.stringContaining('oops') });
    }
  });

  test('an unknown rule counts as MUST: a failure is never hidden', () => {
    expect(end(['B.unknown'], new CheckFailure('B.unknown', 'a', 'b'))).toMatchObject({ kind: 'fail' });
  });
});
