/**
 * Benchmark: the reference's memory around slow SSE subscribers (issue 25). The reference runs alone
 * in a process of its own (bench/sse-reference-process.ts, node --expose-gc); N raw `node:net`
 * clients on loopback POST /subscribe/<channel> and then never read (paused sockets); M messages of
 * S bytes are published through POST /publish/<channel>, one at a time. Prints the reference's RSS
 * (VmRSS from /proc) idle, at its peak while publishing (sampled every 20 ms), once Redis counts no
 * subscriber left (the reference dropped them all past its stream buffer), then after the clients
 * closed their sockets, after a few idle seconds, and after a full collection, each with its
 * heap, external and arrayBuffers figures (process.memoryUsage()), which tell the allocator's
 * holdings (rss far above heap + external) from the process's own. Each client then resumes reading:
 * the bytes it still got before its connection ended are the backlog the service left queued for it.
 *
 *   node bench/sse-slow-subscribers.ts [--subscribers 100] [--messages 100] [--message-bytes 1048576]
 *     [--buffer-bytes N (the reference's streamBufferBytes; default its own 32 MiB)] [--idle-seconds 10]
 *     [--rounds 1 (subscribe, publish, drop again: memory the allocator kept is reused, not grown)]
 *     [--trim-command 'CMD' (at the end, a shell command with {pid} the reference's pid that makes it
 *     call glibc's malloc_trim(0), e.g. gdb -p {pid} -batch -ex 'call (int) malloc_trim(0)' where gdb
 *     can call into a process: what RSS then gives back was free memory glibc kept, no live object)]
 *
 *     [--allocator serve (default: the reference's process gets the glibc setting `svc-harness serve`
 *     starts itself under, src/reference/allocator-settings.ts) | inherit (this environment as it is:
 *     glibc's defaults, or MALLOC_ARENA_MAX=2, LD_PRELOAD=…/libjemalloc.so.2 and the like)]
 *
 * Figures here (node 24, 2 shared cores, 100 × 1 MiB to 100 readers, default 32 MiB buffer): before the
 * frames were shared and the drop was a reset, the peak was 3.7 GB (each reader held its own strings up
 * to the limit) and each reader read 4.1 MB of backlog before learning it was dropped; after, the peak
 * is 0.42 to 0.50 GB and the backlog 0.1 to 0.2 MB. Once the readers are gone the heap and the
 * ArrayBuffers are back at their idle figures. Under glibc's defaults (--allocator inherit) glibc kept
 * the freed memory: RSS stayed 100 to 220 MB above idle, reused by the next burst and given back by
 * malloc_trim(0). With serve's setting (the default here) and the collection the reference runs once the
 * drops settle, RSS was 118 MB 3 s after the drops, below the 220 MB of a reference just started
 * (202 MB under glibc's defaults).
 */
import { execFileSync, fork } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpRequest, jsonBody } from '../src/http/http-client.ts';
import { allocatorEnvironment } from '../src/reference/allocator-settings.ts';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import { hardStop, mb, positive, renderTable, rssOf } from './load-bench-util.ts';
import { benchArgs, runBench } from './run-bench.ts';
import type { ReferenceProcessMessage, ReferenceProcessRequest } from './sse-reference-process.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    subscribers: { type: 'string', default: '100' },
    messages: { type: 'string', default: '100' },
    'message-bytes': { type: 'string', default: String(1024 * 1024) },
    'buffer-bytes': { type: 'string' },
    'idle-seconds': { type: 'string', default: '10' },
    rounds: { type: 'string', default: '1' },
    'trim-command': { type: 'string' },
    allocator: { type: 'string', default: 'serve' },
  },
});
const subscribers = positive(values.subscribers, 'subscribers');
const messages = positive(values.messages, 'messages');
const messageBytes = positive(values['message-bytes'], 'message-bytes');
const bufferBytes = values['buffer-bytes'] === undefined ? undefined : positive(values['buffer-bytes'], 'buffer-bytes');
const idleMs = positive(values['idle-seconds'], 'idle-seconds') * 1000;
const rounds = positive(values.rounds, 'rounds');
if (values.allocator !== 'serve' && values.allocator !== 'inherit') throw new Error('--allocator is serve or inherit');
const referenceEnv = values.allocator === 'serve' ? (allocatorEnvironment(process.env) ?? process.env) : process.env;

type Usage = NodeJS.MemoryUsage;

interface ReferenceProcess {
  readonly pid: number;
  readonly kvUrl: string;
  readonly token: string;
  ask(request: 'usage' | 'gc'): Promise<Usage>;
  stop(): Promise<void>;
}

function nextMessage(child: ReturnType<typeof fork>, ms: number, what: string): Promise<ReferenceProcessMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`${what} within ${ms} ms`));
    }, ms);
    const onMessage = (message: ReferenceProcessMessage) => {
      clearTimeout(timer);
      resolve(message);
    };
    child.once('message', onMessage);
  });
}

async function startReferenceProcess(redisUrl: string): Promise<ReferenceProcess> {
  const script = new URL('./sse-reference-process.ts', import.meta.url).pathname;
  const args = [redisUrl, ...(bufferBytes === undefined ? [] : [String(bufferBytes)])];
  const child = fork(script, args, {
    execArgv: ['--expose-gc'],
    env: referenceEnv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await nextMessage(child, 20_000, 'the reference did not start');
  if (typeof ready !== 'object' || !('kvUrl' in ready)) {
    child.kill();
    throw new Error(typeof ready === 'object' && 'error' in ready ? ready.error : 'the reference did not start');
  }
  let queue = Promise.resolve<unknown>(undefined);
  return {
    pid: child.pid!,
    kvUrl: ready.kvUrl,
    token: ready.token,
    ask(request) {
      const answer = queue.then(async () => {
        child.send(request satisfies ReferenceProcessRequest);
        const message = await nextMessage(child, 30_000, `no answer to ${request}`);
        if (typeof message !== 'object' || !('usage' in message)) throw new Error(`no usage in answer to ${request}`);
        return message.usage;
      });
      queue = answer.catch(() => undefined);
      return answer;
    },
    async stop() {
      child.send('stop' satisfies ReferenceProcessRequest);
      await nextMessage(child, 10_000, 'the reference did not stop').catch(() => undefined);
      child.kill();
    },
  };
}

/** A subscriber that sends its request and reads nothing; counts what it gets once resumed. */
interface SlowClient {
  readonly socket: Socket;
  received: number;
  closed: boolean;
}

async function openSlowClient(kvUrl: string, token: string, channel: string): Promise<SlowClient> {
  const { hostname, port } = new URL(kvUrl);
  const socket = createConnection({ host: hostname, port: Number(port) });
  const client: SlowClient = { socket, received: 0, closed: false };
  socket.on('data', (chunk: Buffer) => {
    client.received += chunk.length;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    client.closed = true;
  });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    `POST /subscribe/${channel} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
      'accept: text/event-stream\r\ncontent-length: 0\r\n\r\n',
  );
  socket.pause();
  return client;
}

async function call(ref: ReferenceProcess, path: string, body?: string): Promise<unknown> {
  const res = await httpRequest({
    url: new URL(path, ref.kvUrl).toString(),
    method: 'POST',
    headers: { authorization: `Bearer ${ref.token}` },
    body: body ?? '',
    timeoutMs: 60_000,
  });
  return (jsonBody(res) as { result?: unknown }).result;
}

async function numsub(ref: ReferenceProcess, channel: string): Promise<number> {
  const result = (await call(ref, `/pubsub/numsub/${channel}`)) as [string, number | string];
  return Number(result[1]);
}

/** Polls until `test` holds or `ms` pass; whether it held. */
async function until(test: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await test()) return true;
    await sleep(50);
  }
  return test();
}

await runBench(async () => {
  hardStop(15 * 60_000, 'sse-slow-subscribers');
  const redis = await acquireRedis({ prefer: 'redis-server', env: { PATH: process.env.PATH ?? '' } });
  const ref = await startReferenceProcess(redis.url).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  const clients: SlowClient[] = [];
  const rows: string[][] = [];
  const mark = async (name: string, request: 'usage' | 'gc' = 'usage') => {
    const usage = await ref.ask(request);
    const rss = rssOf(ref.pid) ?? usage.rss;
    rows.push([name, mb(rss), mb(usage.heapUsed), mb(usage.heapTotal), mb(usage.external), mb(usage.arrayBuffers)]);
    return rss;
  };
  try {
    console.log('svc-harness sse-slow-subscribers benchmark');
    console.log(
      `  node ${process.version}; loopback; reference pid ${ref.pid} (own process); ` +
        `${subscribers} paused subscribers; ${messages} × ${messageBytes} B published; stream buffer ` +
        `${bufferBytes === undefined ? 'default (32 MiB)' : `${bufferBytes} B`}; allocator ${values.allocator}: ` +
        `GLIBC_TUNABLES=${referenceEnv.GLIBC_TUNABLES ?? 'unset'}, MALLOC_ARENA_MAX=${referenceEnv.MALLOC_ARENA_MAX ?? 'unset'}`,
    );
    await sleep(1000);
    await mark('idle');
    const notes: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const label = rounds > 1 ? ` (round ${round})` : '';
      const channel = `bench:sse:${process.pid}:${round}`;
      clients.length = 0;
      for (let i = 0; i < subscribers; i++) clients.push(await openSlowClient(ref.kvUrl, ref.token, channel));
      if (!(await until(async () => (await numsub(ref, channel)) === subscribers, 20_000))) {
        throw new Error(`Redis counts ${await numsub(ref, channel)} subscribers of ${subscribers}`);
      }
      await mark(`${subscribers} subscribed${label}`);
      let peak = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(ref.pid) ?? 0);
      }, 20);
      const body = 'x'.repeat(messageBytes);
      const started = performance.now();
      let receivers = 0;
      for (let i = 0; i < messages; i++) receivers += Number(await call(ref, `/publish/${channel}`, body));
      const publishMs = performance.now() - started;
      const allDropped = await until(async () => (await numsub(ref, channel)) === 0, 10_000);
      clearInterval(sampler);
      rows.push([`peak while publishing${label} (20 ms samples)`, mb(peak), '', '', '', '']);
      await mark(`published, Redis counts no subscriber${label}`);
      const left = await numsub(ref, channel);
      // Each client now reads: what reaches it before its connection ends was still queued for it.
      for (const client of clients) client.socket.resume();
      await until(() => clients.every((client) => client.closed), 10_000);
      const stillOpen = clients.filter((client) => !client.closed).length;
      const backlog = clients.map((client) => client.received).sort((a, b) => a - b);
      for (const client of clients) client.socket.destroy();
      await sleep(500);
      await mark(`clients gone${label}`);
      notes.push(
        `  round ${round}: published in ${(publishMs / 1000).toFixed(1)} s; ${receivers} deliveries counted by Redis; ` +
          `${left} subscribers left after publishing (${allDropped ? 'all dropped' : 'not all dropped'})`,
        `    read by each client after resuming, before its connection ended: min ${mb(backlog[0] ?? 0)}, ` +
          `median ${mb(backlog[Math.floor(backlog.length / 2)] ?? 0)}, max ${mb(backlog.at(-1) ?? 0)}; ` +
          `${stillOpen} connections still open 10 s after resuming`,
      );
    }
    await sleep(idleMs);
    await mark(`idle ${idleMs / 1000} s later (no gc)`);
    await mark('after a full gc', 'gc');
    await sleep(2000);
    await mark('2 s after the gc');
    const trim = values['trim-command'];
    if (trim !== undefined) {
      // glibc gives back the free memory it holds; what RSS loses here was no live object's.
      execFileSync('sh', ['-c', trim.replaceAll('{pid}', String(ref.pid))], { stdio: 'ignore', timeout: 60_000 });
      await mark('after malloc_trim(0)');
    }
    for (const note of notes) console.log(note);
    console.log('');
    console.log(renderTable(['reference process', 'rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers'], rows));
  } finally {
    for (const client of clients) client.socket.destroy();
    await ref.stop();
    await redis.stop();
  }
});
