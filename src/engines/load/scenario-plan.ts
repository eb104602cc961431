/**
 * How one scenario runs: its settings after defaults and the command line (rate, duration,
 * connections, threads), the context its setup and finish talk to the target through, and its
 * arrival schedule.
 */

import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { dispatcherFor, httpRequest } from '../../http/http-client.ts';
import { dialectHeaders } from '../../protocol/dialect-headers.ts';
import {
  answerRoom,
  type Scenario,
  type ScenarioContext,
  type ScenarioOptions,
  type SinkUrls,
} from '../../protocol/scenario.ts';
import type { LoadProgress, PhaseChange } from '../../results/reporter.ts';
import type { Threshold } from '../../results/threshold.ts';
import type { FatePart } from './fate-log.ts';
import type { LoadSettings } from './load-settings.ts';
import type { LoadTarget } from './load-target.ts';
import type { MessagingEvidence } from './messaging-evidence.ts';
import { scenarioParams } from './scenario-params.ts';
import type { CountingSink } from './scenario-sink.ts';
import { constantSchedule, rampSchedule, type Schedule } from './schedule.ts';

/**
 * Above this many requests per second, a thread of its own per share. Measured here (bench/load-memory.ts,
 * open model, one thread): 5,000 req/s of a trivial scenario held with drops below 0.1 %; the kv
 * scenarios build and check more per request, so a thread takes 3,000.
 */
const ratePerWorker = 3000;
/** The open model's default cap on requests in flight: past it, arrivals are dropped. */
const defaultOpenConnections = 1000;
const defaultClosedConnections = 10;

export interface ScenarioRun {
  readonly scenario: Scenario;
  readonly file: string;
  readonly settings: LoadSettings;
  readonly thresholds: readonly Threshold[];
  readonly target: LoadTarget;
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly progress: (progress: LoadProgress) => void;
  /** A phase of the scenario (its warm-up, its measured load) begins or ends. */
  readonly phase?: (change: PhaseChange) => void;
  /** The main job's short runs: the scenario's default duration capped to this. */
  readonly maxDurationS?: number;
  /** The run's sink, started once when a scenario has a `sink` part (messaging load). */
  readonly sink?: CountingSink;
  /** Given a messaging scenario's per-publish evidence after its sink's wait (the soak's checker asks). */
  readonly evidence?: (evidence: MessagingEvidence) => void;
  /**
   * While the load runs: the scenario's read-back of its counters (its `readBack`), for the soak to
   * call after each recovery; undefined given once the load ended, and what that returns is awaited
   * before the scenario's finish (a read still running must not see what finish deletes). Then its
   * fates (`updates`).
   */
  readonly readBack?: (
    scenario: string,
    read: (() => Promise<Readonly<Record<string, number>>>) | undefined,
  ) => void | Promise<void>;
  readonly updates?: (scenario: string, fates: FatePart) => void;
  /**
   * The measured load ended: awaited before anything reads the target again (the read-backs' end, the
   * sink's wait, the scenario's finish). The soak heals its faults here and waits until the
   * implementation is ready (Jepsen's final heal): a kill that struck in the last second must not
   * fail the scenario's finish, nor cut the sink's wait short while nothing can deliver.
   */
  readonly loadEnded?: (scenario: string) => Promise<void>;
}

export function scenarioOptions(
  run: Pick<ScenarioRun, 'scenario' | 'settings' | 'maxDurationS'>,
): ScenarioOptions & { workers: number } {
  const { scenario, settings } = run;
  const defaults = scenario.defaults;
  const durationS = settings.ramp
    ? settings.ramp.stages.reduce((sum, stage) => sum + stage.durationS, 0)
    : (settings.durationS ?? Math.min(defaults.durationS, run.maxDurationS ?? Number.POSITIVE_INFINITY));
  const rate = settings.ramp
    ? Math.max(...settings.ramp.stages.map((stage) => stage.rate))
    : (settings.rate ?? defaults.rate);
  const connections =
    settings.connections ?? (settings.model === 'open' ? defaultOpenConnections : defaultClosedConnections);
  // Fan-out accounting needs every publish on the thread that holds the subscribers.
  const workers =
    scenario.fanout || settings.model === 'closed'
      ? 1
      : (settings.workers ?? Math.min(cpus().length, Math.max(1, Math.ceil(rate / ratePerWorker))));
  return {
    durationS,
    rate,
    connections,
    batch: settings.batch ?? defaults.batch,
    valueSize: settings.valueSize ?? defaults.valueSize,
    seed: settings.seed,
    params: scenarioParams(scenario, settings.params),
    workers,
  };
}

/**
 * The run with its target's cap on one answer lowered to what the scenario's checks can pass
 * (`Scenario.largestAnswer`, with `answerRoom`), when that is lower: the engine's transports, its
 * threads, setup and finish all read within it.
 */
export function withAnswerCap(run: ScenarioRun, options: ScenarioOptions): ScenarioRun {
  const largest = run.scenario.largestAnswer?.(options);
  if (largest === undefined || !Number.isFinite(largest) || largest < 0) return run;
  const cap = Math.min(run.target.maxAnswerBytes, answerRoom(largest));
  return cap === run.target.maxAnswerBytes ? run : { ...run, target: { ...run.target, maxAnswerBytes: cap } };
}

/** `sink`: the URLs of the scenario's sink inbox, for a scenario with a `sink` part. */
export function contextFor(
  run: ScenarioRun,
  options: ScenarioOptions,
  problems: string[],
  sink?: SinkUrls,
): ScenarioContext {
  return {
    problem: (line) => problems.push(line),
    prefix: `svc-load:${run.runId}:${run.scenario.name}:${randomBytes(3).toString('hex')}`,
    options,
    ...(sink && { sink }),
    async send(request) {
      const res = await httpRequest({
        url: `${run.target.baseUrl}${request.path}`,
        method: request.method,
        headers: {
          ...run.target.headers,
          ...dialectHeaders(request.headers, run.target.headerPrefix),
          ...(request.body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(request.body !== undefined && { body: request.body }),
        timeoutMs: run.settings.timeoutMs,
        maxAnswerBytes: run.target.maxAnswerBytes,
        dispatcher: dispatcherFor(run.target.tls),
      });
      return { status: res.status, body: res.body.toString('utf8') };
    },
  };
}

export function scheduleOf(run: ScenarioRun, options: ScenarioOptions): Schedule {
  return run.settings.ramp ? rampSchedule(run.settings.ramp.stages) : constantSchedule(options.rate, options.durationS);
}
