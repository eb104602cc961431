/**
 * What a load run is asked to do, parsed from flags and checked before anything starts: one clear
 * line for a bad value. Durations take `500ms`, `10s`, `2m` or plain seconds; a ramp is
 * `DURATION:RATE` stages separated by commas (`10s:100,30s:500`); lists are comma separated.
 */

import type { LoadEngineName } from '../../results/load-run.ts';
import { durationExamples, parseDurationMs } from '../../shared/duration.ts';
import { harnessError } from '../../shared/errors.ts';
import type { RampStage } from './schedule.ts';

export type Model = 'open' | 'closed';
export type EngineName = LoadEngineName;

const engineNames: readonly EngineName[] = ['node', 'node-undici', 'k6'];

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

/** Seconds from a duration in the harness's one grammar (`500ms`, `10s`, `1m30s`, `2h`, or plain seconds). */
export function parseDuration(text: string, flag = '--duration'): number {
  const ms = parseDurationMs(text);
  if (ms === undefined) throw bad(flag, text, `a duration (${durationExamples})`);
  if (!(ms > 0)) throw bad(flag, text, 'a duration above zero');
  return ms / 1000;
}

/** `--warmup`: a duration, or 0 (`0`, `0s`) for none. */
function parseWarmup(text: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined || !(ms >= 0)) throw bad('--warmup', text, `a duration (${durationExamples}) or 0`);
  return ms / 1000;
}

export function parsePositive(text: string, flag: string, integer = true): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw bad(flag, text, integer ? 'a whole number above zero' : 'a number above zero');
  }
  return value;
}

export function parseList(text: string, flag: string, allowZero = false): number[] {
  return text.split(',').map((item) => {
    const value = Number(item.trim());
    if (item.trim() === '' || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
      throw bad(flag, text, `a comma-separated list of whole numbers${allowZero ? '' : ' above zero'}`);
    }
    return value;
  });
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
    return { durationS: parseDuration(duration, '--ramp'), rate: value };
  });
  if (stages.every((stage) => stage.rate === 0)) throw bad('--ramp', text, 'a ramp that sends anything');
  return { text, stages };
}

/** k6 processes on this machine: more than 64 is a cluster's job (k6-operator, `k6 manifest`). */
function parseSegments(text: string): number {
  const segments = parsePositive(text, '--segments');
  if (segments > 64) throw bad('--segments', text, 'at most 64 (more is a cluster’s job: svc-harness k6 manifest)');
  return segments;
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
    if (!match || match[2]?.trim() === '' || !Number.isFinite(value)) {
      throw harnessError('SVC_USAGE', `${command}: --param "${text}" is not NAME=NUMBER (endpoints=4, fail-share=0.1)`);
    }
    const name = match[1] as string;
    if (Object.hasOwn(params, name)) {
      throw harnessError('SVC_USAGE', `${command}: --param ${name} given more than once; it takes one value`);
    }
    params[name] = value;
  }
  return params;
}

/**
 * Flag values (strings, as the CLI parser gives them) into settings; every check before the run.
 * `params`: the `--param` texts, as given; `command` opens their usage lines (`run`, `k6 manifest`).
 */
export function parseLoadSettings(
  values: Readonly<Record<string, string | undefined>>,
  params: readonly string[] = [],
  command = 'load',
): LoadSettings {
  const model = values.model ?? 'open';
  if (model !== 'open' && model !== 'closed') throw bad('--model', model, 'open or closed');
  const ramp = values.ramp === undefined ? undefined : parseRamp(values.ramp);
  if (ramp && values.rate !== undefined) {
    throw harnessError('SVC_USAGE', 'load: --ramp and --rate are exclusive (a ramp states its rates)');
  }
  if (ramp && values.duration !== undefined) {
    throw harnessError('SVC_USAGE', 'load: --ramp and --duration are exclusive (a ramp lasts as long as its stages)');
  }
  if (model === 'closed' && (ramp || values.rate !== undefined)) {
    throw harnessError(
      'SVC_USAGE',
      'load: the closed model has no arrival rate (--rate, --ramp); it runs --connections at full speed',
    );
  }
  const engines = (values.engine ?? 'node').split(',').map((item) => item.trim());
  if (engines.some((item) => !engineNames.includes(item as EngineName)) || new Set(engines).size !== engines.length) {
    throw bad('--engine', values.engine ?? '', 'node, node-undici, k6 or a list of them (node,k6)');
  }
  if (values.segments !== undefined && !engines.includes('k6')) {
    throw harnessError('SVC_USAGE', 'load: --segments splits the load over k6 processes: it needs --engine k6');
  }
  if (values.workers !== undefined && !engines.some((item) => item !== 'k6')) {
    throw harnessError(
      'SVC_USAGE',
      'load: --workers sets the node engine’s threads; k6 spreads its load over VUs (--connections) and --segments',
    );
  }
  return {
    engines: engines as EngineName[],
    ...(values.segments !== undefined && { segments: parseSegments(values.segments) }),
    model,
    ...(values.rate !== undefined && { rate: parsePositive(values.rate, '--rate', false) }),
    ...(values.duration !== undefined && { durationS: parseDuration(values.duration) }),
    ...(values.warmup !== undefined && { warmupS: parseWarmup(values.warmup) }),
    ...(ramp && { ramp }),
    ...(values.connections !== undefined && { connections: parsePositive(values.connections, '--connections') }),
    ...(values.workers !== undefined && { workers: parsePositive(values.workers, '--workers') }),
    ...(values.batch !== undefined && { batch: parseList(values.batch, '--batch') }),
    ...(values['value-size'] !== undefined && { valueSize: parseList(values['value-size'], '--value-size', true) }),
    seed: values.seed === undefined ? 1 : parsePositive(values.seed, '--seed'),
    timeoutMs: values.timeout === undefined ? 10_000 : parseDuration(values.timeout, '--timeout') * 1000,
    ...(params.length > 0 && { params: parseParams(params, command) }),
  };
}
