/**
 * What a load run is asked to do, parsed from flags and checked before anything starts: one clear
 * line for a bad value. Durations take `500ms`, `10s`, `2m` or plain seconds; a ramp is
 * `DURATION:RATE` stages separated by commas (`10s:100,30s:500`); lists are comma separated.
 */

import type { LoadEngineName } from '../../results/load-run.ts';
import { harnessError } from '../../shared/errors.ts';
import {
  type CountKind,
  type DurationKind,
  type EnumKind,
  type ListKind,
  type RateKind,
  Refusal,
  readCount,
  readCounts,
  readDuration,
  readEnum,
  readRate,
  readWords,
} from '../../shared/value-kinds.ts';
import type { RampStage } from './schedule.ts';

export type Model = 'open' | 'closed';
export type EngineName = LoadEngineName;

export const engineNames = ['node', 'node-undici', 'k6'] as const satisfies readonly EngineName[];

export interface LoadSettings {
  /**
   * Who makes the load: the node engine (raw sockets, worker threads), the node engine on undici (its
   * closed model is autocannon), k6, or several one after the other (`node,k6`: each scenario on each,
   * side by side in one report). @default ['node']
   */
  readonly engines: readonly EngineName[];
  /** k6 only: this many k6 processes, each with its own execution segment, merged into one result. */
  readonly segments?: number;
  readonly model: Model;
  readonly rate?: number;
  readonly durationS?: number;
  /**
   * Seconds of unmeasured load before each scenario's measured run, at its rate (node engine, open model,
   * scenarios without a sink or fan-out): a fresh process's first second (compiling, connecting, the
   * first collections) is no part of the latency a release is judged on. @default 1
   */
  readonly warmupS?: number;
  readonly ramp?: { readonly text: string; readonly stages: readonly RampStage[] };
  readonly connections?: number;
  readonly workers?: number;
  readonly batch?: readonly number[];
  readonly valueSize?: readonly number[];
  /** @default 1 */
  readonly seed: number;
  /** Per request and per stream event. @default 10 s */
  readonly timeoutMs: number;
  /**
   * Scenario parameters from `--param name=value`, by name: checked against what the run's scenarios
   * declare before anything starts (scenario-params.ts), each handed to the scenarios that declare it.
   */
  readonly params?: Readonly<Record<string, number>>;
}

/** The settings of a run given none (the programmatic API): each scenario's own rate and duration on the node engine. */
export const defaultLoadSettings: LoadSettings = { engines: ['node'], model: 'open', seed: 1, timeoutMs: 10_000 };

const bad = (flag: string, value: string, want: string) =>
  harnessError('SVC_USAGE', `load: ${flag} "${value}" is not ${want}`);

/** A kind's refusal as the load settings' usage line (`load: --rate "x" is not a number above zero`). */
function asFlag<T>(flag: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof Refusal) throw harnessError('SVC_USAGE', `load: ${error.text(flag)}`);
    throw error;
  }
}

/**
 * The kinds of the load settings' flags: the command table (src/cli/command-table.ts) gives its flags
 * these, so parse-argv reads them as `parseLoadSettings` reads their strings.
 */
export const loadFlagKinds = {
  engine: { kind: 'list', of: engineNames, distinct: true, want: 'node, node-undici, k6 or a list of them (node,k6)' },
  segments: {
    kind: 'count',
    min: 1,
    max: 64,
    want: 'a whole number above zero',
    tooMany: 'at most 64 (more is a cluster’s job: svc-harness k6 manifest)',
  },
  model: { kind: 'enum', choices: ['open', 'closed'] },
  rate: { kind: 'rate' },
  duration: { kind: 'duration' },
  warmup: { kind: 'duration', orZero: true },
  connections: { kind: 'count', min: 1, want: 'a whole number above zero' },
  workers: { kind: 'count', min: 1, want: 'a whole number above zero' },
  batch: { kind: 'list', of: 'count', min: 1 },
  'value-size': { kind: 'list', of: 'count', min: 0 },
  seed: { kind: 'count', min: 1, want: 'a whole number above zero' },
  timeout: { kind: 'duration' },
} as const satisfies Record<string, DurationKind | CountKind | RateKind | EnumKind | ListKind>;

/** Seconds from a duration in the harness's one grammar (`500ms`, `10s`, `1m30s`, `2h`, or plain seconds). */
export function parseDurationSeconds(text: string, flag = '--duration'): number {
  return asFlag(flag, () => readDuration(loadFlagKinds.duration, text)) / 1000;
}

/** A comma-separated list of whole numbers above zero (or of zero or more), for the benches' own flags. */
export function parseList(text: string, flag: string, allowZero = false): number[] {
  return asFlag(flag, () => readCounts(allowZero ? 0 : 1, text));
}

export function parseRamp(text: string): { text: string; stages: RampStage[] } {
  const stages = text.split(',').map((stage) => {
    const [duration, rate, extra] = stage.split(':');
    if (duration === undefined || rate === undefined || extra !== undefined) {
      throw bad('--ramp', text, 'stages of DURATION:RATE separated by commas (10s:100,30s:500)');
    }
    const value = Number(rate.trim());
    if (rate.trim() === '' || !Number.isFinite(value) || value < 0) {
      throw bad('--ramp', text, 'stages whose rates are numbers of zero or more');
    }
    return { durationS: parseDurationSeconds(duration, '--ramp'), rate: value };
  });
  if (stages.every((stage) => stage.rate === 0)) throw bad('--ramp', text, 'a ramp that sends anything');
  return { text, stages };
}

/**
 * `--param name=value` (repeatable) into values by name: a name of lower-case letters, digits and
 * `-`, a number, each name once. Whether a scenario declares it, and its bounds, are checked later,
 * once the scenarios are loaded.
 */
export function parseParams(texts: readonly string[], command = 'load'): Record<string, number> {
  const params: Record<string, number> = {};
  for (const text of texts) {
    const match = /^([a-z][a-z0-9-]*)=(.*)$/.exec(text.trim());
    const value = Number(match?.[2]?.trim());
    const name = match?.[1];
    if (name === undefined || match?.[2]?.trim() === '' || !Number.isFinite(value)) {
      throw harnessError('SVC_USAGE', `${command}: --param "${text}" is not NAME=NUMBER (endpoints=4, fail-share=0.1)`);
    }
    if (Object.hasOwn(params, name)) {
      throw harnessError('SVC_USAGE', `${command}: --param ${name} given more than once; it takes one value`);
    }
    params[name] = value;
  }
  return params;
}

/** The load flags as values of their kinds (durations in ms): what parse-argv hands `load`, `run` and `k6 manifest`. */
export interface LoadFlags {
  readonly engine?: readonly EngineName[];
  readonly segments?: number;
  readonly model?: Model;
  readonly rate?: number;
  /** Milliseconds. */
  readonly duration?: number;
  /** Milliseconds; 0 for none. */
  readonly warmup?: number;
  readonly ramp?: string;
  readonly connections?: number;
  readonly workers?: number;
  readonly batch?: readonly number[];
  readonly 'value-size'?: readonly number[];
  readonly seed?: number;
  /** Milliseconds. */
  readonly timeout?: number;
}

/**
 * Flag values as texts (the programmatic form the engine tests use) into settings: each text read by
 * its kind, then `loadSettingsOf`. `params`: the `--param` texts, as given; `command` opens their usage
 * lines (`run`, `k6 manifest`).
 */
export function parseLoadSettings(
  values: Readonly<Record<string, string | undefined>>,
  params: readonly string[] = [],
  command = 'load',
): LoadSettings {
  /** The flag's text read by `read`, or undefined when it was not given. */
  const kind = <T>(flag: keyof typeof loadFlagKinds, read: (text: string) => T): T | undefined => {
    const text = values[flag];
    return text === undefined ? undefined : asFlag(`--${flag}`, () => read(text));
  };
  const kinds = loadFlagKinds;
  const flags: LoadFlags = {
    engine: kind('engine', (text) => readWords(kinds.engine, text)),
    segments: kind('segments', (text) => readCount(kinds.segments, text)),
    model: kind('model', (text) => readEnum(kinds.model, text)),
    rate: kind('rate', readRate),
    duration: kind('duration', (text) => readDuration(kinds.duration, text)),
    warmup: kind('warmup', (text) => readDuration(kinds.warmup, text)),
    ramp: values.ramp,
    connections: kind('connections', (text) => readCount(kinds.connections, text)),
    workers: kind('workers', (text) => readCount(kinds.workers, text)),
    batch: kind('batch', (text) => readCounts(kinds.batch.min, text)),
    'value-size': kind('value-size', (text) => readCounts(kinds['value-size'].min, text)),
    seed: kind('seed', (text) => readCount(kinds.seed, text)),
    timeout: kind('timeout', (text) => readDuration(kinds.timeout, text)),
  };
  return loadSettingsOf(flags, params, command);
}

/** Typed flag values into settings: the checks between flags, before the run. */
export function loadSettingsOf(flags: LoadFlags, params: readonly string[] = [], command = 'load'): LoadSettings {
  const model = flags.model ?? 'open';
  const ramp = flags.ramp === undefined ? undefined : parseRamp(flags.ramp);
  if (ramp && flags.rate !== undefined) {
    throw harnessError('SVC_USAGE', 'load: --ramp and --rate are exclusive (a ramp states its rates)');
  }
  if (ramp && flags.duration !== undefined) {
    throw harnessError('SVC_USAGE', 'load: --ramp and --duration are exclusive (a ramp lasts as long as its stages)');
  }
  if (model === 'closed' && (ramp || flags.rate !== undefined)) {
    throw harnessError(
      'SVC_USAGE',
      'load: the closed model has no arrival rate (--rate, --ramp); it runs --connections at full speed',
    );
  }
  const engines = flags.engine ?? ['node'];
  if (flags.segments !== undefined && !engines.includes('k6')) {
    throw harnessError('SVC_USAGE', 'load: --segments splits the load over k6 processes: it needs --engine k6');
  }
  if (flags.workers !== undefined && !engines.some((item) => item !== 'k6')) {
    throw harnessError(
      'SVC_USAGE',
      'load: --workers sets the node engine’s threads; k6 spreads its load over VUs (--connections) and --segments',
    );
  }
  return {
    engines,
    ...(flags.segments !== undefined && { segments: flags.segments }),
    model,
    ...(flags.rate !== undefined && { rate: flags.rate }),
    ...(flags.duration !== undefined && { durationS: flags.duration / 1000 }),
    ...(flags.warmup !== undefined && { warmupS: flags.warmup / 1000 }),
    ...(ramp && { ramp }),
    ...(flags.connections !== undefined && { connections: flags.connections }),
    ...(flags.workers !== undefined && { workers: flags.workers }),
    ...(flags.batch !== undefined && { batch: flags.batch }),
    ...(flags['value-size'] !== undefined && { valueSize: flags['value-size'] }),
    seed: flags.seed ?? 1,
    timeoutMs: flags.timeout ?? 10_000,
    ...(params.length > 0 && { params: parseParams(params, command) }),
  };
}
