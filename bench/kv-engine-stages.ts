/**
 * Area B's engine without HTTP: /pipeline bodies of SETs parsed, run and rendered by the reference's own
 * modules, from 50 concurrent loops for a few seconds per depth. It separates the engine's cost from
 * fastify's and autocannon's, and counts what each command costs on the Redis side: socket writes and
 * the client's per-command timers. Loopback only, about 10 s (hard stop at 60 s).
 *
 *   node bench/kv-engine-stages.ts          (Node 24: `export PATH=$PWD/node_modules/.bin:$PATH`)
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/kv-engine-stages.ts 100     (one depth, profiled)
 */
import { Socket } from 'node:net';
import { type KvArea, startKvArea } from '../src/reference/kv/kv-area.ts';
import { jsonCommandList } from '../src/reference/kv/request-args.ts';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import { runBench } from './run-bench.ts';

const concurrency = 50;
const secondsPerDepth = 3;
const depths = process.argv[2] === undefined ? [1, 10, 100] : [Number(process.argv[2])];

/** Calls counted while a depth runs: only the engine writes to sockets in this process. */
const counted = { socketWrites: 0, timeoutSignals: 0 };
const socketWrite = Socket.prototype.write;
Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
  counted.socketWrites++;
  return socketWrite.apply(this, args);
} as Socket['write'];
const timeoutSignal = AbortSignal.timeout;
AbortSignal.timeout = (ms: number) => {
  counted.timeoutSignals++;
  return timeoutSignal.call(AbortSignal, ms);
};

async function main(): Promise<void> {
  if (depths.some((depth) => !Number.isInteger(depth) || depth < 1 || depth > 1000)) {
    throw new Error('the depth must be a whole number from 1 to 1000');
  }
  const hardStop = setTimeout(() => {
    console.error('svc-harness bench: stopped after 60 s (a case hung)');
    process.exit(2);
  }, 60_000);
  hardStop.unref();
  const redis = await acquireRedis({});
  // Area B as the reference service assembles it, with no fault switched on.
  const kv = await startKvArea({ redisUrl: redis.url, maxRequestBytes: 10 * 1024 * 1024 }).catch(
    async (error: unknown) => {
      await redis.stop();
      throw error;
    },
  );
  try {
    console.log(`kv engine stages: pipelines of SET, ${concurrency} concurrent, ${secondsPerDepth} s per depth`);
    console.log('depth    ops/s  parse ms  run ms  render ms  p50 ms  p99 ms  socket writes/cmd  timers/cmd');
    for (const depth of depths) console.log(await runDepth(kv, depth));
  } finally {
    await kv.close();
    await redis.stop();
  }
}

async function runDepth({ engine, plugin: { answers } }: KvArea, depth: number): Promise<string> {
  const body = Buffer.from(JSON.stringify(Array.from({ length: depth }, () => ['SET', 'key:__rand_int__', 'xxx'])));
  const principal = { kind: 'standard' } as const;
  const format = { format: 'json', base64: false } as const;
  const spent = { parse: 0, run: 0, render: 0 };
  const latencies: number[] = [];
  counted.socketWrites = 0;
  counted.timeoutSignals = 0;
  const until = performance.now() + secondsPerDepth * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const start = performance.now();
        const commands = jsonCommandList(body);
        const parsed = performance.now();
        const outcomes = await engine.runPipeline(commands, principal);
        const ran = performance.now();
        answers.list(outcomes, format);
        const rendered = performance.now();
        spent.parse += parsed - start;
        spent.run += ran - parsed;
        spent.render += rendered - ran;
        latencies.push(rendered - start);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const requests = latencies.length;
  const commands = requests * depth;
  const cells = [
    String(depth).padStart(5),
    Math.round(commands / secondsPerDepth)
      .toLocaleString('en-US')
      .padStart(8),
    (spent.parse / requests).toFixed(3).padStart(8),
    (spent.run / requests).toFixed(2).padStart(6),
    (spent.render / requests).toFixed(3).padStart(9),
    (latencies[Math.floor(requests * 0.5)] ?? 0).toFixed(1).padStart(6),
    (latencies[Math.floor(requests * 0.99)] ?? 0).toFixed(1).padStart(6),
    (counted.socketWrites / commands).toFixed(1).padStart(17),
    (counted.timeoutSignals / commands).toFixed(1).padStart(10),
  ];
  return cells.join('  ');
}

await runBench(main);
