/**
 * The programmatic load run: check everything first (scenario names, settings, every threshold),
 * start the embedded reference unless a target is given, run each scenario in turn, and hand the
 * run to the reporters, also when it stops midway. `svc-harness run` calls it after conformance,
 * with the reference already started, and renders both parts as one run.
 */
import { type BaselineChoice, compareWithBaseline } from '../../results/comparable.ts';
import type { LoadRun, ScenarioResult } from '../../results/load-run.ts';
import { parseThresholds, type Threshold } from '../../results/threshold.ts';
import { harnessError, isHarnessError, oneLine } from '../../shared/errors.ts';
import { type Redactor, redactStrings } from '../../shared/redact.ts';
import type { Sink } from '../../sink/sink-server.ts';
import type { SinkSettings, Target } from '../../target/target.ts';
import { openRunContext, type RunCommonOptions, type RunContext, readRunTargets } from '../context/run-context.ts';
import { loadEngines, type PreparedEngine } from './load-engine.ts';
import { loadExitCode, renderLoadRun } from './load-run-end.ts';
import { defaultLoadSettings, type EngineName, type LoadSettings } from './load-settings.ts';
import { sinkLacking, startLoadSink } from './load-sink.ts';
import { areaLoadTarget } from './load-target.ts';
import type { MessagingEvidence } from './messaging-evidence.ts';
import { checkParams } from './scenario-params.ts';
import { type ScenarioRun, scenarioOptions, withAnswerCap } from './scenario-plan.ts';
import {
  checkScenarioNames,
  loadScenarioModule,
  scenarioFile,
  scenarioNames,
  scenariosDir,
} from './scenario-registry.ts';
import { unusableTarget } from './target-check.ts';

export interface LoadOptions extends RunCommonOptions {
  /** @default every scenario */
  readonly scenarios?: readonly string[];
  /** A target file; none (and no `environmentTarget`): the embedded reference. */
  readonly target?: string;
  /** A target read from the SVC_* environment (the CLI reads it only when no file is given). */
  readonly environmentTarget?: Target;
  /** @default defaultLoadSettings: each scenario's own rate and duration, open model, node engine */
  readonly settings?: LoadSettings;
  /** k6-syntax thresholds from the command line, on top of each scenario's own. */
  readonly thresholds?: readonly string[];
  /** @default scenarios/ of the repository */
  readonly scenariosDir?: string;
  /** The sink's settings from the command line (`--sink-*`); they win over the target file's `sink`. */
  readonly sink?: SinkSettings;
  /** A report to compare the run with (`--baseline`); a regression exits 98. */
  readonly baseline?: BaselineChoice;
}

/**
 * Redacts every string of a result (error examples and problems may quote a URL or an answer), never
 * its encoded histograms.
 */
function redactResult(result: ScenarioResult, redact: Redactor): ScenarioResult {
  return redactStrings(result, redact);
}

export async function runLoad(given: LoadOptions): Promise<LoadRun> {
  const options = { ...given, settings: given.settings ?? defaultLoadSettings };
  const plan = await planLoad(options);
  const targets = readRunTargets(options.target, options.environmentTarget);
  const context = await openRunContext('load', targets, options);
  let measured: LoadRun;
  try {
    measured = await loadPlanned(plan, options, context);
  } finally {
    await context.close();
  }
  const run: LoadRun = options.baseline
    ? compareWithBaseline(
        measured,
        { startedAt: measured.startedAt, load: measured },
        context.reportDir,
        options.baseline,
      )
    : measured;
  await renderLoadRun(run, context.reportDir, context.events, context.redact);
  return run;
}

/** The load part of a run, into its context (`svc-harness run`'s second part): planned, then run. */
export async function loadPart(given: LoadPartOptions, context: RunContext): Promise<LoadRun> {
  const options = { ...given, settings: given.settings ?? defaultLoadSettings, log: context.log };
  return loadPlanned(await planLoad(options), options, context);
}

/**
 * What a part of a run takes of the load's options (the run context holds the rest), and what only a
 * part asks for: `svc-harness run`'s short load after conformance, and the soak's evidence. Not options
 * of `runLoad`.
 */
export interface LoadPartOptions
  extends Pick<LoadOptions, 'scenarios' | 'settings' | 'thresholds' | 'scenariosDir' | 'sink'> {
  /** Each scenario's default duration capped to this many seconds (the main job's short runs). */
  readonly maxDurationS?: number;
  /** Leave out scenarios of areas the target lacks, without a problem (the main job). @default false */
  readonly onlySupported?: boolean;
  /** Each messaging scenario's per-publish evidence once its sink's wait ended (the soak's checker). */
  readonly onMessagingEvidence?: (evidence: MessagingEvidence) => void;
  /** While a scenario with a `readBack` runs, its read-back (undefined once its load ended): the soak's. */
  readonly onReadBack?: ScenarioRun['readBack'];
  /** Such a scenario's fates once its load ended. */
  readonly onUpdates?: ScenarioRun['updates'];
  /** Awaited as each scenario's measured load ends, before its accounting and finish (the soak heals here). */
  readonly onLoadEnd?: ScenarioRun['loadEnded'];
}

type PlanOptions = LoadPartOptions & { readonly settings: LoadSettings; readonly log?: (line: string) => void };

/**
 * Every scenario module, threshold and parameter checked, and each engine asked for prepared, before
 * anything starts: a mistake or a missing k6 is one line, not a started reference.
 */
async function planLoad(options: PlanOptions) {
  const dir = options.scenariosDir ?? scenariosDir;
  const names = options.scenarios?.length ? [...options.scenarios] : scenarioNames(dir);
  checkScenarioNames(names, dir);
  const cliThresholds = parseThresholds(options.thresholds ?? [], 'cli');
  // Every module and every threshold is checked before anything starts.
  const planned = await Promise.all(
    names.map(async (name) => {
      // A user's module compiled once here; engines, workers and k6 import `file` as it is.
      const { scenario, file } = await loadScenarioModule(scenarioFile(name, dir));
      let own: Threshold[];
      try {
        own = parseThresholds(scenario.thresholds, 'scenario');
      } catch (error) {
        throw harnessError('SVC_CONFIG', `scenario ${name}: ${oneLine(error)}`);
      }
      if (
        scenario.fanout &&
        options.settings.model === 'closed' &&
        options.settings.engines.some((engine) => loadEngines[engine].lacks(scenario) === undefined)
      ) {
        throw harnessError(
          'SVC_USAGE',
          `load: ${name} accounts for every publish at every subscriber, which needs the open model (--model closed is for throughput ceilings)`,
        );
      }
      if (scenario.needsOpenModel !== undefined && options.settings.model === 'closed') {
        throw harnessError('SVC_USAGE', `load: ${name} needs the open model: ${scenario.needsOpenModel}`);
      }
      return { name, file, scenario, thresholds: [...own, ...cliThresholds] };
    }),
  );
  checkParams(options.settings.params ?? {}, planned, 'load');
  const log = options.log ?? (() => {});
  const skipped: { name: string; reason: string }[] = [];
  // Each scenario on each engine asked for, in that order: `--engine node,k6` puts them side by side.
  const runs: ((typeof planned)[number] & { engine: EngineName })[] = [];
  for (const item of planned) {
    for (const engine of options.settings.engines) {
      const reason = loadEngines[engine].lacks(item.scenario);
      if (reason === undefined) runs.push({ ...item, engine });
      else skipped.push({ name: item.name, reason: `on ${engine}: ${reason}; it runs with --engine node` });
    }
  }
  if (runs.length === 0) {
    throw harnessError(
      'SVC_USAGE',
      `load: nothing to run: ${skipped.map((item) => `${item.name} ${item.reason}`).join('; ')}`,
    );
  }
  for (const item of skipped) log(`load: ${item.name} is skipped ${item.reason}`);
  // Prepared before the target starts: a missing k6 is one line, not a started reference.
  const prepared = new Map<EngineName, PreparedEngine>();
  for (const engine of new Set(runs.map((item) => item.engine))) {
    prepared.set(engine, await loadEngines[engine].prepare(options.settings, log));
  }
  return { runs, skipped, prepared };
}

/** The planned scenarios run in turn into the context: the load part's own work. */
async function loadPlanned(
  { runs, skipped, prepared }: Awaited<ReturnType<typeof planLoad>>,
  options: PlanOptions,
  context: RunContext,
): Promise<LoadRun> {
  const started = context.now();
  const fileTarget = context.fileTargets[0];
  const target: Target = fileTarget ?? (await context.reference()).target;
  const embedded = fileTarget === undefined;
  context.noticeShortSecrets();
  const { redact, events, signal, runId } = context;
  const results: ScenarioResult[] = [];
  const problems: string[] = [];
  let aborted: string | undefined;
  // Started on first use, once for the run: the messaging scenarios' sink.
  let sink: Promise<Sink> | undefined;
  try {
    // What each scenario lacks (the area it loads, a sink the target can call back) is said per scenario;
    // then a target that cannot carry the load of the rest stops the run before its first request, in one line.
    const lackingOf = (item: (typeof runs)[number]) =>
      !areaLoadTarget(target, item.scenario.area)
        ? `the target has no ${item.scenario.area} area, which the scenario loads`
        : item.scenario.sink
          ? sinkLacking(target, options.sink)
          : undefined;
    const loaded = [...new Set(runs.filter((item) => lackingOf(item) === undefined).map((item) => item.scenario.area))];
    const unusable = await unusableTarget(target, loaded);
    if (unusable !== undefined) throw unusable;
    for (const item of runs) {
      if (signal.aborted) break;
      const area = areaLoadTarget(target, item.scenario.area);
      const lacking = lackingOf(item);
      if (!area || lacking !== undefined) {
        if (options.onlySupported) continue;
        problems.push(redact(`${item.name}: ${lacking}`));
        continue;
      }
      if (item.scenario.sink) sink ??= startLoadSink(target, options.sink);
      const engine = prepared.get(item.engine) as PreparedEngine;
      const line = `${engine.label}${options.settings.model} model on ${target.name}${embedded ? ' (embedded reference)' : ''}`;
      const scenarioRun = {
        scenario: item.scenario,
        file: item.file,
        settings: options.settings,
        thresholds: item.thresholds,
        target: area,
        ...(item.scenario.sink && sink && { sink: await sink }),
        runId,
        signal,
        progress: events.onProgress,
        phase: events.onPhase,
        ...(options.onMessagingEvidence !== undefined && { evidence: options.onMessagingEvidence }),
        ...(options.onReadBack !== undefined && { readBack: options.onReadBack }),
        ...(options.onUpdates !== undefined && { updates: options.onUpdates }),
        ...(options.onLoadEnd !== undefined && { loadEnded: options.onLoadEnd }),
        ...(options.maxDurationS !== undefined && { maxDurationS: options.maxDurationS }),
      };
      const planned = scenarioOptions(scenarioRun);
      events.onScenarioStart(item.name, line, {
        engine: item.engine,
        target: target.name,
        embedded,
        durationS: planned.durationS,
      });
      // Every engine reads within the scenario's cap on one answer (k6 in its setup and finish only:
      // k6 itself reads whole answers, and its memory guard is the bound there).
      const capped = withAnswerCap(scenarioRun, planned);
      const result = redactResult(await engine.run(capped), redact);
      results.push(result);
      events.onScenarioEnd(result);
    }
    if (signal.aborted) {
      aborted = `interrupted (${typeof signal.reason === 'string' ? signal.reason : 'aborted'})`;
      for (const item of runs.slice(results.length)) problems.push(`${item.name}: not run: the run was interrupted`);
    }
  } catch (error) {
    aborted = redact(isHarnessError(error) ? `${error.message} [${error.code}]` : oneLine(error));
  } finally {
    await (await sink?.catch(() => undefined))?.close();
  }
  const finished = context.now();
  return {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    target: target.name,
    embedded,
    scenarios: results,
    problems,
    ...(skipped.length > 0 && { skipped }),
    ...(aborted !== undefined && { aborted }),
    exitCode: loadExitCode(results, problems, aborted),
  };
}
