/**
 * Benchmark: the reference's ceiling under the pipeline scenario. The node engine's closed model
 * runs scenarios/pipeline.ts at one batch size at a time (10, 100, 1,000 commands per request,
 * half SET half GET, 16-byte values) at a few connection counts against the reference, and
 * `redis-benchmark -P <batch> -t set,get` runs on the reference's own redis-server in the same run.
 * Per batch size: the reference's best commands per second, redis-benchmark's (SET, GET, and their
 * 50/50 mix: 2 / (1/SET + 1/GET)), and the ratio reference / mix.
 *
 * The reference is started as the embedded one is (startReference: a redis-server from PATH, else
 * REDIS_URL, else a container), in a worker thread so the load generator in the main thread does
 * not share its event loop (bench/reference-thread.ts, as kv-throughput does).
 *
 *   node bench/load-reference-ceiling.ts [--seconds 5] [--connections 10,50] [--batches 10,100,1000]
 *     [--clients 50 (redis-benchmark -c)]
 *
 * Loopback only; about batches × connections × (seconds + 1) + 15 s (default ~50 s); hard stop at 5 min.
 */
import { parseList, parseLoadSettings } from '../src/engines/load/load-settings.ts';
import { runLoad } from '../src/engines/load/run-load.ts';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import { redactRedisUrl } from '../src/reference/redis/redis-url.ts';
import { batchCurve, type ScenarioResult } from '../src/results/load-run.ts';
import { fixed, hardStop, positive, renderTable, tempDir, whole, writeTarget } from './load-bench-util.ts';
import { redisBenchmarkVersion, runRedisBenchmark } from './redis-benchmark-run.ts';
import { startReferenceThread } from './reference-thread.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10,50' },
    batches: { type: 'string', default: '10,100,1000' },
    clients: { type: 'string', default: '50' },
    'value-size': { type: 'string', default: '16' },
  },
});
const seconds = positive(values.seconds, 'seconds');
const connectionCounts = parseList(values.connections, '--connections');
const batches = parseList(values.batches, '--batches');
const valueSize = positive(values['value-size'], 'value-size');
/** redis-benchmark has no duration: requests per test sized for a second or two at each depth on loopback. */
const redisRequests = (batch: number) => Math.min(4_000_000, Math.max(500_000, batch * 4_000));

interface Point {
  readonly connections: number;
  readonly commandsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly failed: number;
  readonly checkFails: number;
}

async function main(): Promise<void> {
  hardStop(Math.max(300, batches.length * connectionCounts.length * (seconds + 10) + 120) * 1000, 'ceiling');
  const benchmarkVersion = redisBenchmarkVersion();
  if (benchmarkVersion === undefined)
    throw new Error('redis-benchmark is not on PATH (Debian: apt-get install redis-tools)');
  const redis = await acquireRedis({});
  const dir = tempDir();
  try {
    const reference = await startReferenceThread(redis.url);
    console.log('svc-harness load-reference-ceiling benchmark');
    console.log(`  node ${process.version}; ${benchmarkVersion}; redis ${redis.origin} ${redactRedisUrl(redis.url)}`);
    console.log('  reference in a worker thread; node engine (closed model) in the main thread; all on loopback');
    console.log('');
    const target = writeTarget(dir.path, reference.kvUrl, 'reference', reference.token);
    const byBatch = new Map<number, Point[]>();
    const redisFigures = new Map<number, { set: number; get: number; command: string }>();
    try {
      for (const batch of batches) {
        const figures = runRedisBenchmark(redis.url, {
          pipeline: batch,
          clients: Number(values.clients),
          requests: redisRequests(batch),
          valueBytes: valueSize,
        });
        redisFigures.set(batch, {
          set: figures.opsPerSecond.get('SET') ?? Number.NaN,
          get: figures.opsPerSecond.get('GET') ?? Number.NaN,
          command: figures.commandLine,
        });
        const points: Point[] = [];
        for (const connections of connectionCounts) {
          const scenario = await pipelineRun(target, dir.path, batch, connections);
          const point = batchCurve(scenario).find((item) => item.batch === batch);
          points.push({
            connections,
            commandsPerSecond: point?.commandsPerSecond ?? 0,
            p50: point?.p50 ?? Number.NaN,
            p99: point?.p99 ?? Number.NaN,
            failed: scenario.requests.failed,
            checkFails: scenario.checks.reduce((sum, check) => sum + check.fails, 0),
          });
        }
        byBatch.set(batch, points);
      }
    } finally {
      await reference.stop();
    }

    console.log(
      renderTable(
        ['batch', 'connections', 'reference cmd/s', 'p50 ms', 'p99 ms', 'failed', 'check fails'],
        batches.flatMap((batch) =>
          (byBatch.get(batch) ?? []).map((point) => [
            String(batch),
            String(point.connections),
            whole(point.commandsPerSecond),
            fixed(point.p50),
            fixed(point.p99),
            whole(point.failed),
            whole(point.checkFails),
          ]),
        ),
      ),
    );
    console.log('');
    console.log(
      renderTable(
        ['batch', 'reference cmd/s (best)', 'redis-benchmark SET', 'GET', 'mix', 'ratio'],
        batches.map((batch) => {
          const best = Math.max(...(byBatch.get(batch) ?? []).map((point) => point.commandsPerSecond));
          const peer = redisFigures.get(batch);
          const mix = peer ? 2 / (1 / peer.set + 1 / peer.get) : Number.NaN;
          return [
            String(batch),
            whole(best),
            whole(peer?.set ?? Number.NaN),
            whole(peer?.get ?? Number.NaN),
            whole(mix),
            fixed(best / mix, 3),
          ];
        }),
      ),
    );
    console.log('');
    console.log(
      'cmd/s counts Redis commands (a /pipeline request of N commands is N); mix = the 50/50 SET/GET rate redis-benchmark implies; ratio = reference best / mix.',
    );
    console.log('');
    console.log('commands:');
    for (const batch of batches) {
      for (const connections of connectionCounts) {
        console.log(
          `  runLoad({ scenarios: ['pipeline'], target, settings: parseLoadSettings({ model: 'closed', connections: '${connections}', duration: '${seconds}s', batch: '${batch}', 'value-size': '${valueSize}' }) })`,
        );
      }
      console.log(`  ${redisFigures.get(batch)?.command ?? ''}`);
    }
    console.log(
      `  (as the CLI: node bin/svc-harness.js load pipeline --target <reference target> --model closed --connections C --duration ${seconds}s --batch B --value-size ${valueSize})`,
    );
  } finally {
    dir.remove();
    await redis.stop();
  }
}

async function pipelineRun(target: string, dir: string, batch: number, connections: number): Promise<ScenarioResult> {
  const run = await runLoad({
    scenarios: ['pipeline'],
    target,
    settings: parseLoadSettings({
      model: 'closed',
      connections: String(connections),
      duration: `${seconds}s`,
      batch: String(batch),
      'value-size': String(valueSize),
    }),
    reportDir: dir,
    reporters: [],
  });
  const scenario = run.scenarios[0];
  if (!scenario) throw new Error(`the pipeline scenario did not run: ${run.aborted ?? run.problems.join('; ')}`);
  if (scenario.problem) throw new Error(`the pipeline scenario (batch ${batch}): ${scenario.problem}`);
  return scenario;
}

await runBench(main);
