/**
 * One scenario, start to end: setup (unmeasured), the load (open model, in threads when asked, or
 * closed), the fan-out subscribers when it has some, finish (verify and clean up), then the result
 * with its thresholds. Whatever happens, what was measured becomes the result, and finish runs.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { dispatcherFor, httpRequest, loadDispatcher } from '../../http/http-client.ts';
import type { Scenario, ScenarioContext, ScenarioOptions } from '../../protocol/scenario.ts';
import { decodeHistogram, summarize } from '../../results/histogram.ts';
import type { DeliveryAccounting, ScenarioResult } from '../../results/load-run.ts';
import type { LoadProgress } from '../../results/reporter.ts';
import { evaluateThresholds, type Threshold } from '../../results/threshold.ts';
import { oneLine } from '../../shared/errors.ts';
import { type Fanout, openFanout } from './fanout.ts';
import type { LoadSettings } from './load-settings.ts';
import type { LoadTarget } from './load-target.ts';
import type { WorkerCommand, WorkerInput, WorkerMessage } from './load-worker.ts';
import { type PartProgress, runOpenPart } from './open-model.ts';
import { mergeParts, type RecorderPart } from './recorder.ts';
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
  /** The main job's short runs: the scenario's default duration capped to this. */
  readonly maxDurationS?: number;
}

export function scenarioOptions(run: ScenarioRun): ScenarioOptions & { workers: number } {
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
    workers,
  };
}

function contextFor(run: ScenarioRun, options: ScenarioOptions, problems: string[]): ScenarioContext {
  return {
    problem: (line) => problems.push(line),
    prefix: `svc-load:${run.runId}:${run.scenario.name}:${randomBytes(3).toString('hex')}`,
    options,
    async send(request) {
      const res = await httpRequest({
        url: `${run.target.baseUrl}${request.path}`,
        method: request.method,
        headers: { ...run.target.headers, ...(request.body !== undefined && { 'content-type': 'application/json' }) },
        ...(request.body !== undefined && { body: request.body }),
        timeoutMs: run.settings.timeoutMs,
        maxAnswerBytes: run.target.maxAnswerBytes,
        dispatcher: dispatcherFor(run.target.tls),
      });
      return { status: res.status, body: res.body.toString('utf8') };
    },
  };
}

function scheduleOf(run: ScenarioRun, options: ScenarioOptions): Schedule {
  return run.settings.ramp ? rampSchedule(run.settings.ramp.stages) : constantSchedule(options.rate, options.durationS);
}

async function runWorkers(
  run: ScenarioRun,
  options: ScenarioOptions & { workers: number },
  state: unknown,
  onProgress: (part: number, progress: PartProgress) => void,
): Promise<RecorderPart[]> {
  const workers = Array.from({ length: options.workers }, (_, index) => {
    const input: WorkerInput = {
      scenarioFile: run.file,
      state,
      target: run.target,
      schedule: {
        rate: options.rate,
        durationS: options.durationS,
        ...(run.settings.ramp && { ramp: run.settings.ramp.stages }),
      },
      connections: Math.max(1, Math.ceil(options.connections / options.workers)),
      timeoutMs: run.settings.timeoutMs,
      drainMs: run.settings.timeoutMs,
      seed: options.seed,
      part: { index, count: options.workers },
    };
    return new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: input });
  });
  const stop = () => {
    for (const worker of workers) worker.postMessage({ type: 'stop' } satisfies WorkerCommand);
  };
  let ready = 0;
  // Every worker has loaded its modules: one origin for all, a moment ahead so none starts late.
  const onReady = () => {
    ready++;
    if (ready < workers.length) return;
    const originEpochMs = performance.timeOrigin + performance.now() + 20;
    for (const worker of workers) worker.postMessage({ type: 'start', originEpochMs } satisfies WorkerCommand);
  };
  run.signal.addEventListener('abort', stop, { once: true });
  try {
    return await Promise.all(
      workers.map((worker, index) =>
        new Promise<RecorderPart>((resolve, reject) => {
          worker.on('message', (message: WorkerMessage) => {
            if (message.type === 'ready') onReady();
            else if (message.type === 'progress') onProgress(index, message);
            else if (message.type === 'done') resolve(message.part);
            else reject(new Error(`worker ${index + 1}: ${message.message}`));
          });
          worker.on('error', reject);
          worker.on('exit', (code) => reject(new Error(`worker ${index + 1} exited with code ${code}`)));
        }).finally(() => void worker.terminate()),
      ),
    );
  } finally {
    run.signal.removeEventListener('abort', stop);
  }
}

export async function runScenario(run: ScenarioRun): Promise<ScenarioResult> {
  const { scenario } = run;
  const options = scenarioOptions(run);
  const startedAt = new Date();
  const problems: string[] = [];
  const context = contextFor(run, options, problems);
  const base = {
    name: scenario.name,
    title: scenario.title,
    engine: 'node' as const,
    model: run.settings.model,
    settings: {
      ...(run.settings.model === 'open' && { rate: options.rate }),
      ...(run.settings.ramp && { ramp: run.settings.ramp.text }),
      durationS: options.durationS,
      connections: options.connections,
      workers: options.workers,
      seed: options.seed,
      batch: options.batch,
      valueSize: options.valueSize,
    },
    startedAt: startedAt.toISOString(),
  };
  let state: unknown;
  try {
    state = await scenario.setup(context);
  } catch (error) {
    return emptyResult(base, `setup failed: ${oneLine(error)}`, run.thresholds);
  }

  const schedule = scheduleOf(run, options);
  let fanout: Fanout | undefined;
  const parts: RecorderPart[] = [];
  const origin = performance.now();
  const partProgress = new Map<number, PartProgress>();
  const report = () => {
    const all = [...partProgress.values()];
    run.progress({
      scenario: scenario.name,
      elapsedS: (performance.now() - origin) / 1000,
      durationS: options.durationS,
      rate: all.reduce((sum, item) => sum + item.rate, 0),
      p99Ms: Math.max(0, ...all.map((item) => item.p99Ms)),
      errors: all.reduce((sum, item) => sum + item.errors, 0),
      dropped: all.reduce((sum, item) => sum + item.dropped, 0),
    });
  };
  let delivery: DeliveryAccounting | undefined;
  try {
    if (scenario.fanout) {
      fanout = await openFanout(scenario.fanout, state, run.target, schedule.total, run.settings.timeoutMs);
    }
    if (run.settings.model === 'closed') {
      // Loaded on use: autocannon is a fifth of the engine's start-up memory, and open runs never need it.
      const { runClosed } = await import('./closed-model.ts');
      const recorder = await runClosed(
        scenario,
        state,
        run.target,
        {
          connections: options.connections,
          durationS: options.durationS,
          timeoutMs: run.settings.timeoutMs,
          seed: options.seed,
          origin: performance.now(),
        },
        run.signal,
        (progress) => {
          partProgress.set(0, progress);
          report();
        },
      );
      parts.push(recorder.part());
      recorder.destroy();
    } else if (options.workers > 1) {
      parts.push(
        ...(await runWorkers(run, options, state, (index, progress) => {
          partProgress.set(index, progress);
          if (index === 0) report();
        })),
      );
    } else {
      const dispatcher = loadDispatcher(options.connections, run.target.tls);
      try {
        const recorder = await runOpenPart(
          scenario,
          state,
          run.target,
          dispatcher,
          {
            schedule,
            connections: options.connections,
            timeoutMs: run.settings.timeoutMs,
            seed: options.seed,
            part: { index: 0, count: 1 },
            origin: performance.now(),
            drainMs: run.settings.timeoutMs,
          },
          run.signal,
          {
            progress: (progress) => {
              partProgress.set(0, progress);
              report();
            },
            ...(fanout && { observer: fanout.observer }),
          },
        );
        parts.push(recorder.part());
        recorder.destroy();
      } finally {
        await dispatcher.destroy().catch(() => {});
      }
    }
    if (fanout) {
      const finished = await fanout.finish(2000);
      delivery = finished.delivery;
      problems.push(...finished.problems);
    }
  } catch (error) {
    problems.push(`the load stopped: ${oneLine(error)}`);
  } finally {
    fanout?.close();
  }
  // Interrupted, the load ran until now, not for its planned duration: rates are per second it ran.
  const loadSeconds = run.signal.aborted
    ? Math.max(0.001, (performance.now() - origin) / 1000)
    : options.durationS || 1;
  if (run.signal.aborted) problems.push('interrupted');

  const merged = mergeParts(parts);
  let finish: Awaited<ReturnType<Scenario['finish']>> = {};
  try {
    finish = await scenario.finish(state, context, merged.tallies);
  } catch (error) {
    problems.push(`finish failed (what it wrote may be left under its prefix): ${oneLine(error)}`);
  }
  const durationMs = Math.max(1, performance.now() - origin);
  const latency = decodeHistogram(merged.histogram);
  const latencyMs = summarize(latency);
  latency.destroy();
  const checks = [
    ...merged.checks,
    ...(finish.checks ?? []).map((check) => ({ name: check.name, passes: check.ok ? 1 : 0, fails: check.ok ? 0 : 1 })),
  ];
  const result: ScenarioResult = {
    ...base,
    durationMs,
    requests: merged.counts,
    commands: merged.commands,
    throughput: {
      requestsPerSecond: merged.counts.completed / loadSeconds,
      commandsPerSecond: merged.commands / loadSeconds,
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
      ...(delivery && { delivery }),
    },
    thresholds: [],
    ...(problems.length > 0 && { problem: problems.join('; ') }),
  };
  return { ...result, thresholds: evaluateThresholds(run.thresholds, result) };
}

function emptyResult(
  base: Omit<
    ScenarioResult,
    | 'durationMs'
    | 'requests'
    | 'commands'
    | 'throughput'
    | 'latencyMs'
    | 'histogram'
    | 'series'
    | 'tags'
    | 'checks'
    | 'errors'
    | 'counters'
    | 'accounting'
    | 'thresholds'
    | 'problem'
  >,
  problem: string,
  thresholds: readonly Threshold[],
): ScenarioResult {
  const merged = mergeParts([]);
  const result: ScenarioResult = {
    ...base,
    durationMs: 0,
    requests: merged.counts,
    commands: 0,
    throughput: { requestsPerSecond: 0, commandsPerSecond: 0 },
    latencyMs: summarize(decodeHistogram(merged.histogram)),
    histogram: merged.histogram,
    series: [],
    tags: [],
    checks: [],
    errors: [],
    counters: {},
    accounting: {},
    thresholds: [],
    problem,
  };
  return { ...result, thresholds: evaluateThresholds(thresholds, result) };
}
