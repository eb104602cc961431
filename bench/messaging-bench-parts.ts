/**
 * The parts of the messaging benchmarks (messaging-throughput.ts, messaging-throughput-compare.ts): a
 * receiver that counts deliveries and callbacks by message id, a reference started as
 * `svc-harness serve` in its own process (from this checkout or another one), and the two loads:
 * saturation (publish as fast as 64 connections go, count until every delivery and callback arrived)
 * and a fixed publish rate (latency from each message's intended publish time).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import * as hdr from 'hdr-histogram-js';
import { Agent, request } from 'undici';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import type { RedisBacking } from '../src/reference/redis/redis-backing.ts';

export interface Arrival {
  delivered?: number;
  called?: number;
}

/** Deliveries under `/dest/…`, callbacks under `/cb`, anything else (the peer's load) answered only. */
export class Receiver {
  readonly arrivals = new Map<string, Arrival>();
  deliveries = 0;
  callbacks = 0;
  readonly #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const now = performance.now();
        if (req.url?.startsWith('/cb')) {
          this.callbacks += 1;
          const source = (JSON.parse(Buffer.concat(chunks).toString()) as { sourceMessageId?: string }).sourceMessageId;
          if (source !== undefined) this.arrivals.set(source, { ...this.arrivals.get(source), called: now });
        } else if (req.url?.startsWith('/dest')) {
          this.deliveries += 1;
          const id = String(req.headers['svc-message-id']);
          this.arrivals.set(id, { ...this.arrivals.get(id), delivered: now });
        }
        res.end('ok');
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as { port: number }).port}`;
  }

  reset(): void {
    this.arrivals.clear();
    this.deliveries = 0;
    this.callbacks = 0;
  }

  close(): void {
    this.#server.close();
  }
}

/** A reference in its own process on a Redis of its own, with the plan's request rate raised. */
export interface BenchReference {
  readonly messagingUrl: string;
  readonly token: string;
  readonly redisOrigin: string;
  /** CPU seconds used so far by the reference's process and by its Redis (user + system). */
  cpuSeconds(): Promise<{ reference: number; referenceSystem: number; redis: number; redisReads: number }>;
  stop(): Promise<void>;
}

/** User plus system CPU seconds of a process, and system alone, from /proc (Linux); NaN elsewhere. */
async function processCpuSeconds(pid: number | undefined): Promise<{ total: number; system: number }> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { total: (Number(fields[11]) + Number(fields[12])) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { total: Number.NaN, system: Number.NaN };
  }
}

/** used_cpu_user + used_cpu_sys from Redis's INFO cpu. */
async function redisCpuSeconds(client: RedisClientType): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** How many reads Redis did from its clients' sockets (INFO stats): about the reference's writes to it. */
async function redisReads(client: RedisClientType): Promise<number> {
  const info = await client.info('stats');
  return Number(/^total_reads_processed:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

/**
 * Starts `svc-harness serve` from `bin` (this checkout's `bin/svc-harness.js`, or another checkout's);
 * `nodeOptions` become its NODE_OPTIONS (a CPU profile: `--cpu-prof --cpu-prof-dir=<dir>`).
 */
export async function startReference(bin: string, nodeOptions?: string): Promise<BenchReference> {
  const redis: RedisBacking = await acquireRedis({});
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-messaging-'));
  const serve: ChildProcess = spawn(
    process.execPath,
    [bin, 'serve', '--redis-url', redis.url, '--write-target', join(dir, 't.json')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      ...(nodeOptions !== undefined && { env: { ...process.env, NODE_OPTIONS: nodeOptions } }),
    },
  );
  const client: RedisClientType = createClient({ url: redis.url });
  client.on('error', () => {});
  const stop = async () => {
    if (client.isOpen) client.destroy();
    if (serve.exitCode === null) {
      const closed = new Promise((resolve) => serve.once('close', resolve));
      serve.kill('SIGTERM');
      await closed;
    }
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    let out = '';
    serve.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    for (let waited = 0; !out.includes('Stop with Ctrl-C'); waited += 50) {
      if (waited > 30_000) throw new Error('serve did not start within 30 s');
      if (serve.exitCode !== null) throw new Error(`serve exited with ${serve.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const target = JSON.parse(await readFile(join(dir, 't.json'), 'utf8')) as {
      messaging: { url: string; token: string };
      admin: { url: string; token: string };
    };
    // The default plan allows 500 requests per second; the saturation run publishes faster.
    const raised = await request(`${target.admin.url}/account`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${target.admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ max_requests_per_second: 1_000_000 }),
    });
    await raised.body.dump();
    // The account is cached for a short while in the reference.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await client.connect();
    return {
      messagingUrl: target.messaging.url,
      token: target.messaging.token,
      redisOrigin: redis.origin,
      cpuSeconds: async () => {
        const reference = await processCpuSeconds(serve.pid);
        return {
          reference: reference.total,
          referenceSystem: reference.system,
          redis: await redisCpuSeconds(client),
          redisReads: await redisReads(client),
        };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Publishes one message to `/dest/<index mod 16>` with a callback to `/cb`; answers its id. */
export function publisher(reference: BenchReference, receiver: Receiver, agent: Agent) {
  return async (index: number): Promise<string> => {
    const res = await request(`${reference.messagingUrl}/v2/publish/${receiver.url}/dest/${index % 16}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reference.token}`, 'Svc-Callback': `${receiver.url}/cb` },
      body: `message ${index}`,
      dispatcher: agent,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}: ${text}`);
    return (JSON.parse(text) as { messageId: string }).messageId;
  };
}

async function waitUntil(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('deliveries or callbacks did not all arrive in time');
}

export interface Saturation {
  /** Publishes per second while publishing. */
  readonly publishRate: number;
  /** Deliveries plus callbacks per second, from the first publish to the last arrival. */
  readonly endToEndRate: number;
  /** CPU microseconds per message (its publish, delivery and callback) in the reference's process. */
  readonly referenceCpuUs: number;
  /** Of which in the kernel (system calls: sockets to Redis, to the destinations, to the publishers). */
  readonly referenceSystemCpuUs: number;
  /** The same in its Redis. */
  readonly redisCpuUs: number;
  /** Socket reads Redis did per message: the reference's writes to Redis (each a system call). */
  readonly redisReadsPerMessage: number;
}

/** Publishes `messages` as fast as 64 connections go; counts until every delivery and callback arrived. */
export async function saturation(reference: BenchReference, receiver: Receiver, messages: number): Promise<Saturation> {
  receiver.reset();
  const agent = new Agent({ connections: 64 });
  try {
    const publishOne = publisher(reference, receiver, agent);
    const cpuBefore = await reference.cpuSeconds();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < messages) await publishOne(next++);
      }),
    );
    const published = performance.now();
    await waitUntil(() => receiver.deliveries >= messages && receiver.callbacks >= messages, 60_000);
    const ended = performance.now();
    const cpuAfter = await reference.cpuSeconds();
    return {
      publishRate: messages / ((published - started) / 1000),
      endToEndRate: (receiver.deliveries + receiver.callbacks) / ((ended - started) / 1000),
      referenceCpuUs: ((cpuAfter.reference - cpuBefore.reference) * 1e6) / messages,
      referenceSystemCpuUs: ((cpuAfter.referenceSystem - cpuBefore.referenceSystem) * 1e6) / messages,
      redisCpuUs: ((cpuAfter.redis - cpuBefore.redis) * 1e6) / messages,
      redisReadsPerMessage: (cpuAfter.redisReads - cpuBefore.redisReads) / messages,
    };
  } finally {
    await agent.close();
  }
}

export interface Latencies {
  /** Milliseconds from the intended publish time to the delivery's arrival. */
  readonly deliveryP50: number;
  readonly deliveryP99: number;
  /** Milliseconds from the intended publish time to the callback's arrival. */
  readonly callbackP50: number;
  readonly callbackP99: number;
  readonly callbackMax: number;
}

/** Publishes at `rate` per second for `seconds`; latency from each message's intended publish time. */
export async function fixedRate(
  reference: BenchReference,
  receiver: Receiver,
  rate: number,
  seconds: number,
): Promise<Latencies> {
  receiver.reset();
  const agent = new Agent({ connections: 64 });
  const histogram = () =>
    hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
  const toDelivery = histogram();
  const toCallback = histogram();
  try {
    const publishOne = publisher(reference, receiver, agent);
    const count = rate * seconds;
    const t0 = performance.now();
    const sent: { id: string; intended: number }[] = [];
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const intended = t0 + (i * 1000) / rate;
        const wait = intended - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        sent.push({ id: await publishOne(i), intended });
      }),
    );
    await waitUntil(() => sent.every(({ id }) => receiver.arrivals.get(id)?.called !== undefined), 60_000);
    for (const { id, intended } of sent) {
      const arrival = receiver.arrivals.get(id) as Arrival;
      toDelivery.recordValue(Math.max(1, Math.round(((arrival.delivered ?? intended) - intended) * 1000)));
      toCallback.recordValue(Math.max(1, Math.round(((arrival.called ?? intended) - intended) * 1000)));
    }
    const ms = (h: hdr.Histogram, p: number) => h.getValueAtPercentile(p) / 1000;
    return {
      deliveryP50: ms(toDelivery, 50),
      deliveryP99: ms(toDelivery, 99),
      callbackP50: ms(toCallback, 50),
      callbackP99: ms(toCallback, 99),
      callbackMax: ms(toCallback, 100),
    };
  } finally {
    toDelivery.destroy();
    toCallback.destroy();
    await agent.close();
  }
}
