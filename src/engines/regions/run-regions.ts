/**
 * `svc-harness regions`: the same light operations against each region's base URL, ranked with
 * confidence. kv (the target's `kv.regions`): PING, GET and SET; messaging (`messaging.regions`, else
 * its one URL): publish to the harness's sink, and publish → delivery (the publish, then the delivery's
 * arrival at the sink). tinybench times each (region, operation) task; the run is cut into rounds, each
 * running every task briefly in a shuffled order, so drift on the machine hits every region of a round
 * alike (src/results/region-ranking.ts ranks them).
 */
import { randomBytes } from 'node:crypto';
import { Bench } from 'tinybench';
import { dispatcherFor, httpRequest } from '../../http/http-client.ts';
import { type RoundSamples, rankRegions } from '../../results/region-ranking.ts';
import type { RegionsRun } from '../../results/regions-run.ts';
import { createRuleCatalog } from '../../results/rule.ts';
import { ExitCode, harnessError, oneLine } from '../../shared/errors.ts';
import { seededRandom } from '../../shared/seeded-random.ts';
import type { Inbox, Sink } from '../../sink/sink-server.ts';
import type { SinkSettings, Target } from '../../target/target.ts';
import { startTargetSink } from '../../target-sink/start-target-sink.ts';
import { openRunContext, type RunCommonOptions, type RunContext, readRunTargets } from '../context/run-context.ts';

export interface RegionsOptions extends RunCommonOptions {
  readonly target?: string;
  readonly environmentTarget?: Target;
  /** Seconds of measuring in all, spread over the rounds. */
  readonly durationS: number;
  /** @default 10 */
  readonly rounds?: number;
  readonly sink?: SinkSettings;
  /** Per request and per delivery wait. @default 10_000 */
  readonly timeoutMs?: number;
}

interface RegionTask {
  readonly region: string;
  readonly operation: string;
  readonly fn: () => Promise<void>;
  failed: number;
}

/** The operations of area B against one region's base URL. */
function kvTasks(target: Target, region: string, url: string, timeoutMs: number): RegionTask[] {
  const kv = target.kv;
  if (kv === undefined) return [];
  const key = `svc-harness:regions:${randomBytes(6).toString('hex')}`;
  const dispatcher = dispatcherFor(target.tls);
  const command = (args: readonly string[]) => async () => {
    const res = await httpRequest({
      url: `${url.replace(/\/+$/, '')}/`,
      method: 'POST',
      headers: { ...kv.headers, authorization: `Bearer ${kv.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
      dispatcher,
      timeoutMs,
      maxAnswerBytes: 64 * 1024,
    });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
  };
  return [
    { region, operation: 'kv PING', fn: command(['PING']), failed: 0 },
    { region, operation: 'kv SET', fn: command(['SET', key, 'svc-harness']), failed: 0 },
    { region, operation: 'kv GET', fn: command(['GET', key]), failed: 0 },
  ];
}

/** Area A's operations against one region: publish, and publish → delivery at the sink. */
function messagingTasks(target: Target, region: string, url: string, inbox: Inbox, timeoutMs: number): RegionTask[] {
  const messaging = target.messaging;
  if (messaging === undefined) return [];
  const dispatcher = dispatcherFor(target.tls);
  let sequence = 0;
  const publish = (destination: string) =>
    httpRequest({
      url: `${url.replace(/\/+$/, '')}/v2/publish/${destination}`,
      method: 'POST',
      headers: { ...messaging.headers, authorization: `Bearer ${messaging.token}`, 'content-type': 'text/plain' },
      body: 'svc-harness regions',
      dispatcher,
      timeoutMs,
      maxAnswerBytes: 64 * 1024,
    });
  const check = (status: number) => {
    if (status < 200 || status > 299) throw new Error(`status ${status}`);
  };
  return [
    {
      region,
      operation: 'publish',
      fn: async () => check((await publish(inbox.url(`${region}-p`))).status),
      failed: 0,
    },
    {
      region,
      operation: 'publish → delivery',
      fn: async () => {
        sequence += 1;
        const role = `${region}-d${sequence}`;
        check((await publish(inbox.url(role))).status);
        await inbox.waitFor(role, 1, timeoutMs);
      },
      failed: 0,
    },
  ];
}

/** Fisher–Yates with a seeded generator: each round's order differs, every run's orders are the same. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

function regionUrls(target: Target): { kv: Record<string, string>; messaging: Record<string, string> } {
  const messaging = target.messaging;
  return {
    kv: { ...target.kv?.regions },
    messaging: messaging === undefined ? {} : { ...(messaging.regions ?? { default: messaging.url }) },
  };
}

export async function runRegions(options: RegionsOptions): Promise<RegionsRun> {
  const targets = readRunTargets(options.target, options.environmentTarget);
  const context = await openRunContext('regions', targets, options);
  let run: RegionsRun;
  try {
    run = await regionsPart(options, context);
  } finally {
    await context.close();
  }
  await context.events.onRunEnd(
    {
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: run.durationMs,
      reportDir: context.reportDir,
      exitCode: run.exitCode,
      ...(run.aborted !== undefined && { aborted: run.aborted }),
      problems: run.problems,
      regions: run,
    },
    { catalog: createRuleCatalog([]), redact: context.redact },
  );
  return run;
}

/** The region comparison, into its context. */
async function regionsPart(options: RegionsOptions, context: RunContext): Promise<RegionsRun> {
  const { now, started, signal } = context;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const rounds = options.rounds ?? 10;
  const fileTarget = context.fileTargets[0];
  const target = fileTarget ?? (await context.reference()).target;
  const { redact } = context;
  const urls = regionUrls(target);
  const problems: string[] = [];
  const samples: RoundSamples[] = [];
  let aborted: string | undefined;
  let sink: Sink | undefined;
  try {
    if (Object.keys(urls.kv).length + Object.keys(urls.messaging).length === 0) {
      throw harnessError(
        'SVC_CONFIG',
        `regions: target ${target.name} names no regions (kv.regions, or a messaging area with or without messaging.regions)`,
      );
    }
    const tasks: RegionTask[] = Object.entries(urls.kv).flatMap(([region, url]) =>
      kvTasks(target, region, url, timeoutMs),
    );
    if (Object.keys(urls.messaging).length > 0) {
      sink = await startTargetSink({ target, ...(options.sink && { flags: options.sink }), defaultThreads: 0 });
      const inbox = sink.open('regions');
      tasks.push(
        ...Object.entries(urls.messaging).flatMap(([region, url]) =>
          messagingTasks(target, region, url, inbox, timeoutMs),
        ),
      );
    }
    // Every task runs at least a few times per round; the rest of the time is shared out evenly.
    const perTaskMs = Math.max(20, (options.durationS * 1000) / rounds / tasks.length);
    const random = seededRandom(7);
    for (let round = 0; round < rounds && !signal.aborted; round += 1) {
      const bench = new Bench({
        time: perTaskMs,
        iterations: 3,
        warmup: round === 0,
        warmupIterations: 3,
        warmupTime: 50,
        retainSamples: true,
        signal,
      });
      const order = shuffled(tasks, random);
      for (const task of order) {
        bench.add(`${task.region} ${task.operation}`, async () => {
          try {
            await task.fn();
          } catch {
            task.failed += 1;
          }
        });
      }
      const failedBefore = order.map((task) => task.failed);
      await bench.run();
      bench.tasks.forEach((benchTask, index) => {
        const task = order[index] as RegionTask;
        const result = benchTask.result;
        const latency = 'latency' in result ? result.latency : undefined;
        samples.push({
          region: task.region,
          operation: task.operation,
          round,
          samplesMs: latency?.samples ? [...latency.samples] : [],
          failed: task.failed - (failedBefore[index] ?? 0),
        });
      });
    }
    if (signal.aborted) aborted = `interrupted (${typeof signal.reason === 'string' ? signal.reason : 'aborted'})`;
    for (const task of tasks) {
      if (task.failed > 0) problems.push(`${task.region} ${task.operation}: ${task.failed} iterations failed`);
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'SVC_CONFIG') throw error;
    aborted = redact(oneLine(error));
  } finally {
    await sink?.close().catch(() => {});
  }
  const finished = now();
  const ranking = rankRegions(samples);
  return {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    target: target.name,
    embedded: fileTarget === undefined,
    ...ranking,
    problems,
    ...(aborted !== undefined && { aborted }),
    exitCode:
      aborted !== undefined || problems.length > 0 || ranking.ranking.length === 0 ? ExitCode.notJudged : ExitCode.ok,
  };
}
