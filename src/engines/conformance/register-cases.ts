/**
 * Turns the suites' cases into vitest tests, one per case, named by case id. `registerSuites`, called at
 * the top level of the one suite file (`suite-entry.ts`, beside it), discovers every case file of the
 * areas (conformance/<area>/*.cases.ts, by reading the folders: no file of its own per topic, so a new
 * case file can never be left out) and registers each under a describe of its path. The target comes
 * from the engine through vitest's `inject` (`svc-harness conformance`, which also names the areas and
 * case files of the run), else from SVC_TARGET_FILE or the SVC_* environment (plain vitest); SVC_RULES
 * filters by rule glob and SVC_RUN_ID names the run in every key prefix.
 */
import { dirname } from 'node:path';
import { afterAll, describe, inject, type TestContext, test } from 'vitest';
import { ExchangeLog, logExchanges } from '../../http/exchange-log.ts';
import {
  defaultTimeoutMs as defaultRequestTimeoutMs,
  noAnswerOf,
  setAnswerCap,
  setRequestTimeout,
} from '../../http/http-client.ts';
import { harnessError } from '../../shared/errors.ts';
import { createRedactor, type Redactor } from '../../shared/redact.ts';
import { withTimeout } from '../../shared/with-timeout.ts';
import { missingCapability } from '../../target/areas.ts';
import { loadTargetFileSync, targetFromEnv } from '../../target/read-target.ts';
import { type Target, type TargetArea, targetSecrets } from '../../target/target.ts';
import { AnswerWatch } from './answer-watch.ts';
import './case-meta.ts';
import { exchangeJudgedBy } from '../../suite-kit/check-failure.ts';
import type { ConformanceCase } from '../../suite-kit/conformance-case.ts';
import { endSuites } from '../../suite-kit/suite-end.ts';
import { createCaseContext, runId as processRunId } from './case-context.ts';
import { caseExchange } from './case-exchange.ts';
import type { CaseMeta, CaseOutcome, SuiteRun } from './case-meta.ts';
import { allConcurrent, orderCaseFiles } from './case-order.ts';
import { loadCaseFiles } from './case-registry.ts';
import { reasonLine, verdictOf } from './case-verdict.ts';
import { loadRuleCatalog } from './rule-catalog.ts';
import { ruleFilter } from './rule-glob.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface CaseSetup {
  readonly target?: Target;
  /** Set when no case can run: one sentence. */
  readonly skipReason?: string;
}

/** The target of a suite run, or the one-sentence reason its cases are skipped. */
export function resolveCaseSetup(area: TargetArea, env: Env = process.env, provided?: SuiteRun): CaseSetup {
  const file = env.SVC_TARGET_FILE?.trim();
  const target = provided?.target ?? (file ? loadTargetFileSync(file) : targetFromEnv(env));
  if (!target) {
    return { skipReason: 'No target: set SVC_TARGET_FILE, or the SVC_* variables (e.g. SVC_KV_URL and SVC_KV_TOKEN).' };
  }
  if (!target[area]) return { target, skipReason: `The target "${target.name}" has no ${area} area.` };
  return { target };
}

/** What every suite file of one run shares: built once per run, since files share this module (no isolation). */
interface RunSetup {
  readonly key: string;
  readonly provided: SuiteRun | undefined;
  readonly rules: string | undefined;
  readonly runId: string;
  readonly redact: Redactor;
  /** Each area's setup and redactor, resolved on the first file of that area. */
  readonly setups: Map<TargetArea, { readonly setup: CaseSetup; readonly redact: Redactor }>;
  /** Whether the target still answers, told by the cases as they end. */
  readonly answers: AnswerWatch;
}

export { stalledAfterCases } from './answer-watch.ts';

let current: RunSetup | undefined;

function runSetup(): RunSetup {
  const provided = inject('svcRun');
  const rules = provided ? (provided.rules ?? undefined) : process.env.SVC_RULES?.trim() || undefined;
  const key = provided ? `run:${provided.runId}` : `env:${process.env.SVC_TARGET_FILE ?? ''}:${rules ?? ''}`;
  if (current?.key !== key) {
    // This worker's requests that name no budget get the run's (the module is this thread's).
    setRequestTimeout(provided?.timeoutMs ?? defaultRequestTimeoutMs);
    current = {
      key,
      provided,
      rules,
      runId: provided?.runId ?? processRunId,
      // Plain vitest runs know only the target's secrets; the engine hands over every secret of its run.
      redact: createRedactor(provided?.secrets ?? []),
      setups: new Map(),
      answers: new AnswerWatch(),
    };
  }
  return current;
}

/**
 * The most a case's answer is read unless the case says it expects more (a kv value it wrote, read
 * back) or the target file's `maxAnswerBytes` says otherwise. A case judges what it asked for: every
 * answer of the suites against the reference is far smaller (with a 256 KiB cap only the one case that
 * reads 10 MB values back went past it; COMMAND's is the largest of the rest), and a target answering
 * 50 MB to every request held 570 to 680 MB in the conformance worker read whole (issue 25). A longer
 * answer is its case's `error`, read no further, never a rule's failure.
 */
export const judgedAnswerBytes = 4 * 1024 * 1024;

function caseSetupOf(run: RunSetup, area: TargetArea): { readonly setup: CaseSetup; readonly redact: Redactor } {
  let found = run.setups.get(area);
  if (!found) {
    const setup = resolveCaseSetup(area, process.env, run.provided);
    // This worker's requests read the target's cap, or the suites' own (the module is this thread's).
    setAnswerCap(setup.target?.maxAnswerBytes ?? judgedAnswerBytes);
    const redact = run.provided || !setup.target ? run.redact : createRedactor(targetSecrets(setup.target));
    found = { setup, redact };
    run.setups.set(area, found);
  }
  return found;
}

/** The longest message of a case's own error that is handed to vitest as it is. */
const keptMessageChars = 10_000;

/** Share of the vitest timeout a case's run may use; the rest is for its cleanups. */
const runShare = 0.8;
const defaultTimeoutMs = 30_000;

/**
 * Registers every case file under `conformanceDir` (a suites folder, `conformance/`): of the run's areas and
 * case files when the engine provides them, else of every area.
 */
export async function registerSuites(conformanceDir: string): Promise<void> {
  // What the suites share across cases (the messaging sink) is closed once every case has run.
  afterAll(endSuites);
  const provided = inject('svcRun');
  const files = await loadCaseFiles(provided?.areas, dirname(conformanceDir));
  const wanted = provided?.caseFiles ? new Set(provided.caseFiles) : undefined;
  const selected = files.filter((file) => wanted === undefined || wanted.has(file.file));
  if (selected.length === 0) {
    // vitest rejects a file without tests; this placeholder carries no case meta, so reports ignore it.
    test.skip('no case file of the areas asked for', () => {});
    return;
  }
  // Files whose cases may all run concurrently form one group (vitest runs adjacent concurrent describes
  // together); with the run's seed, the groups, files and cases are shuffled (case-order.ts).
  for (const file of orderCaseFiles(selected, provided?.order)) {
    describe(file.file, { concurrent: allConcurrent(file) }, () => registerCases(file.area, file.cases, file.file));
  }
}

/** Registers one case file's cases (`file`: its path in the repository, for the reports). */
export function registerCases(area: TargetArea, cases: readonly ConformanceCase[], file?: string): void {
  const run = runSetup();
  const { setup, redact } = caseSetupOf(run, area);
  const rulesGlob = run.rules;
  const matches = ruleFilter(rulesGlob);
  const selected = cases.filter((item) => matches(item.rules));
  if (selected.length === 0) {
    // vitest rejects a file without tests; this placeholder carries no case meta, so reports ignore it.
    test.skip(`no case of this file matches SVC_RULES=${rulesGlob ?? ''}`, () => {});
    return;
  }
  for (const item of selected) {
    const meta: CaseMeta = {
      id: item.id,
      area,
      rules: item.rules,
      title: item.title,
      expect: item.expect,
      ...(file !== undefined && { file }),
    };
    test(item.id, { meta: { svcCase: meta }, concurrent: item.concurrent === true }, (context) =>
      runCase(item, setup, redact, run, context),
    );
  }
}

/** The verdicts whose reports show the request behind them. */
const reproducedKinds: ReadonlySet<string> = new Set(['fail', 'stale', 'error', 'blocked']);

async function runCase(item: ConformanceCase, setup: CaseSetup, redact: Redactor, run: RunSetup, context: TestContext) {
  const finish = (outcome: CaseOutcome) => {
    context.task.meta.svcOutcome = outcome;
  };
  const unavailable = setup.skipReason ?? (setup.target ? missingCapability(setup.target, item.needs) : 'No target.');
  if (unavailable !== undefined || !setup.target) {
    const reason = unavailable ?? 'No target.';
    finish({ verdict: { kind: 'skip', reason }, notes: [] });
    context.skip(reason);
  }
  const stopped = run.answers.stopped();
  if (stopped !== undefined) {
    const reason = redact(stopped.reason);
    finish({ verdict: { kind: 'error', reason }, notes: [], stop: stopped.stop });
    throw new Error(reason);
  }
  const catalog = await loadRuleCatalog();
  const timeoutMs = context.task.timeout > 0 ? context.task.timeout : defaultTimeoutMs;
  const runBudgetMs = Math.floor(timeoutMs * runShare);
  const controller = new AbortController();
  const recorder = createCaseContext({
    target: setup.target,
    caseId: item.id,
    signal: controller.signal,
    runId: run.runId,
  });
  let thrown: { error: unknown } | undefined;
  let outOfTime = false;
  const log = new ExchangeLog();
  try {
    await withTimeout(
      logExchanges(log, () => item.run(recorder.context)),
      runBudgetMs,
      '',
      () => {
        outOfTime = true;
        return harnessError('SVC_TARGET_UNREACHABLE', `the case did not end within ${runBudgetMs} ms`);
      },
    );
  } catch (error) {
    thrown = { error };
  } finally {
    controller.abort();
  }
  const cleanupNotes = await recorder.cleanup(Math.max(1_000, timeoutMs - runBudgetMs - 1_000));
  const notes = [...recorder.notes, ...cleanupNotes].map(redact);
  const verdict = verdictOf({ rules: item.rules, levelOf: (id) => catalog.get(id)?.level, thrown, notes });
  const safeVerdict = 'reason' in verdict ? { ...verdict, reason: redact(verdict.reason) } : verdict;
  // The exchange the failing check judged (see exchange-log.ts); else the one judged last, else the last sent.
  const judged = exchangeJudgedBy(thrown?.error) ?? log.judged ?? log.exchanges.at(-1);
  const shown = reproducedKinds.has(safeVerdict.kind) && judged !== undefined && setup.target !== undefined;
  finish({ verdict: safeVerdict, notes, ...(shown && { exchange: caseExchange(judged, setup.target, redact) }) });
  const transport = outOfTime || (thrown !== undefined && noAnswerOf(thrown.error) !== undefined);
  const noAnswer = transport ? ('reason' in safeVerdict ? safeVerdict.reason : 'no answer') : undefined;
  run.answers.caseEnded(item.id, log, noAnswer);
  if (safeVerdict.kind === 'skip') context.skip(safeVerdict.reason);
  if ((safeVerdict.kind === 'fail' || safeVerdict.kind === 'error') && thrown) {
    // Plain vitest shows the failure; keep the original error (and its diff) unless it held a secret,
    // or is so long (a target's answer in full) that vitest would keep megabytes per case to the end.
    const original = thrown.error;
    const kept = original instanceof Error && original.message.length <= keptMessageChars;
    if (kept && redact(original.message) === original.message) throw original;
    throw new Error(redact(reasonLine(original)));
  }
}
