/**
 * One mutant's run (undefined when the run's hard deadline cut it): the lane's proxies carry the mutant, and `svc-harness conformance` runs the cases
 * whose exchanges it changes (by their rules) as a user runs it. The outcome: not fired (no exchange
 * changed), caught (a MUST case failed), survived (the gate passed), or error (exit 2, error verdicts,
 * no report: the run did not judge, which is not a catch).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import type { Lane } from './lane.ts';
import type { PlannedMutant } from './mutant-plan.ts';
import { operatorById } from './operators/catalog.ts';

export type Outcome = 'caught' | 'survived' | 'not-fired' | 'error';

export interface MutantResult {
  readonly mutant: PlannedMutant;
  readonly outcome: Outcome;
  readonly fired: number;
  /** Exchanges it changed (method, path, status). */
  readonly changed: readonly string[];
  readonly exitCode: number | null;
  /** The failing cases with the rule each blames (caught), or why the run did not judge (error). */
  readonly detail: readonly string[];
  readonly durationMs: number;
}

interface ReportCase {
  readonly id: string;
  readonly verdict: { readonly kind: string; readonly rule?: string; readonly reason?: string };
}

/** A run is killed after this: a mutant that makes the suite hang is an error, not a catch. */
const runTimeoutMs = 180_000;

/** The sink's wait of a delayed-delivery mutant: the suite's default, so a chain of delays is no catch. */
const delayedSinkWaitSeconds = 15;

/**
 * The lane's target file, except for a delayed delivery: the lane's short sink wait would turn a chain
 * of delayed deliveries (message, callback, retries) into a timeout that no spec rule stands behind.
 */
async function targetFor(lane: Lane, mutant: PlannedMutant, reportDir: string): Promise<string> {
  if (mutant.operatorId !== 'delivery.delayed') return lane.targetFile;
  const target = JSON.parse(await readFile(lane.targetFile, 'utf8')) as { sink?: Record<string, unknown> };
  const file = join(reportDir, 'target.json');
  await writeFile(file, JSON.stringify({ ...target, sink: { ...target.sink, waitSeconds: delayedSinkWaitSeconds } }));
  return file;
}

/** A quick run with the cheapest cases' rules first; the full run only for a mutant that escaped it. */
export async function runMutant(
  lane: Lane,
  mutant: PlannedMutant,
  dir: string,
  deadline = Number.POSITIVE_INFINITY,
): Promise<MutantResult | undefined> {
  if (mutant.quickRules) {
    const quick = await runWithRules(lane, mutant, mutant.quickRules, dir, deadline);
    if (quick === undefined || quick.outcome === 'caught') return quick;
    const full = await runWithRules(lane, mutant, mutant.rules, dir, deadline);
    return full && { ...full, durationMs: quick.durationMs + full.durationMs };
  }
  return runWithRules(lane, mutant, mutant.rules, dir, deadline);
}

async function runWithRules(
  lane: Lane,
  mutant: PlannedMutant,
  rules: readonly string[],
  dir: string,
  deadline: number,
): Promise<MutantResult | undefined> {
  const operator = operatorById(mutant.operatorId);
  if (operator === undefined) throw new Error(`no operator ${mutant.operatorId}`);
  const reportDir = await mkdtemp(join(dir, 'mutant-'));
  const targetFile = await targetFor(lane, mutant, reportDir);
  lane.setMutant({ operator, routeClass: mutant.routeClass });
  const run = await runCli(
    [
      'conformance',
      '--target',
      targetFile,
      '--area',
      mutant.area,
      '--rules',
      rules.join(','),
      '--reporter',
      'json',
      '--report-dir',
      reportDir,
    ],
    { reportDir, timeoutMs: Math.max(1_000, Math.min(runTimeoutMs, deadline - Date.now())) },
  );
  // Killed at the hard deadline (not at its own limit): not run, rather than a verdict of the mutant.
  if (run.signal === 'SIGKILL' && Date.now() >= deadline) {
    lane.setMutant(undefined);
    return undefined;
  }
  const { count, changed } = lane.fired();
  lane.setMutant(undefined);
  const report = run.report as { targets?: { cases?: ReportCase[] }[] } | undefined;
  const cases = report?.targets?.flatMap((target) => target.cases ?? []) ?? [];
  const failing = cases.filter((item) => item.verdict.kind === 'fail');
  const errors = cases.filter((item) => item.verdict.kind === 'error');
  let outcome: Outcome;
  let detail: string[];
  if (count === 0) {
    outcome = 'not-fired';
    detail = [];
  } else if (failing.length > 0) {
    outcome = 'caught';
    detail = failing.map((item) => `${item.id} [${item.verdict.rule ?? '?'}]`);
  } else if (run.exitCode === 0) {
    outcome = 'survived';
    const blocked = cases.filter((item) => item.verdict.kind === 'blocked');
    detail = blocked.map((item) => `blocked ${item.id} [${item.verdict.rule ?? '?'}]`);
  } else {
    outcome = 'error';
    detail =
      errors.length > 0
        ? errors.slice(0, 3).map((item) => `error ${item.id}: ${(item.verdict.reason ?? '').slice(0, 160)}`)
        : [`exit ${run.exitCode ?? run.signal}: ${(run.stderr.trim().split('\n').at(-1) ?? '').slice(0, 200)}`];
  }
  return { mutant, outcome, fired: count, changed, exitCode: run.exitCode, detail, durationMs: run.durationMs };
}
