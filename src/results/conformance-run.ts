/**
 * The data a conformance run produces: per-case results per target, and the pure steps over it
 * (totals, the gate's exit code). Reporters in src/reporters render it; nothing here writes.
 */
import { ExitCode } from '../shared/errors.ts';
import type { TargetArea } from '../target/target.ts';
import { gateFailingKinds, type Verdict, type VerdictKind, verdictRule } from './verdict.ts';

export interface CaseResult {
  /** The target's name (unique within the run). */
  readonly target: string;
  readonly area: TargetArea;
  /** The suite file, relative to the repository: `conformance/kv/pipeline.cases.ts`. */
  readonly file: string;
  readonly caseId: string;
  readonly rules: readonly string[];
  readonly title: string;
  readonly expect: string;
  readonly verdict: Verdict;
  readonly notes: readonly string[];
  readonly durationMs: number;
  /** For a case that did not pass: the request its failing check judged and the start of the answer (redacted). */
  readonly exchange?: CaseExchange;
  /** For a case not run because the target had stopped answering: when it stopped. */
  readonly stop?: TargetStop;
}

/** A case and a moment (ISO 8601, UTC). */
export interface CaseMoment {
  readonly caseId: string;
  readonly at: string;
}

/** When a target stopped answering during a run, as the cases saw it. */
export interface TargetStop {
  /** The case that got the target's last answer, and when; absent when no case got one. */
  readonly lastAnswer?: CaseMoment;
  /** The first case that got no answer after it, and when its first request went unanswered. */
  readonly firstSilence: CaseMoment;
}

/** A request as a `curl` line (secrets as `$SVC_…` variables) and what came back, for the reports. */
export interface CaseExchange {
  readonly curl: string;
  /** `200 application/json, 14 bytes: {"result":"OK"}`, or `no answer: …`. */
  readonly answer: string;
}

export interface TargetRun {
  /** Unique within the run (a second target of the same name gets `#2`). */
  readonly name: string;
  /** The target without secrets (describeTarget). */
  readonly description: Readonly<Record<string, unknown>>;
  /** True for the reference service the command started itself. */
  readonly embedded: boolean;
  readonly areas: readonly TargetArea[];
  /** One line when the target could not be used (down, refused, stalled, garbage); its cases are errors. */
  readonly problem?: string;
  readonly cases: readonly CaseResult[];
}

export interface RunSettings {
  readonly areas: readonly TargetArea[];
  readonly rules?: string;
  readonly expectations?: string;
  readonly faults: readonly string[];
  /** Silence switches of the embedded reference that were on. */
  readonly silences: readonly string[];
  /** The seed of the order the cases ran in, when one was given (a difference between orders is reproduced with it). */
  readonly orderSeed?: number;
}

export interface ConformanceRun {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly settings: RunSettings;
  readonly targets: readonly TargetRun[];
  /** Every case result of every target, in target then case order. */
  readonly results: readonly CaseResult[];
  /** One-line infrastructure problems (a target down, a suite file that failed to load). */
  readonly problems: readonly string[];
  /** Set when the run stopped early (SIGINT, a failure of the harness); what was measured is kept. */
  readonly aborted?: string;
  readonly exitCode: ExitCode;
  /** Where the reports were written. */
  readonly reportDir: string;
}

export const verdictKinds: readonly VerdictKind[] = [
  'pass',
  'fail',
  'stale',
  'error',
  'blocked',
  'expected-failure',
  'observation',
  'skip',
];

export type VerdictTotals = Readonly<Record<VerdictKind, number>> & { readonly total: number };

export function totalsOf(results: readonly { readonly verdict: Verdict }[]): VerdictTotals {
  const counts = Object.fromEntries(verdictKinds.map((kind) => [kind, 0])) as Record<VerdictKind, number>;
  for (const result of results) counts[result.verdict.kind]++;
  return { ...counts, total: results.length };
}

/**
 * The gate: 1 when a case failed or an expectation is stale; else 2 when something could not run
 * (an error verdict, a problem, an abort); else 0.
 */
export function gateExitCode(
  results: readonly { readonly verdict: Verdict }[],
  problems: readonly string[],
  aborted?: string,
): ExitCode {
  const failing = results.filter((result) => gateFailingKinds.has(result.verdict.kind));
  // Only infrastructure errors (the target could not be tested) make it a usage-level exit code.
  if (failing.some((result) => result.verdict.kind !== 'error')) return ExitCode.failed;
  if (failing.length > 0 || problems.length > 0 || aborted !== undefined) return ExitCode.notJudged;
  return ExitCode.ok;
}

/**
 * Kinds that judge a rule: the case checked it and said pass or fail (an expected failure and a stale
 * expectation are a failure and a pass with a known answer). Skipped, blocked and observed cases judge
 * nothing: a gate made only of them would pass whatever the target does.
 */
export const judgingKinds: ReadonlySet<VerdictKind> = new Set(['pass', 'fail', 'stale', 'expected-failure']);

/**
 * One line when a target's cases ran and none judged anything (all skipped, blocked or observed), so
 * its gate would pass without having checked a rule; undefined when some case judged, none ran (said
 * elsewhere), or one ended in error (that already keeps the gate from passing).
 */
export function judgedNothing(target: string, cases: readonly CaseResult[]): string | undefined {
  if (cases.length === 0) return undefined;
  if (cases.some((result) => judgingKinds.has(result.verdict.kind) || result.verdict.kind === 'error'))
    return undefined;
  const totals = totalsOf(cases);
  const kinds = verdictKinds.filter((kind) => totals[kind] > 0).map((kind) => `${totals[kind]} ${kind}`);
  const first = cases.find((result) => 'reason' in result.verdict);
  const example = first && 'reason' in first.verdict ? `; first: ${first.caseId}: ${first.verdict.reason}` : '';
  return `${target}: judged nothing: none of its ${cases.length} cases passed or failed (${kinds.join(', ')})${example}`;
}

/** The gate as a word, for reports and the console: 0 passed, 1 or 99 (a threshold) failed, anything else error. */
export type Gate = 'passed' | 'failed' | 'error';

export function gateOf(exitCode: number): Gate {
  if (exitCode === ExitCode.ok) return 'passed';
  return exitCode === ExitCode.failed || exitCode === ExitCode.thresholds || exitCode === ExitCode.regressed
    ? 'failed'
    : 'error';
}

/**
 * Whether a case's verdict speaks of a rule: a verdict that names a rule (a failure, an observation,
 * an expected failure) speaks of that rule alone, also when the case lists it only among its checks'
 * rules or not at all (a check blames the rule it checks); any other verdict (a pass, a skip, an
 * error, a block by another rule's step) speaks of every rule the case names.
 */
export function verdictCountsFor(result: CaseResult, ruleId: string): boolean {
  const named = verdictRule(result.verdict);
  if (named !== undefined && result.verdict.kind !== 'blocked') return named === ruleId;
  return result.rules.includes(ruleId);
}
