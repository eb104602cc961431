/**
 * Benchmark (issue 2, "Tests and benchmark"): SET and GET as single commands and as pipelines of 10 and
 * 100 commands through the reference's HTTP interface, next to redis-benchmark on the same Redis in the
 * same run, printed as ratios. Loopback only, bounded in time (about 35 s; hard stop at 90 s).
 *
 *   node bench/kv-throughput.ts          (Node 24: `export PATH=$PWD/node_modules/.bin:$PATH`, or npm run bench:kv)
 *
 * Redis: REDIS_URL if set, else a redis-server from PATH, else a container (src/reference/redis).
 */
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { createClient } from '@redis/client';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import type { RedisBacking } from '../src/reference/redis/redis-backing.ts';
import { redactRedisUrl } from '../src/reference/redis/redis-url.ts';
import { checkCase, type HttpCase, runHttpCase } from './http-load.ts';
import { redisBenchmarkVersion, runRedisBenchmark } from './redis-benchmark-run.ts';
import { startReferenceThread } from './reference-thread.ts';
import { runBench } from './run-bench.ts';
import { renderThroughputTable, type ThroughputRow } from './throughput-table.ts';

const connections = 50;
const durationSeconds = 4;
const valueBytes = 3;
/** redis-benchmark has no duration flag: request counts sized for a second or two each on loopback. */
const redisBenchmarkRequests: Record<number, number> = { 1: 100_000, 10: 500_000, 100: 2_000_000 };
const depths = [1, 10, 100] as const;
const cases: HttpCase[] = depths.flatMap((pipeline) =>
  (['SET', 'GET'] as const).map((command) => ({
    label: pipeline === 1 ? `${command} single` : `${command} pipeline ${pipeline}`,
    command,
    pipeline,
  })),
);

async function main(): Promise<void> {
  const hardStop = setTimeout(() => {
    console.error('svc-harness bench: stopped after 90 s (a case hung)');
    process.exit(2);
  }, 90_000);
  hardStop.unref();

  const benchmarkVersion = redisBenchmarkVersion();
  if (benchmarkVersion === undefined) {
    throw new Error('redis-benchmark is not on PATH (Debian: apt-get install redis-tools)');
  }
  const redis = await acquireRedis({});
  try {
    await runAll(redis, benchmarkVersion);
  } finally {
    await redis.stop();
  }
}

async function runAll(redis: RedisBacking, benchmarkVersion: string): Promise<void> {
  const require = createRequire(import.meta.url);
  const autocannonVersion = (require('autocannon/package.json') as { version: string }).version;
  const ownVersion = (require('../package.json') as { version: string }).version;
  console.log('svc-harness kv-throughput benchmark');
  console.log(`  svc-harness ${ownVersion}, node ${process.version}, autocannon ${autocannonVersion}`);
  console.log(`  redis-server ${await redisVersion(redis.url)} (${redis.origin}, ${redactRedisUrl(redis.url)})`);
  console.log(`  ${benchmarkVersion}`);
  console.log(`  ${cpus().length} CPUs: ${cpus()[0]?.model ?? 'unknown'}; everything on loopback, same machine`);
  console.log(`  reference: startReference({ redisUrl }) in a worker thread; load from the main thread`);
  console.log('');

  const redisOps = new Map<string, number>();
  console.log('redis-benchmark runs:');
  for (const pipeline of depths) {
    const figures = runRedisBenchmark(redis.url, {
      pipeline,
      clients: connections,
      requests: redisBenchmarkRequests[pipeline]!,
      valueBytes,
    });
    console.log(`  ${figures.commandLine}`);
    for (const [test, ops] of figures.opsPerSecond) redisOps.set(`${test}/${pipeline}`, ops);
  }
  console.log('');

  const reference = await startReferenceThread(redis.url);
  const rows: ThroughputRow[] = [];
  try {
    console.log('reference runs (each preceded by one checked request; the first by a 1 s warm-up):');
    for (const testCase of cases) await checkCase(reference.kvUrl, reference.token, testCase);
    await runHttpCase(reference.kvUrl, reference.token, cases[0]!, { connections, durationSeconds: 1 });
    for (const testCase of cases) {
      const figures = await runHttpCase(reference.kvUrl, reference.token, testCase, { connections, durationSeconds });
      console.log(`  ${figures.commandLine}`);
      rows.push({
        label: testCase.label,
        referenceOps: figures.opsPerSecond,
        referenceRequests: figures.requestsPerSecond,
        p50Ms: figures.p50Ms,
        p99Ms: figures.p99Ms,
        redisOps: redisOps.get(`${testCase.command}/${testCase.pipeline}`),
        failures: figures.failures,
      });
    }
  } finally {
    await reference.stop();
  }
  console.log('');
  console.log(renderThroughputTable(rows));
  console.log('');
  console.log(
    'ops/s counts Redis commands (a /pipeline request of N commands is N ops); ratio = reference / redis-benchmark.',
  );
}

async function redisVersion(url: string): Promise<string> {
  const client = createClient({ url, socket: { connectTimeout: 3_000, reconnectStrategy: false } });
  client.on('error', () => {});
  await client.connect();
  try {
    const info = await client.info('server');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  } finally {
    client.destroy();
  }
}

await runBench(main);
