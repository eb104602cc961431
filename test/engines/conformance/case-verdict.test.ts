import { describe, expect, test } from 'vitest';
import { verdictOf } from '../../../src/engines/conformance/case-verdict.ts';
import { CaseSkipped, CheckFailure } from '../../../src/engines/conformance/check-failure.ts';
import type { RuleLevel } from '../../../src/results/rule.ts';
import { harnessError } from '../../../src/shared/errors.ts';

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

  test('anything thrown by an OBSERVE-only case is an observation', () => {
    expect(end(['B.observe'], new Error('boom'), ['n'])).toEqual({ kind: 'observation', reason: 'boom; n' });
  });

  test('CaseSkipped skips with its reason', () => {
    expect(end(['B.must'], new CaseSkipped('no token'))).toEqual({ kind: 'skip', reason: 'no token' });
  });

  test('an unreachable or garbage target is an error; other harness errors fail', () => {
    expect(end(['B.must'], harnessError('SVC_TARGET_UNREACHABLE', 'x refused'))).toEqual({
      kind: 'error',
      reason: 'x refused',
    });
    expect(end(['B.must'], harnessError('SVC_TARGET_GARBAGE', 'junk'))).toMatchObject({ kind: 'error' });
    expect(end(['B.must'], harnessError('SVC_CONFIG', 'bad'))).toMatchObject({ kind: 'fail' });
  });

  test('any other error fails; its rule is named when the case has one rule', () => {
    expect(end(['B.must'], new Error('expected 1 to be 2\n\n- diff'))).toEqual({
      kind: 'fail',
      rule: 'B.must',
      reason: 'expected 1 to be 2',
    });
    expect(end(['B.must', 'B.must2'], new Error('oops'))).toEqual({ kind: 'fail', reason: 'oops' });
  });

  test('an unknown rule counts as MUST: a failure is never hidden', () => {
    expect(end(['B.unknown'], new CheckFailure('B.unknown', 'a', 'b'))).toMatchObject({ kind: 'fail' });
  });
});
