/**
 * The main job (`svc-harness run`): conformance, then a short load run of every scenario the target
 * supports (the messaging ones when it has a messaging area and a sink, as the embedded reference has), against one target (the embedded reference stays up between the two), rendered as one
 * run into one report. Everything is checked before the reference starts.
 */

import { resolve } from 'node:path';
import { type EmbeddedReference, startEmbeddedReference } from '../../reference/embedded.ts';
import { type BaselineChoice, compareWithBaseline } from '../../results/comparable.ts';
import { combinedExitCode, type HarnessRun } from '../../results/harness-run.ts';
import { type Reporter, reporterEvents } from '../../results/reporter.ts';
import { parseThresholds } from '../../results/threshold.ts';
import { collectAfterBurst } from '../../shared/memory-relief.ts';
import { createRedactor, shortSecretNotice } from '../../shared/redact.ts';
import { defaultReportDir, makeReportDir } from '../../shared/report-files.ts';
import { loadTargetFileSync } from '../../target/read-target.ts';
import { type SinkSettings, type Target, targetSecrets } from '../../target/target.ts';
import { loadRuleCatalog } from '../conformance/rule-catalog.ts';
import { runConformance } from '../conformance/run-conformance.ts';
import type { LoadSettings } from '../load/load-settings.ts';
import { runLoad } from '../load/run-load.ts';

export interface MainJobOptions {
  /** A target file; none (and no `environmentTarget`): the embedded reference. */
  readonly target?: string;
  /** A target read from the SVC_* environment (the CLI reads it only when no file is given). */
  readonly environmentTarget?: Target;
  /** The load's settings. @default defaultLoadSettings */
  readonly settings?: LoadSettings;
  readonly maxDurationS?: number;
  readonly thresholds?: readonly string[];
  readonly expectations?: string;
  readonly reportDir?: string;
  readonly signal?: AbortSignal;
  readonly reporters?: readonly Reporter[];
  readonly now?: () => Date;
  /** The sink for the messaging suite and the messaging scenarios (`--sink-*`). */
  readonly sink?: SinkSettings;
  /** Lines the run tells once its checks passed (the environment's target); the CLI prints them to stderr. */
  readonly log?: (line: string) => void;
  /** A report to compare the run with (`--baseline`); a regression exits 98. */
  readonly baseline?: BaselineChoice;
  /** The conformance half's request and stream-wait budget (the load half's is in `settings`). @default 10 s */
  readonly caseTimeoutMs?: number;
  /** Conformance cases marked concurrent running at once. @default 6 */
  readonly caseConcurrency?: number;
}

export async function runMainJob(options: MainJobOptions): Promise<HarnessRun> {
  const now = options.now ?? (() => new Date());
  const started = now();
  parseThresholds(options.thresholds ?? [], 'cli');
  const fileTarget = options.target === undefined ? options.environmentTarget : loadTargetFileSync(options.target);
  const reportDir = resolve(options.reportDir ?? defaultReportDir(started));
  await makeReportDir(reportDir, 'report folder (--report-dir)');
  const catalog = await loadRuleCatalog();
  const reference: EmbeddedReference | undefined = fileTarget ? undefined : await startEmbeddedReference([]);
  const secrets = [
    ...(fileTarget ? targetSecrets(fileTarget) : []),
    ...(reference ? [...targetSecrets(reference.target), ...reference.secrets] : []),
  ];
  const redact = createRedactor(secrets);
  const notice = shortSecretNotice(secrets);
  if (notice !== undefined) options.log?.(notice);
  const events = reporterEvents(options.reporters ?? []);
  const signal = options.signal ?? new AbortController().signal;
  try {
    const conformance = await runConformance({
      targets: options.target === undefined ? [] : [options.target],
      ...(options.environmentTarget && { environmentTarget: options.environmentTarget }),
      ...(reference && { reference }),
      ...(options.expectations !== undefined && { expectations: options.expectations }),
      reportDir,
      signal,
      reporters: options.reporters ?? [],
      emitRunEnd: false,
      now,
      ...(options.caseTimeoutMs !== undefined && { timeoutMs: options.caseTimeoutMs }),
      ...(options.caseConcurrency !== undefined && { caseConcurrency: options.caseConcurrency }),
      ...(options.sink && { sink: options.sink }),
      ...(options.log && { log: (line: string) => options.log?.(line.replace(/^conformance: /, 'run: ')) }),
    });
    if (!signal.aborted) collectAfterBurst();
    // A target conformance found down (its one line said so) gets no load: every request would fail the same way.
    const down = conformance.targets.length > 0 && conformance.targets.every((target) => target.problem !== undefined);
    const load =
      signal.aborted || down
        ? undefined
        : await runLoad({
            ...(options.target !== undefined && { target: options.target }),
            ...(options.environmentTarget && { environmentTarget: options.environmentTarget }),
            ...(reference && { reference }),
            ...(options.settings && { settings: options.settings }),
            thresholds: options.thresholds ?? [],
            ...(options.maxDurationS !== undefined && { maxDurationS: options.maxDurationS }),
            onlySupported: true,
            ...(options.sink && { sink: options.sink }),
            reportDir,
            signal,
            reporters: options.reporters ?? [],
            emitRunEnd: false,
            secrets,
            now,
          });
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
    const run = options.baseline ? compareWithBaseline(measured, measured, reportDir, options.baseline) : measured;
    await events.onRunEnd(run, { catalog, redact });
    return run;
  } finally {
    await reference?.stop().catch(() => {});
  }
}
