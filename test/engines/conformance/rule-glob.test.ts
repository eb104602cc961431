import { describe, expect, test } from 'vitest';
import { globMatchesAny, ruleFilter, splitRuleGlobs } from '../../../src/engines/conformance/rule-glob.ts';

describe('rule globs', () => {
  test('* spans the dots of a rule id', () => {
    const filter = ruleFilter('B.multi-exec.*');
    expect(filter(['B.multi-exec.discard.syntax-error'])).toBe(true);
    expect(filter(['B.pipeline.order'])).toBe(false);
  });

  test('a case runs when any of its rules matches', () => {
    expect(ruleFilter('B.auth.bearer')(['B.status.ok-200', 'B.auth.bearer'])).toBe(true);
  });

  test('commas separate globs, except inside braces', () => {
    expect(splitRuleGlobs('B.auth.*, B.pipeline.*')).toEqual(['B.auth.*', 'B.pipeline.*']);
    expect(splitRuleGlobs('B.{auth,pipeline}.*')).toEqual(['B.{auth,pipeline}.*']);
    expect(ruleFilter('B.{auth,pipeline}.*')(['B.pipeline.order'])).toBe(true);
  });

  test('no glob keeps everything; globMatchesAny rejects a filter that selects nothing', () => {
    expect(ruleFilter(undefined)(['anything'])).toBe(true);
    expect(globMatchesAny('B.*', ['B.x'])).toBe(true);
    expect(globMatchesAny('C.*', ['B.x'])).toBe(false);
  });
});
