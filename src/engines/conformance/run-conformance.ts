/**
 * The programmatic conformance run: validate everything first, start the embedded reference when no
 * target is given, run the suites per target through vitest, apply expectations, decide the gate,
 * and write the reports (also when the run stops midway). The CLI command is a thin wrapper.
 */
import { checkFaults, checkSilences, startEmbeddedReference } from '../../reference/embedded.ts';
import {
  type CaseResult,
  type ConformanceRun,
  gateExitCode,
  judgedNothing,
  type TargetRun,
} from '../../results/conformance-run.ts';
import { conformanceOnly } from '../../results/harness-run.ts';
import type { RunEvents } from '../../results/reporter.ts';
import type { RuleCatalog } from '../../results/rule.ts';
import { harnessError, isHarnessError } from '../../shared/errors.ts';
import type { Redactor } from '../../shared/redact.ts';
import { areasOf, checkAreas, targetAreas } from '../../target/areas.ts';
import { describeTarget, type SinkSettings, type Target, type TargetArea } from '../../target/target.ts';
import {
  openRunContext,
  type PartOutcome,
  type RunCommonOptions,
  type RunContext,
  readRunTargets,
} from '../context/run-context.ts';
import { stoppedWithoutError } from './case-collector.ts';
import { type CaseOrder, validSeed } from './case-order.ts';
import { type CaseFile, loadCaseFiles } from './case-registry.ts';
import { applyExpectations, type Expectation, knownFailure, loadExpectationsFile, utcDay } from './expectations.ts';
import { probeTarget } from './probe-target.ts';
import { repoRoot } from './repo-paths.ts';
import { loadRuleCatalog } from './rule-catalog.ts';
import { globMatchesAny, ruleFilter } from './rule-glob.ts';
import { runSuites } from './vitest-runner.ts';

export interface ConformanceOptions extends RunCommonOptions {
  /** Target files; none (and no `environmentTarget`): the embedded reference service. */
  readonly targets?: readonly string[];
  /** A target read from the SVC_* environment (the CLI reads it only when no file is given). */
  readonly environmentTarget?: Target;
  /** @default every area the target has */
  readonly areas?: readonly TargetArea[];
  /** Only cases naming a rule that matches this glob (commas separate several). */
  readonly rules?: string;
  readonly expectations?: string;
  /** Fault switches of the embedded reference; only without targets. */
  readonly faults?: readonly string[];
  /** Silence switches of the embedded reference: other legal choices where the spec is silent. @default none */
  readonly silences?: readonly string[];
  /** The folder with conformance/ and its vitest.config (the engine's tests use a fixture suite). @default the repository */
  readonly suiteRoot?: string;
  /** The sink's settings from the command line; they win over each target file's `sink`. */
  readonly sink?: SinkSettings;
  /**
   * Cases marked concurrent running at once (conformance-case.ts); 1 runs every case alone, so what
   * reaches the target in a stretch of time is one case's (test/mutation/record-run.ts relies on it).
   * @default 6
   */
  readonly caseConcurrency?: number;
  /**
   * Every request's and stream wait's budget in the cases, unless a case names its own (the main job's
   * name too; a load's request budget is `settings.timeoutMs`). @default 10 s
   */
  readonly caseTimeoutMs?: number;
  /**
   * A seeded order of the case files and cases (case-order.ts: the concurrent group kept whole), so a
   * verdict that depends on the cases beside it shows as a difference between two seeds.
   * @default concurrent files first, then every file and case in discovery order
   */
  readonly order?: CaseOrder;
}

interface PlannedTarget {
  readonly target: Target;
  readonly embedded: boolean;
}

/** The options' own checks, before anything starts (the main job makes them too, before its context). */
export function checkConformanceOptions(options: ConformanceOptions, catalog: RuleCatalog): void {
  const switches =
    (options.faults?.length ?? 0) > 0 ? '--fault' : (options.silences?.length ?? 0) > 0 ? '--silence' : undefined;
  if (switches !== undefined && ((options.targets?.length ?? 0) > 0 || options.environmentTarget)) {
    throw harnessError(
      'SVC_USAGE',
      `conformance: ${switches} works only with the embedded reference (without --target or SVC_* target variables)`,
    );
  }
  const budget = options.caseTimeoutMs;
  if (budget !== undefined && !(Number.isFinite(budget) && budget > 0)) {
    throw harnessError('SVC_USAGE', `conformance: caseTimeoutMs is a positive number of milliseconds, not ${budget}`);
  }
  const concurrency = options.caseConcurrency;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw harnessError('SVC_USAGE', `conformance: caseConcurrency is a whole number of at least 1, not ${concurrency}`);
  }
  if (options.order !== undefined && !validSeed(options.order.seed)) {
    throw harnessError(
      'SVC_USAGE',
      `conformance: order.seed is a whole number from 0 to 4294967295, not ${options.order.seed}`,
    );
  }
  // The same checks the reference and the CLI make, made here too: the options may come from code.
  checkFaults(options.faults ?? []);
  checkSilences(options.silences ?? []);
  checkAreas('conformance', options.areas ?? [], targetAreas);
  if (
    options.rules !== undefined &&
    !globMatchesAny(
      options.rules,
      catalog.rules.map((rule) => rule.id),
    )
  ) {
    throw harnessError(
      'SVC_USAGE',
      `conformance: --rules "${options.rules}" matches no rule (svc-harness rules lists them)`,
    );
  }
}

/**
 * An area asked for by --area that a target lacks would have all its cases skipped, and a gate of
 * skips passes without judging anything: that is a configuration mistake, said before anything starts.
 */
export function checkTargetAreas(targets: readonly Target[], areas: readonly TargetArea[] | undefined): void {
  for (const target of targets) {
    const lacking = (areas ?? []).filter((area) => target[area] === undefined);
    if (lacking.length > 0) {
      throw harnessError(
        'SVC_CONFIG',
        `conformance: --area ${lacking.join(',')}: the target ${target.name} has no ${lacking.join(' or ')} area (it has ${areasOf(target).join(', ')})`,
      );
    }
  }
}

/** What stopped the run: the signal's name the CLI aborted with, else "aborted". */
function interruptReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'aborted';
}

export async function runConformance(options: ConformanceOptions = {}): Promise<ConformanceRun> {
  const catalog = await loadRuleCatalog();
  checkConformanceOptions(options, catalog);
  const targets = readRunTargets(options.targets, options.environmentTarget);
  checkTargetAreas(targets.targets, options.areas);
  // The reference starts (waiting on Redis) while the suites load (compiling): the two overlap, and a
  // bad expectations file found meanwhile leaves no report folder behind.
  const starting =
    targets.targets.length === 0
      ? startEmbeddedReference(options.faults ?? [], options.areas, options.silences ?? [])
      : undefined;
  starting?.catch(() => {});
  let prepared: PreparedSuites;
  try {
    prepared = await prepareSuites(options, catalog);
  } catch (error) {
    await starting?.then(
      (ready) => ready.stop(),
      () => {},
    );
    throw error;
  }
  const context = await openRunContext('conformance', targets, options, starting);
  let part: PartOutcome<ConformanceRun>;
  try {
    part = await conformancePart(options, context, prepared);
  } finally {
    await context.close();
  }
  await context.events.onRunEnd(conformanceOnly(part.run), { catalog, redact: context.redact });
  if (part.error !== undefined) throw part.error;
  return part.run;
}

/** The suites' case files and the expectations checked against them: loaded before a run starts. */
export interface PreparedSuites {
  readonly suiteRoot: string;
  readonly caseFiles: readonly CaseFile[];
  readonly expectations: readonly Expectation[];
}

export async function prepareSuites(options: ConformanceOptions, catalog: RuleCatalog): Promise<PreparedSuites> {
  const suiteRoot = options.suiteRoot ?? repoRoot;
  const caseFiles = await loadCaseFiles(targetAreas, suiteRoot);
  const expectations = options.expectations
    ? loadExpectationsFile(options.expectations, {
        caseIds: new Set(caseFiles.flatMap((file) => file.cases.map((item) => item.id))),
        ruleIds: new Set(catalog.rules.map((rule) => rule.id)),
      })
    : [];
  return { suiteRoot, caseFiles, expectations };
}

/**
 * The conformance part of a run, into its context: the suites per target through vitest (the embedded
 * reference, the context's, when there is no target), expectations applied, the gate decided. What was
 * measured is the run, also when it stopped on an error, which comes back beside it to be thrown once
 * the reports are written. Options are checked and the suites prepared by the caller.
 */
export async function conformancePart(
  options: ConformanceOptions,
  runContext: RunContext,
  { suiteRoot, caseFiles, expectations }: PreparedSuites,
): Promise<PartOutcome<ConformanceRun>> {
  const { now } = runContext;
  const started = now();
  const fileTargets = runContext.fileTargets;
  const reference = fileTargets.length === 0 ? await runContext.reference() : undefined;

  // Every secret is known once the reference has started: the file targets' and the reference's own.
  const { secrets, redact, events, reportDir, runId } = runContext;
  const problems: string[] = [];
  const problem = (line: string) => {
    const safe = redact(line);
    problems.push(safe);
    events.onProblem(safe);
  };
  const targetRuns: TargetRun[] = [];
  let aborted: string | undefined;
  const planned: PlannedTarget[] = reference
    ? [{ target: reference.target, embedded: true }]
    : fileTargets.map((target) => ({ target, embedded: false }));
  const known = (result: CaseResult) => knownFailure(result, expectations, utcDay(now()));
  const context: TargetContext = { options, caseFiles, suiteRoot, runId, secrets, problem, redact, events, known };
  try {
    for (const { target, embedded } of planned) {
      if (options.signal?.aborted) break;
      events.onTarget(target.name, embedded);
      targetRuns.push(await runTarget(target, embedded, context));
    }
    if (options.signal?.aborted) aborted = `interrupted (${interruptReason(options.signal)})`;
    // A run that checked nothing must not pass a gate: say why nothing ran.
    if (aborted === undefined && targetRuns.every((run) => run.cases.length === 0)) {
      const asked = options.areas?.length ? `the areas asked for (${options.areas.join(', ')})` : 'any area with cases';
      const filter = options.rules === undefined ? '' : ` matching --rules ${options.rules}`;
      problem(`no case was run: the targets have no case of ${asked}${filter}`);
    }
    // Cases that all ended skipped or blocked checked nothing: the gate must not pass on them.
    for (const run of aborted === undefined ? targetRuns : []) {
      const line = run.problem === undefined ? judgedNothing(run.name, run.cases) : undefined;
      if (line !== undefined) problem(line);
    }
  } catch (error) {
    // What was measured is kept: the reports are written, then the error reaches the CLI.
    aborted = redact(isHarnessError(error) ? error.message : String(error));
    return { run: finish(), error };
  }
  return { run: finish() };

  function finish(): ConformanceRun {
    const today = utcDay(now());
    const withExpectations = targetRuns.map((run) => ({
      ...run,
      cases: applyExpectations(run.cases, expectations, today),
    }));
    const results = withExpectations.flatMap((run) => run.cases);
    const finished = now();
    return {
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      settings: {
        areas: options.areas ?? [],
        ...(options.rules !== undefined && { rules: options.rules }),
        ...(options.expectations !== undefined && { expectations: options.expectations }),
        faults: options.faults ?? [],
        silences: options.silences ?? [],
        ...(options.order !== undefined && { orderSeed: options.order.seed }),
      },
      targets: withExpectations,
      results,
      problems,
      ...(aborted !== undefined && { aborted }),
      exitCode: gateExitCode(results, problems, aborted),
      reportDir,
    };
  }
}

interface TargetContext {
  readonly options: ConformanceOptions;
  readonly caseFiles: readonly CaseFile[];
  readonly suiteRoot: string;
  readonly runId: string;
  /** Every secret of the run: the suites redact what they report with them, once. */
  readonly secrets: readonly string[];
  readonly problem: (line: string) => void;
  readonly redact: Redactor;
  readonly events: RunEvents;
  /** A failure an expectation covers, as the reports will show it, so the live events say the same. */
  readonly known: (result: CaseResult) => CaseResult;
}

async function runTarget(target: Target, embedded: boolean, context: TargetContext): Promise<TargetRun> {
  const { options } = context;
  const areas = options.areas ?? areasOf(target);
  const filter = ruleFilter(options.rules);
  const expected = context.caseFiles
    .filter((file) => areas.includes(file.area))
    .flatMap((file) => file.cases.filter((item) => filter(item.rules)).map((item) => ({ file, item })));
  const base = { name: target.name, description: describeTarget(target), embedded, areas };
  const notRun = (reason: string, kind: 'error' | 'skip' = 'error'): CaseResult[] =>
    expected.map(({ file, item }) => ({
      target: target.name,
      area: file.area,
      file: file.file,
      caseId: item.id,
      rules: item.rules,
      title: item.title,
      expect: item.expect,
      verdict: { kind, reason },
      notes: [],
      durationMs: 0,
    }));

  const unreachable = await probeTarget(
    target,
    areas.filter((area) => target[area] !== undefined),
  );
  if (unreachable) {
    const line = context.redact(unreachable.message);
    context.problem(`${line} [${unreachable.code}]`);
    return { ...base, problem: line, cases: notRun(line) };
  }

  context.events.onPlanned(expected.length);
  const collected = await runSuites({
    root: context.suiteRoot,
    areas,
    // A snapshot in plain data: the reference's target reads its tokens through getters.
    run: {
      target: JSON.parse(
        JSON.stringify(options.sink ? { ...target, sink: { ...target.sink, ...options.sink } } : target),
      ) as Target,
      secrets: context.secrets,
      rules: options.rules ?? null,
      runId: context.runId,
      ...(options.caseTimeoutMs !== undefined && { timeoutMs: options.caseTimeoutMs }),
      ...(options.order !== undefined && { order: { seed: options.order.seed } }),
    },
    // The suite file registers only the case files that hold a selected case.
    caseFiles: [...new Set(expected.map(({ file }) => file.file))],
    ...(options.signal && { signal: options.signal }),
    ...(options.caseConcurrency !== undefined && { concurrency: options.caseConcurrency }),
    // The live line says what the report will: a case the interrupt stopped in its words, not vitest's.
    onResult: (result) => context.events.onResult(context.known(interruptedVerdict(result, options.signal))),
  });
  for (const line of collected.problems) context.problem(line);
  const results = collected.results.map((result) => interruptedVerdict(result, options.signal));
  const seen = new Set(results.map((result) => result.caseId));
  const reason = collected.problems[0]
    ? `not run: ${collected.problems[0]}`
    : options.signal?.aborted
      ? `not run: the run was interrupted (${interruptReason(options.signal)})`
      : 'not run: vitest did not run it (src/engines/conformance/suite-entry.ts registers every case file)';
  const missing = notRun(reason, !collected.problems[0] && options.signal?.aborted ? 'skip' : 'error').filter(
    (result) => !seen.has(result.caseId),
  );
  const cases = [...results, ...missing].sort((a, b) => a.caseId.localeCompare(b.caseId));
  return { ...base, cases };
}

/**
 * A case's verdict once the run was interrupted. Cases running when the signal came (several at once,
 * with concurrent cases) say which signal it was; cases that never started are skipped, "not run", not
 * errors of the target (issue 36: vitest's own words, "aborted by the user", made them errors). The
 * run's gate says it was interrupted.
 */
function interruptedVerdict(result: CaseResult, signal: AbortSignal | undefined): CaseResult {
  if (!signal?.aborted || result.verdict.kind !== 'error') return result;
  const interrupted = interruptReason(signal);
  if (result.verdict.reason === stoppedWithoutError) {
    return {
      ...result,
      verdict: {
        ...result.verdict,
        reason: `the case did not end: the run was interrupted (${interrupted}) while it ran`,
      },
    };
  }
  return result.verdict.reason.startsWith('not run:')
    ? { ...result, verdict: { kind: 'skip', reason: `not run: the run was interrupted (${interrupted})` } }
    : result;
}
