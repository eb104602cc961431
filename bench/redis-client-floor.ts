/**
 * Benchmark: the floor @redis/client sets under the reference's kv engine (issue 24, aim 4). The
 * reference's pipeline ceiling is about 0.1× `redis-benchmark -P 100`, and its engine alone without
 * HTTP reaches about the same (bench/kv-engine-stages.ts). This bench takes the engine away too: only
 * the Redis client, sending SETs from 50 concurrent loops in this process, in four ways:
 * - `as the reference`: the reference's own connection (`RedisConnections`) and options, each command
 *   with `sendCommand` under the request's shared write deadline (an AbortSignal per 128 commands);
 * - `no deadline`: the same client and `sendCommand`, without the signal;
 * - `execAsPipeline`: the client's pipeline API (`multi().addCommand(…).execAsPipeline()`);
 * - `raw RESP`: no client, a socket of its own: the batch encoded with @redis/client's own encoder into
 *   one write, its replies read by @redis/client's own `Decoder`, one promise per batch.
 * `redis-benchmark -P <depth>` (SET) runs on the same redis-server in the same run; each row's ratio is
 * to it. Depth 1 is the single-command case (one command per request, `-P 1`). At depth 1 one more row
 * is the HTTP floor: a bare `node:http` server answering `{"result":"OK"}` to everything
 * (bench/load-test-server.ts, its own process) under `autocannon -c 50`, no Redis behind it: what any
 * reference on Node's HTTP server answers at most, one request per command.
 *
 *   node bench/redis-client-floor.ts [--seconds 3] [--depths 1,100]
 *
 * Loopback only; about depths × 4 × seconds + 10 s (default ~35 s); hard stop at 3 min.
 */
import { connect, type Socket } from 'node:net';
import { Decoder } from '@redis/client/dist/lib/RESP/decoder.js';
import encoder from '@redis/client/dist/lib/RESP/encoder.js';
import { parseList } from '../src/engines/load/load-settings.ts';
import { sendOptions } from '../src/reference/kv/multi-exec.ts';
import { exactTypes, type RedisClient, RedisConnections } from '../src/reference/kv/redis-connections.ts';
import { withWriteDeadline } from '../src/reference/kv/write-deadline.ts';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import {
  autocannonBin,
  fixed,
  hardStop,
  lastJsonLine,
  positive,
  renderTable,
  runTimed,
  startTestServer,
  tempDir,
  whole,
} from './load-bench-util.ts';
import { redisBenchmarkVersion, runRedisBenchmark } from './redis-benchmark-run.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    seconds: { type: 'string', default: '3' },
    depths: { type: 'string', default: '1,100' },
  },
});
const seconds = positive(values.seconds, 'seconds');
const depths = parseList(values.depths, '--depths');
const loops = 50;
// A CommonJS module whose `exports.default` is the function: its module object is the default import.
const encodeCommand = encoder.default;
const value = Buffer.from('v'.repeat(16));

type Command = readonly Buffer[];
type Send = (commands: readonly Command[]) => Promise<unknown>;

interface Row {
  readonly way: string;
  readonly depth: number;
  readonly commandsPerSecond: number;
  readonly cpuMicrosPerCommand: number;
}

/** Runs `send` from `loops` concurrent loops for `seconds`; commands per second and this process's CPU per command. */
async function measure(way: string, depth: number, send: Send): Promise<Row> {
  const commands = Array.from({ length: depth }, (_, index) => [
    Buffer.from('SET'),
    Buffer.from(`floor:${index}`),
    value,
  ]);
  let sent = 0;
  const end = performance.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (performance.now() < end) {
        await send(commands);
        sent += depth;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    way,
    depth,
    commandsPerSecond: sent / seconds,
    cpuMicrosPerCommand: (used.user + used.system) / sent,
  };
}

/** The reference's way: every command its own `sendCommand`, under one write deadline per request. */
const asTheReference =
  (client: RedisClient): Send =>
  (commands) =>
    withWriteDeadline(5_000, (deadline) =>
      Promise.all(
        commands.map((args, index) => client.sendCommand([...args], sendOptions(deadline.forCommand(index)))),
      ),
    );

const withoutDeadline =
  (client: RedisClient): Send =>
  (commands) =>
    Promise.all(commands.map((args) => client.sendCommand([...args], { typeMapping: exactTypes, timeout: 0 })));

const asPipeline =
  (client: RedisClient): Send =>
  (commands) => {
    const multi = client.withTypeMapping(exactTypes).multi();
    for (const args of commands) multi.addCommand([...args]);
    return multi.execAsPipeline();
  };

/** A socket of its own: one write per batch, replies counted off by @redis/client's decoder in order. */
async function rawResp(url: string): Promise<{ send: Send; close(): void }> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port || 6379), hostname);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const waiting: { left: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  const onAny = () => {
    const head = waiting[0];
    if (head && --head.left === 0) {
      waiting.shift();
      head.resolve();
    }
  };
  const decoder = new Decoder({
    onReply: onAny,
    onErrorReply: onAny,
    onPush: () => {},
    getTypeMapping: () => exactTypes,
  });
  socket.on('data', (chunk: Buffer) => decoder.write(chunk));
  socket.on('error', (error) => {
    for (const batch of waiting.splice(0)) batch.reject(error);
  });
  return {
    send: (commands) => {
      const parts = commands.flatMap((args) => encodeCommand([...args]));
      const bytes = Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
      return new Promise<void>((resolve, reject) => {
        waiting.push({ left: commands.length, resolve, reject });
        socket.write(bytes);
      });
    },
    close: () => socket.destroy(),
  };
}

/** Requests per second a bare `node:http` server answers under `autocannon -c 50` for `seconds`. */
async function httpFloor(): Promise<{ requestsPerSecond: number; command: string }> {
  const server = await startTestServer();
  const dir = tempDir();
  try {
    const args = ['-c', String(loops), '-d', String(seconds), '--json', `${server.plainUrl}/ping`];
    const run = await runTimed(autocannonBin, args, (seconds + 20) * 1000, dir.path);
    const result = lastJsonLine<{ readonly '2xx': number; readonly duration: number }>(run.stdout, 'autocannon');
    return { requestsPerSecond: result['2xx'] / result.duration, command: `autocannon ${args.join(' ')}` };
  } finally {
    dir.remove();
    await server.stop();
  }
}

async function main(): Promise<void> {
  hardStop(180_000, 'redis-client-floor');
  const benchmarkVersion = redisBenchmarkVersion();
  if (benchmarkVersion === undefined)
    throw new Error('redis-benchmark is not on PATH (Debian: apt-get install redis-tools)');
  const redis = await acquireRedis({});
  const connections = await RedisConnections.open(redis.url);
  const raw = await rawResp(redis.url);
  const rows: Row[] = [];
  const peers = new Map<number, { set: number; command: string }>();
  let floorCommand: string | undefined;
  try {
    const { client } = await connections.user(undefined);
    for (const depth of depths) {
      const figures = runRedisBenchmark(redis.url, {
        pipeline: depth,
        clients: loops,
        requests: Math.min(4_000_000, Math.max(200_000, depth * 4_000)),
        valueBytes: value.length,
      });
      peers.set(depth, { set: figures.opsPerSecond.get('SET') ?? Number.NaN, command: figures.commandLine });
      rows.push(await measure('as the reference', depth, asTheReference(client)));
      rows.push(await measure('no deadline', depth, withoutDeadline(client)));
      rows.push(await measure('execAsPipeline', depth, asPipeline(client)));
      rows.push(await measure('raw RESP', depth, raw.send));
      if (depth === 1) {
        const floor = await httpFloor();
        rows.push({
          way: 'bare node:http (no Redis)',
          depth,
          commandsPerSecond: floor.requestsPerSecond,
          cpuMicrosPerCommand: Number.NaN,
        });
        floorCommand = floor.command;
      }
    }
  } finally {
    raw.close();
    await connections.close();
    await redis.stop();
  }
  console.log('svc-harness redis-client-floor benchmark');
  console.log(`  node ${process.version}; ${benchmarkVersion}; ${loops} concurrent loops of SET, ${seconds} s each`);
  console.log('');
  console.log(
    renderTable(
      ['depth', 'way', 'cmd/s', 'µs CPU/cmd (client)', 'redis-benchmark SET', 'ratio'],
      rows.map((row) => {
        const peer = peers.get(row.depth)?.set ?? Number.NaN;
        return [
          String(row.depth),
          row.way,
          whole(row.commandsPerSecond),
          Number.isNaN(row.cpuMicrosPerCommand) ? 'server side' : fixed(row.cpuMicrosPerCommand, 2),
          whole(peer),
          fixed(row.commandsPerSecond / peer, 3),
        ];
      }),
    ),
  );
  console.log('');
  console.log(
    'depth = commands per batch (1: one command at a time per loop); ratio = cmd/s / redis-benchmark SET at that depth.',
  );
  console.log('commands:');
  for (const peer of peers.values()) console.log(`  ${peer.command}`);
  if (floorCommand !== undefined) console.log(`  ${floorCommand}   (against bench/load-test-server.ts)`);
}

await runBench(main);
