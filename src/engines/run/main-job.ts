/**
 * The main job (`svc-harness run`): conformance, then a short load run of every scenario the target
 * supports (the messaging ones when it has a messaging area and a sink, as the embedded reference has), against one target (the embedded reference stays up between the two), rendered as one
 * run into one report. Everything is checked before the reference starts.
 */

import { type BaselineChoice, compareWithBaseline } from '../../results/comparable.ts';
import { combinedExitCode, type HarnessRun } from '../../results/harness-run.ts';
import { parseThresholds } from '../../results/threshold.ts';
import { collectAfterBurst } from '../../shared/memory-relief.ts';
import type { SinkSettings, Target } from '../../target/target.ts';
import { loadRuleCatalog } from '../conformance/rule-catalog.ts';
import {
  type ConformanceOptions,
  checkConformanceOptions,
  conformancePart,
  prepareSuites,
} from '../conformance/run-conformance.ts';
import { openRunContext, type RunCommonOptions, readRunTargets } from '../context/run-context.ts';
import type { LoadSettings } from '../load/load-settings.ts';
import { loadPart } from '../load/run-load.ts';

export interface MainJobOptions extends RunCommonOptions {
  /** A target file; none (and no `environmentTarget`): the embedded reference. */
  readonly target?: string;
  /** A target read from the SVC_* environment (the CLI reads it only when no file is given). */
  readonly environmentTarget?: Target;
  /** The load's settings. @default defaultLoadSettings */
  readonly settings?: LoadSettings;
  readonly maxDurationS?: number;
  readonly thresholds?: readonly string[];
  readonly expectations?: string;
  /** The sink for the messaging suite and the messaging scenarios (`--sink-*`). */
  readonly sink?: SinkSettings;
  /** A report to compare the run with (`--baseline`); a regression exits 98. */
  readonly baseline?: BaselineChoice;
  /** The conformance half's request and stream-wait budget (the load half's is in `settings`). @default 10 s */
  readonly caseTimeoutMs?: number;
  /** Conformance cases marked concurrent running at once. @default 6 */
  readonly caseConcurrency?: number;
}

export async function runMainJob(options: MainJobOptions): Promise<HarnessRun> {
  parseThresholds(options.thresholds ?? [], 'cli');
  const catalog = await loadRuleCatalog();
  const conformanceOptions: ConformanceOptions = {
    ...(options.expectations !== undefined && { expectations: options.expectations }),
    ...(options.signal && { signal: options.signal }),
    ...(options.caseTimeoutMs !== undefined && { caseTimeoutMs: options.caseTimeoutMs }),
    ...(options.caseConcurrency !== undefined && { caseConcurrency: options.caseConcurrency }),
    ...(options.sink && { sink: options.sink }),
  };
  checkConformanceOptions(conformanceOptions, catalog);
  const suites = await prepareSuites(conformanceOptions, catalog);
  const targets = readRunTargets(options.target, options.environmentTarget);
  const context = await openRunContext('run', targets, options);
  const { signal, now, started, reportDir } = context;
  let run: HarnessRun;
  try {
    // Started before both parts, so the short-secret notice knows every secret, and said once.
    if (context.fileTargets.length === 0) await context.reference();
    context.noticeShortSecrets();
    const conformancePartRun = await conformancePart(conformanceOptions, context, suites);
    if (conformancePartRun.error !== undefined) throw conformancePartRun.error;
    const conformance = conformancePartRun.run;
    if (!signal.aborted) collectAfterBurst();
    // A target conformance found down (its one line said so) gets no load: every request would fail the same way.
    const down = conformance.targets.length > 0 && conformance.targets.every((target) => target.problem !== undefined);
    const load =
      signal.aborted || down
        ? undefined
        : await loadPart(
            {
              ...(options.settings && { settings: options.settings }),
              thresholds: options.thresholds ?? [],
              ...(options.maxDurationS !== undefined && { maxDurationS: options.maxDurationS }),
              onlySupported: true,
              ...(options.sink && { sink: options.sink }),
            },
            context,
          );
    const finished = now();
    const aborted = load?.aborted ?? conformance.aborted;
    const measured: HarnessRun = {
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      reportDir,
      exitCode: combinedExitCode(conformance.exitCode, load?.exitCode),
      ...(aborted !== undefined && { aborted }),
      problems: [...conformance.problems, ...(load?.problems ?? [])],
      conformance,
      ...(load && { load }),
    };
    run = options.baseline ? compareWithBaseline(measured, measured, reportDir, options.baseline) : measured;
  } finally {
    await context.close();
  }
  await context.events.onRunEnd(run, { catalog, redact: context.redact });
  return run;
}
