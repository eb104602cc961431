/**
 * `svc-harness soak` (issue 39): load for a long time while a nemesis faults the implementation, then
 * what happened. The steps, each its own module:
 *
 * 1. the fault specs read (fault-spec.ts) and laid out over the run, seeded (fault-schedule.ts);
 * 2. the implementation started when the soak can start it (soak-implementation.ts: the target file's
 *    `process`, or the reference in a process of its own), the network paths put through toxiproxy
 *    when a network fault is asked for (soak-paths.ts);
 * 3. the load, as `load` runs it (the load part in a run context of its own: its reports, thresholds
 *    and live outputs), and beside it,
 *    from the first scenario's start, the nemesis (nemesis.ts) and the sampler of the implementation's
 *    and the harness's memory and CPU (resource-sampler.ts), both stopped when the load ends;
 * 4. everything the soak started stopped (also on Ctrl-C, also when a step threw), the checker run
 *    over each messaging scenario's per-publish evidence against the faults (soak-findings.ts: lost
 *    by id, indeterminates, recovery per fault, the soak's thresholds), the trends fitted over the
 *    samples (results/soak-trends.ts: memory slope per hour, CPU), and `soak.json` written beside
 *    the load's reports: the seed, the timeline, each fault as it happened, the implementation's exits
 *    nobody asked for, the findings; summary.md and index.html get the soak's section (soak-report.ts).
 *
 * A fault that could not be done leaves the run not judged (exit 2): the soak did not test what it was
 * asked to. A crash of the implementation that the soak did not cause fails it (exit 1), and a soak
 * threshold that failed (a lost message, by default) does as a load threshold does (exit 99).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BaselineChoice, compareWithBaseline } from '../../results/comparable.ts';
import type { LoadRun } from '../../results/load-run.ts';
import type { FaultChange, Reporter } from '../../results/reporter.ts';
import { isSoakThreshold, parseSoakThresholds } from '../../results/soak-thresholds.ts';
import { type TrendSeries, trendSeries, trendsJson } from '../../results/soak-trends.ts';
import type { ReadBackResult } from '../../results/soak-updates.ts';
import { ExitCode, harnessError, oneLine } from '../../shared/errors.ts';
import { type FaultSpec, FaultSpecError, isProcessFault, parseFaultSpec } from '../../shared/fault-spec.ts';
import { createRedactor, redactStrings } from '../../shared/redact.ts';
import { defaultReportDir } from '../../shared/report-files.ts';
import { withTimeout } from '../../shared/with-timeout.ts';
import { loadTargetFileSync } from '../../target/read-target.ts';
import { imageNeedsTemplate, type SinkSettings, type Target, targetSecrets } from '../../target/target.ts';
import { openRunContext, type RunCommonOptions, type RunContext } from '../context/run-context.ts';
import type { FatePart } from '../load/fate-log.ts';
import { renderLoadRun } from '../load/load-run-end.ts';
import { defaultLoadSettings, type LoadSettings } from '../load/load-settings.ts';
import type { MessagingEvidence } from '../load/messaging-evidence.ts';
import { loadPart } from '../load/run-load.ts';
import { scenarioNames, scenariosDir } from '../load/scenario-registry.ts';
import { type FaultOccurrence, faultSchedule } from './fault-schedule.ts';
import type { UnexpectedExit } from './managed-process.ts';
import { type DoneFault, type NemesisRun, startNemesis } from './nemesis.ts';
import { type ResourceSampler, sampleIntervalMs, startResourceSampler } from './resource-sampler.ts';
import { findingsJson, type SoakFindings, soakFindings } from './soak-findings.ts';
import { type SoakImplementation, startSoakImplementation } from './soak-implementation.ts';
import { startSoakPaths } from './soak-paths.ts';
import { addToReports } from './soak-report.ts';

export interface SoakOptions extends RunCommonOptions {
  /** @default every scenario */
  readonly scenarios?: readonly string[];
  /** A target file (with `process`, the soak starts it); none: the reference, in a process of its own. */
  readonly target?: string;
  /** A target read from the SVC_* environment (the CLI reads it only when no file is given). */
  readonly environmentTarget?: Target;
  /** Fault specs (`kill every 10m`, …). */
  readonly faults?: readonly string[];
  /** `durationS` is each scenario's; `seed` also seeds the faults. */
  readonly settings?: LoadSettings;
  readonly thresholds?: readonly string[];
  readonly sink?: SinkSettings;
  readonly scenariosDir?: string;
  /** Extra `serve` flags for the reference (the tests' `--retry-backoff`). */
  readonly serveArgs?: readonly string[];
  /** `--image NAME[:TAG]`: the target file's `image` template started as the implementation's container. */
  readonly image?: string;
  /** A report to compare the load with (`--baseline`), as `load` does: a regression exits 98. */
  readonly baseline?: BaselineChoice;
}

export interface SoakRun {
  readonly load: LoadRun;
  readonly seed: number;
  readonly timeline: readonly FaultOccurrence[];
  readonly faults: readonly DoneFault[];
  readonly implementation: SoakImplementation['kind'];
  readonly unexpectedExits: readonly UnexpectedExit[];
  readonly problems: readonly string[];
  readonly reportDir: string;
  /** Unix ms of the faults' time 0 (the measured load's start); undefined when the load never began. */
  readonly origin?: number;
  /** The memory and CPU sampled through the load, every `intervalMs`: the implementation's (when the soak started it) and the harness's. */
  readonly trends: { readonly intervalMs: number; readonly series: readonly TrendSeries[] };
  /** The checker's findings over the messaging scenarios, and the soak's thresholds. */
  readonly findings: SoakFindings;
  readonly exitCode: number;
}

/** The longest a read-back after a heal may take (it is a few GETs). */
const readBackLimitMs = 10_000;
/** How long a read-back waits before it tries again. */
const readBackRetryMs = 250;

/**
 * A read-back, tried again until it answers: the first request after a heal may still meet what the
 * fault left (a kept connection to the killed process, a reset), and a read of counters can be
 * repeated. Bounded by the caller's limit (readBackLimitMs); the last error is the one told. `at` is
 * when the read that answered began (Unix ms): what it is held to is what was committed before then,
 * as an increment answered while a failed try waited is in the later read's values.
 */
async function readRetried<T>(
  read: () => Promise<T>,
  deadline = performance.now() + readBackLimitMs - readBackRetryMs,
): Promise<{ readonly at: number; readonly values: T }> {
  for (;;) {
    const at = Date.now();
    try {
      return { at, values: await read() };
    } catch (error) {
      if (performance.now() + readBackRetryMs >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, readBackRetryMs));
    }
  }
}

/** How long a kill or restart is taken to keep the process busy when the timeline places the next one. */
const restartAllowanceMs = 2000;

/** The reference retries a failed delivery after 0.5 s, doubling: the real backoff waits minutes, past a soak's grace. */
const referenceServeArgs = ['--retry-backoff', '500ms'];

/** Every spec read; the first that does not read is one usage line. */
export function readFaultSpecs(texts: readonly string[]): FaultSpec[] {
  return texts.map((text) => {
    try {
      return parseFaultSpec(text);
    } catch (error) {
      if (error instanceof FaultSpecError) throw harnessError('SVC_USAGE', `soak: --fault ${error.message}`);
      throw error;
    }
  });
}

export async function runSoak(options: SoakOptions): Promise<SoakRun> {
  const settings = options.settings ?? defaultLoadSettings;
  const specs = readFaultSpecs(options.faults ?? []);
  // The soak's thresholds (lost, recovery_s, …) apart from the load's, each read before anything starts.
  const soakThresholds = parseSoakThresholds((options.thresholds ?? []).filter(isSoakThreshold));
  const loadThresholds = (options.thresholds ?? []).filter((text) => !isSoakThreshold(text));
  const evidence: MessagingEvidence[] = [];
  // A key-value scenario's read-back while it runs, each one done after a heal, and its fates after.
  let readBack:
    | { readonly scenario: string; readonly read: () => Promise<Readonly<Record<string, number>>> }
    | undefined;
  const readings: { readonly scenario: string; readonly done: Promise<ReadBackResult> }[] = [];
  const updateFates = new Map<string, FatePart>();
  const readAfter = (faultId: string) => {
    if (readBack === undefined) return;
    const { scenario, read } = readBack;
    const asked = Date.now();
    const done = withTimeout(readRetried(read), readBackLimitMs, `no read-back within ${readBackLimitMs} ms`).then(
      ({ at, values }): ReadBackResult => ({ faultId, at, values }),
      (error: unknown): ReadBackResult => ({ faultId, at: asked, error: oneLine(error) }),
    );
    readings.push({ scenario, done });
  };
  const log = options.log ?? (() => {});
  const fileTarget = options.target === undefined ? options.environmentTarget : loadTargetFileSync(options.target);
  const reportDir = options.reportDir ?? defaultReportDir((options.now ?? (() => new Date()))());
  const names = options.scenarios?.length ? options.scenarios : scenarioNames(options.scenariosDir ?? scenariosDir);
  const eachMs = (settings.durationS ?? 0) * 1000;
  const timeline = faultSchedule(specs, eachMs * names.length, settings.seed, restartAllowanceMs);
  const intervalMs = sampleIntervalMs(eachMs * names.length);

  if (options.image !== undefined && (options.target === undefined || fileTarget?.image === undefined)) {
    throw harnessError('SVC_USAGE', `soak: ${imageNeedsTemplate}`);
  }
  const implementation = await startSoakImplementation(
    fileTarget,
    specs.some(isProcessFault),
    options.serveArgs ?? referenceServeArgs,
    options.image !== undefined && options.target !== undefined
      ? { file: options.target, name: options.image }
      : undefined,
  );
  const problems: string[] = [];
  let load: LoadRun | undefined;
  let faults: DoneFault[] = [];
  let origin: number | undefined;
  let sampler: ResourceSampler | undefined;
  try {
    const paths = await startSoakPaths(specs, implementation.target, options.sink, settings.seed, log);
    try {
      const stopNemesis = new AbortController();
      const signal = options.signal ? AbortSignal.any([stopNemesis.signal, options.signal]) : stopNemesis.signal;
      let nemesis: NemesisRun | undefined;
      // The faults go to the reporters as they happen (the live outputs' fault events), through the run
      // context's events: a reporter that fails is cut off there for the faults as for the rest.
      let context: RunContext | undefined;
      const parts = {
        ...(implementation.process !== undefined && { process: implementation.process }),
        ...(paths.network !== undefined && { network: paths.network }),
        onChange: (change: FaultChange) => {
          context?.events.onFault(change);
          if (change.edge === 'end' && change.error === undefined) readAfter(change.id);
        },
      };
      // Jepsen's final heal: after the last scenario's load the nemesis stops (what is on is healed, a
      // restarted process is ready); after an earlier one, the faults on at its end are waited out.
      // Either way the sink's wait, the read-backs and the scenario's finish meet a recovered
      // implementation, not one a kill in the last second left down.
      let loadsEnded = 0;
      const onLoadEnd = async () => {
        loadsEnded += 1;
        if (loadsEnded < names.length) {
          await nemesis?.settled();
          return;
        }
        // The trends are the load's: the final heal and the sink's wait after it are no part of them.
        sampler?.stop();
        stopNemesis.abort();
        faults = (await nemesis?.done) ?? [];
      };
      // The faults' time 0 is the measured load's start: the first scenario's load phase, once its
      // set-up and warm-up are done (the time 0 of its per-second series). They end with the load,
      // before any reporter renders: this reporter is first, so its end heals what is on and tells
      // the other reporters (the live outputs) before they close.
      const starter: Reporter = {
        name: 'soak',
        onPhase: (change) => {
          if (nemesis !== undefined || change.phase !== 'load' || change.edge !== 'start') return;
          origin = Date.now();
          nemesis = startNemesis(timeline, origin, parts, signal);
          const managed = implementation.process;
          sampler = startResourceSampler({
            intervalMs,
            // Live: each sample to the reporters (the outputs' process_* points) as it is taken.
            onSample: (reading) => context?.events.onResources(reading),
            // Sampled while ready only: a restart's start-up (a runtime loading itself) is no leak.
            ...(managed !== undefined && { group: () => (managed.ready ? managed.pid : undefined) }),
          });
        },
        async onRunEnd() {
          stopNemesis.abort();
          faults = (await nemesis?.done) ?? [];
        },
      };
      // One run context, as every command has: the target the soak runs against (its paths, read and
      // checked when the soak's own target was), the report folder, the events, the redactor.
      context = await openRunContext(
        'soak',
        { targets: [paths.target] },
        {
          reportDir,
          reporters: [starter, ...(options.reporters ?? [])],
          ...(options.signal !== undefined && { signal: options.signal }),
          ...(options.now !== undefined && { now: options.now }),
          log,
        },
      );
      try {
        load = await loadPart(
          {
            ...(options.scenarios !== undefined && { scenarios: options.scenarios }),
            settings,
            thresholds: loadThresholds,
            onMessagingEvidence: (item) => evidence.push(item),
            onReadBack: async (scenario, read) => {
              readBack = read === undefined ? undefined : { scenario, read };
              // The load ended: its reads finish before the scenario's finish deletes its counters.
              if (read === undefined) await Promise.all(readings.map((item) => item.done));
            },
            onUpdates: (scenario, fates) => updateFates.set(scenario, fates),
            onLoadEnd,
            ...(paths.sink !== undefined && { sink: paths.sink }),
            ...(options.scenariosDir !== undefined && { scenariosDir: options.scenariosDir }),
          },
          context,
        );
      } finally {
        sampler?.stop();
        stopNemesis.abort();
        faults = (await nemesis?.done) ?? [];
        await context.close();
      }
      // Compared with a baseline as `load` compares (its thresholds, then the comparison's exit 98).
      const baseline = options.baseline;
      if (baseline !== undefined) {
        const measured = load;
        load = compareWithBaseline(measured, { startedAt: measured.startedAt, load: measured }, reportDir, baseline);
      }
      await renderLoadRun(load, context.reportDir, context.events, context.redact);
    } finally {
      await paths.stop();
    }
  } finally {
    await implementation.stop();
  }
  for (const fault of faults) {
    if (fault.error !== undefined) problems.push(`fault ${fault.id} (${fault.text}): ${fault.error}`);
  }
  const unexpectedExits = implementation.process?.unexpectedExits ?? [];
  for (const exit of unexpectedExits) {
    problems.push(
      `the implementation exited on its own (${exit.signal ?? `code ${exit.code}`})${exit.output ? `: ${exit.output}` : ''}`,
    );
  }
  // A messaging scenario accounted by counters only (fates not kept: a custom scenario that tells none)
  // is not checked message by message: said, never passed over in silence.
  const checked = new Set(evidence.map((item) => item.scenario));
  for (const scenario of load.scenarios) {
    if (scenario.accounting.messaging !== undefined && !checked.has(scenario.name)) {
      problems.push(`${scenario.name}: not checked message by message (it told no per-publish fates)`);
    }
  }
  const done = await Promise.all(readings.map(async (item) => ({ scenario: item.scenario, result: await item.done })));
  const updateEvidence = [...updateFates].map(([scenario, fates]) => ({
    scenario,
    fates,
    readings: done.filter((item) => item.scenario === scenario).map((item) => item.result),
  }));
  const interrupted = options.signal?.aborted === true;
  const samples = sampler?.stop();
  const series = [
    ...(samples?.implementation !== undefined ? [trendSeries('implementation', samples.implementation)] : []),
    ...(samples !== undefined ? [trendSeries('harness', samples.harness)] : []),
  ];
  const findings = soakFindings(evidence, faults, soakThresholds, updateEvidence, interrupted, series);
  evidence.length = 0;
  const exitCode = faults.some((fault) => fault.error !== undefined)
    ? ExitCode.notJudged
    : unexpectedExits.length > 0 && load.exitCode === ExitCode.ok
      ? ExitCode.failed
      : !findings.ok && load.exitCode === ExitCode.ok
        ? ExitCode.thresholds
        : load.exitCode;
  // Only what the soak itself wrote down (an exit's output may quote a token); the load's run was
  // redacted by the load, and its encoded histograms are never touched again.
  const redact = createRedactor([...implementation.secrets, ...targetSecrets(implementation.target)]);
  const run: SoakRun = {
    load,
    seed: settings.seed,
    timeline,
    faults: redactStrings(faults, redact),
    implementation: implementation.kind,
    unexpectedExits: redactStrings(unexpectedExits, redact),
    problems: redactStrings(problems, redact),
    reportDir,
    ...(origin !== undefined && { origin }),
    trends: { intervalMs, series },
    findings: redactStrings(findings, redact),
    exitCode,
  };
  await writeFile(join(reportDir, 'soak.json'), `${JSON.stringify(soakJson(run), null, 2)}\n`);
  await addToReports(reportDir, run.findings, run.trends.series);
  return run;
}

/** What soak.json holds: the soak's own facts; the load's are in report.json beside it. */
function soakJson(run: SoakRun) {
  return {
    seed: run.seed,
    implementation: run.implementation,
    timeline: run.timeline.map((item) => ({
      id: item.id,
      fault: item.spec.text,
      startS: item.startMs / 1000,
      endS: item.endMs / 1000,
      ...(item.delayedMs > 0 && { delayedS: item.delayedMs / 1000 }),
    })),
    faults: run.faults,
    unexpectedExits: run.unexpectedExits,
    problems: run.problems,
    trends: trendsJson(run.trends.intervalMs, run.trends.series),
    check: findingsJson(run.findings),
    ...(run.origin !== undefined && { startedAt: new Date(run.origin).toISOString() }),
    exitCode: run.exitCode,
  };
}
