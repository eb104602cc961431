/**
 * k6's `options` for the harness's scenarios: the open model as an arrival-rate executor (k6 drops an
 * iteration when no VU is free, and counts it as `dropped_iterations`), a ramp as
 * `ramping-arrival-rate` from 0, the closed model as `constant-vus`; the scenarios one after another;
 * the harness's thresholds on metrics k6 knows as k6 thresholds, scoped to their scenario.
 */
import type { ScenarioOptions } from '../../../protocol/scenario.ts';
import { appliesTo, type Threshold } from '../../../results/threshold.ts';
import type { Model } from '../load-settings.ts';
import type { RampStage } from '../schedule.ts';
import { k6SystemTags } from './script/k6-config.ts';

/** The metrics k6 itself measures under the same names; the others only the harness evaluates. */
export const k6KnownMetrics: ReadonlySet<string> = new Set([
  'http_req_duration',
  'http_req_failed',
  'http_reqs',
  'checks',
  'dropped_iterations',
]);

export interface K6ScenarioPlan {
  readonly name: string;
  readonly model: Model;
  readonly options: ScenarioOptions;
  readonly ramp?: readonly RampStage[];
  readonly thresholds: readonly Threshold[];
}

/** The exported function of the n-th scenario in the generated entry. */
export const execName = (index: number) => `scenario_${index}`;

/** k6 durations: whole milliseconds (a start time may be 0). */
const duration = (seconds: number, least = 1) => `${Math.max(least, Math.round(seconds * 1000))}ms`;

/**
 * A rate as k6 takes it: a whole number of iterations per time unit. 2.5/s becomes 2,500 per 1,000 s,
 * and a rate under one a second one iteration per its interval: the same spacing between arrivals.
 */
export function rateOf(perSecond: number): { rate: number; timeUnit: string } {
  if (Number.isInteger(perSecond)) return { rate: perSecond, timeUnit: '1s' };
  if (perSecond >= 1) return { rate: Math.round(perSecond * 1000), timeUnit: '1000s' };
  return { rate: 1, timeUnit: duration(1 / perSecond) };
}

function executorOf(plan: K6ScenarioPlan, index: number, startS: number, graceS: number): Record<string, unknown> {
  const { options } = plan;
  const common = { exec: execName(index), startTime: duration(startS, 0), gracefulStop: duration(graceS) };
  if (plan.model === 'closed') {
    return { executor: 'constant-vus', vus: options.connections, duration: duration(options.durationS), ...common };
  }
  // VUs made up front: 100 ms of arrivals at the peak rate, at least 10 (with 50 ms, a start on a busy
  // machine dropped a few arrivals while k6 made more); k6 makes more while it runs, up to the cap.
  const peak = plan.ramp ? Math.max(...plan.ramp.map((stage) => stage.rate)) : options.rate;
  const vus = {
    preAllocatedVUs: Math.min(options.connections, Math.max(10, Math.ceil(peak * 0.1))),
    maxVUs: options.connections,
  };
  if (plan.ramp) {
    // Stage targets are whole numbers too: a fractional one scales every stage to a 1,000 s time unit.
    const scale = plan.ramp.every((stage) => Number.isInteger(stage.rate)) ? 1 : 1000;
    return {
      executor: 'ramping-arrival-rate',
      startRate: 0,
      timeUnit: `${scale}s`,
      stages: plan.ramp.map((stage) => ({
        target: Math.round(stage.rate * scale),
        duration: duration(stage.durationS),
      })),
      ...vus,
      ...common,
    };
  }
  return {
    executor: 'constant-arrival-rate',
    ...rateOf(options.rate),
    duration: duration(options.durationS),
    ...vus,
    ...common,
  };
}

/** `http_req_duration{batch:1}: p(99)<500` of scenario `pipeline` → `http_req_duration{scenario:pipeline,batch:1}`. */
export function k6ThresholdKey(threshold: Threshold, scenario: string): string {
  // The scenario first, and always this one (a `{scenario:NAME}` threshold reaches here only for NAME).
  const { scenario: _named, ...rest } = threshold.tags;
  const tags = Object.entries({ scenario, ...rest }).map(([key, value]) => `${key}:${value}`);
  return `${threshold.metric}{${tags.join(',')}}`;
}

export function k6Options(plans: readonly K6ScenarioPlan[], timeoutMs: number): Record<string, unknown> {
  // In-flight requests end (answered or timed out) before k6 stops a scenario: none is cut off unseen.
  const graceS = timeoutMs / 1000 + 1;
  const scenarios: Record<string, unknown> = {};
  const thresholds: Record<string, string[]> = {};
  let startS = 0;
  plans.forEach((plan, index) => {
    scenarios[plan.name] = executorOf(plan, index, startS, graceS);
    startS += plan.options.durationS + graceS;
    for (const threshold of plan.thresholds) {
      if (!k6KnownMetrics.has(threshold.metric) || !appliesTo(threshold, plan.name)) continue;
      const key = k6ThresholdKey(threshold, plan.name);
      thresholds[key] = [...(thresholds[key] ?? []), `${threshold.aggregation}${threshold.operator}${threshold.bound}`];
    }
  });
  return {
    scenarios,
    thresholds,
    systemTags: k6SystemTags,
    // A redirect is an answer (a 3xx, failed), as on the node engine, not a second request.
    maxRedirects: 0,
    // Seconds, for the transaction scenario's counters and a slow target's first answers.
    setupTimeout: '120s',
    teardownTimeout: '120s',
  };
}
