/**
 * A scenario's result from what its engine parts measured, whichever engine made the load (node
 * threads, autocannon, k6 segments, k6 files merged later): the merged parts, what finish found,
 * the fan-out's accounting, the problems, then the thresholds evaluated over all of it.
 */
import type { ScenarioFinish, ScenarioOptions } from '../../protocol/scenario.ts';
import { decodeHistogram, summarize } from '../../results/histogram.ts';
import type {
  DeliveryAccounting,
  LoadEngineName,
  MessagingAccounting,
  ScenarioResult,
  ScenarioSettings,
} from '../../results/load-run.ts';
import { evaluateThresholds, type Threshold } from '../../results/threshold.ts';
import { type MergedParts, mergeParts } from './recorder.ts';
import type { ScenarioRun } from './scenario-plan.ts';

/** What a result says before the load: who ran what, with which settings, from when. */
export type ResultBase = Pick<ScenarioResult, 'name' | 'title' | 'engine' | 'model' | 'settings' | 'startedAt'>;

/** The base of a result from the run and its settings; `engine` says who made the load, and how split. */
export function resultBase(
  run: Pick<ScenarioRun, 'scenario' | 'settings'>,
  options: ScenarioOptions,
  engine: Pick<ScenarioSettings, 'workers' | 'segments' | 'k6Version'> & { readonly name: LoadEngineName },
): ResultBase {
  const { name, ...split } = engine;
  return {
    name: run.scenario.name,
    title: run.scenario.title,
    engine: name,
    model: run.settings.model,
    settings: {
      ...(run.settings.model === 'open' && { rate: options.rate }),
      ...(run.settings.ramp && { ramp: run.settings.ramp.text }),
      durationS: options.durationS,
      connections: options.connections,
      ...split,
      seed: options.seed,
      batch: options.batch,
      valueSize: options.valueSize,
      params: options.params,
    },
    startedAt: new Date().toISOString(),
  };
}

export interface ResultInput {
  readonly base: ResultBase;
  readonly merged: MergedParts;
  readonly finish: ScenarioFinish;
  readonly delivery?: DeliveryAccounting;
  /** A messaging scenario's accounting at the sink. */
  readonly messaging?: MessagingAccounting;
  readonly problems: readonly string[];
  /** Seconds the load ran: rates are per second of load, not of setup and finish. */
  readonly loadSeconds: number;
  readonly durationMs: number;
  readonly thresholds: readonly Threshold[];
}

export function scenarioResult(input: ResultInput): ScenarioResult {
  const { merged, finish } = input;
  const latency = decodeHistogram(merged.histogram);
  const latencyMs = summarize(latency);
  latency.destroy();
  const checks = [
    ...merged.checks,
    ...(finish.checks ?? []).map((check) => ({ name: check.name, passes: check.ok ? 1 : 0, fails: check.ok ? 0 : 1 })),
  ];
  const result: ScenarioResult = {
    ...input.base,
    durationMs: input.durationMs,
    requests: merged.counts,
    commands: merged.commands,
    throughput: {
      requestsPerSecond: merged.counts.completed / input.loadSeconds,
      commandsPerSecond: merged.commands / input.loadSeconds,
    },
    latencyMs,
    histogram: merged.histogram,
    series: merged.series,
    tags: merged.tags,
    checks,
    errors: merged.errors,
    counters: merged.tallies,
    accounting: {
      ...(finish.lostUpdates !== undefined && { lostUpdates: finish.lostUpdates }),
      ...(finish.doubledUpdates !== undefined && { doubledUpdates: finish.doubledUpdates }),
      ...(finish.unknownOutcomes !== undefined && { unknownOutcomes: finish.unknownOutcomes }),
      ...(input.delivery && { delivery: input.delivery }),
      ...(input.messaging && { messaging: input.messaging }),
    },
    thresholds: [],
    ...(input.problems.length > 0 && { problem: input.problems.join('; ') }),
  };
  return { ...result, thresholds: evaluateThresholds(input.thresholds, result) };
}

/** A scenario that measured nothing (setup failed, nothing to run): its problem, and thresholds with no data. */
export function emptyResult(base: ResultBase, problem: string, thresholds: readonly Threshold[]): ScenarioResult {
  return scenarioResult({
    base,
    merged: mergeParts([]),
    finish: {},
    problems: [problem],
    loadSeconds: 1,
    durationMs: 0,
    thresholds,
  });
}
