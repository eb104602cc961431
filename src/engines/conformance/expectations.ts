/**
 * Expectations files: known failures with a reason and an optional expiry date. A failing case an
 * expectation covers is an expected failure; a passing one makes the expectation stale (fails the
 * gate); after its expiry day the failure counts again.
 */
import schema from '../../../schemas/expectations.schema.json' with { type: 'json' };
import { type CaseResult, verdictCountsFor } from '../../results/conformance-run.ts';
import type { Verdict } from '../../results/verdict.ts';
import { harnessError } from '../../shared/errors.ts';
import { lazyValidator, readJsonFile, schemaProblem } from '../../shared/json-file.ts';

export interface Expectation {
  readonly case?: string;
  readonly rule?: string;
  readonly target?: string;
  readonly reason: string;
  /** Last day (UTC, YYYY-MM-DD) the expectation holds. */
  readonly expires?: string;
}

const expectationsValidator = lazyValidator<{ expectations: Expectation[] }>(schema, { allErrors: false });

/** Parses and validates an expectations file; every problem is one SVC_CONFIG line. */
export function parseExpectations(
  value: unknown,
  origin: string,
  known: { readonly caseIds: ReadonlySet<string>; readonly ruleIds: ReadonlySet<string> },
): Expectation[] {
  const fail = (message: string) => harnessError('SVC_CONFIG', `expectations file ${origin}: ${message}`);
  const validate = expectationsValidator();
  if (!validate(value)) {
    throw fail(schemaProblem(validate.errors));
  }
  value.expectations.forEach((item, index) => {
    const where = `expectations.${index}`;
    if ((item.case === undefined) === (item.rule === undefined))
      throw fail(`${where} needs exactly one of case and rule`);
    if (item.case !== undefined && !known.caseIds.has(item.case))
      throw fail(`${where} names unknown case "${item.case}"`);
    if (item.rule !== undefined && !known.ruleIds.has(item.rule))
      throw fail(`${where} names unknown rule "${item.rule}"`);
    if (item.expires !== undefined && Number.isNaN(Date.parse(`${item.expires}T00:00:00Z`))) {
      throw fail(`${where}.expires is not a date: "${item.expires}"`);
    }
  });
  return value.expectations;
}

export function loadExpectationsFile(
  path: string,
  known: { readonly caseIds: ReadonlySet<string>; readonly ruleIds: ReadonlySet<string> },
): Expectation[] {
  return parseExpectations(readJsonFile(path, 'expectations file'), path, known);
}

/** `today` as YYYY-MM-DD in UTC. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function isExpired(expectation: Expectation, today: string): boolean {
  return expectation.expires !== undefined && today > expectation.expires;
}

/**
 * A case expectation matches its case; a rule expectation matches a case whose verdict speaks of that
 * rule: a failure on another rule of the same case is not the known failure, and stays a failure.
 */
function matches(expectation: Expectation, result: CaseResult): boolean {
  if (expectation.target !== undefined && expectation.target !== result.target) return false;
  if (expectation.case !== undefined) return expectation.case === result.caseId;
  return verdictCountsFor(result, expectation.rule!);
}

/**
 * Applies expectations to results (a case expectation before a rule expectation). A rule
 * expectation is stale only when no case of that rule failed on that target: it claims the rule
 * fails, not each of its cases.
 */
export function applyExpectations(
  results: readonly CaseResult[],
  expectations: readonly Expectation[],
  today: string,
): CaseResult[] {
  if (expectations.length === 0) return [...results];
  const ruleFailsOn = new Set<string>();
  for (const result of results) {
    if (result.verdict.kind !== 'fail') continue;
    for (const rule of result.rules) {
      if (verdictCountsFor(result, rule)) ruleFailsOn.add(`${result.target}\0${rule}`);
    }
  }
  const ordered = [...expectations.filter((item) => item.case), ...expectations.filter((item) => item.rule)];
  return results.map((result) => {
    const expectation = ordered.find((item) => matches(item, result));
    if (!expectation) return result;
    const verdict = expectedVerdict(result, expectation, today, ruleFailsOn);
    return verdict === result.verdict ? result : { ...result, verdict };
  });
}

function expectedVerdict(
  result: CaseResult,
  expectation: Expectation,
  today: string,
  ruleFailsOn: ReadonlySet<string>,
): Verdict {
  const { verdict } = result;
  const expired = isExpired(expectation, today);
  if (verdict.kind === 'fail') {
    if (expired) {
      return { ...verdict, reason: `${verdict.reason} (the expectation expired on ${expectation.expires})` };
    }
    return {
      kind: 'expected-failure',
      reason: `${expectation.reason} (known failure: ${verdict.reason})`,
      ...(verdict.rule && { rule: verdict.rule }),
    };
  }
  if (verdict.kind !== 'pass' || expired) return verdict;
  if (expectation.rule !== undefined && ruleFailsOn.has(`${result.target}\0${expectation.rule}`)) return verdict;
  const what = expectation.case !== undefined ? `case ${expectation.case}` : `rule ${expectation.rule}`;
  return {
    kind: 'stale',
    reason: `expected to fail (${expectation.reason}) but passed: remove the expectation for ${what}`,
  };
}

/**
 * One finished case as the run's end will show it when it failed and an expectation covers it (an
 * expected failure); anything else unchanged, since staleness needs every case of the rule first.
 */
export function knownFailure(result: CaseResult, expectations: readonly Expectation[], today: string): CaseResult {
  if (result.verdict.kind !== 'fail' || expectations.length === 0) return result;
  return applyExpectations([result], expectations, today)[0] ?? result;
}
