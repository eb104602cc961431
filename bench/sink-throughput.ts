/**
 * Benchmark (issue 21): the deliveries per second the sink takes, every one with its signature
 * verified (a JWT-HS256 POST with a 100-byte body, each of 2,000 pre-signed requests with its own
 * jti and path), against autocannon pointed straight at a plain receiver (a `node:http` server
 * answering 200) in the same run, with the same requests. The sink runs with 0 threads (all on its
 * process's main thread, as conformance runs it), 1 and 2 worker threads; the ratio to the plain
 * receiver is printed for each (aim: at least 0.8). Each receiver runs in a process of its own, so
 * autocannon (in this one) never shares its thread. About 5 s per receiver.
 *
 *   node bench/sink-throughput.ts            (Node 24: `export PATH=$PWD/node_modules/.bin:$PATH`)
 *   node bench/sink-throughput.ts --seconds 10
 */
import { spawn } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startSink } from '../src/sink/sink-server.ts';
import { runBench } from './run-bench.ts';

const keys = { current: 'bench_current_signing_key', next: 'bench_next_signing_key' };
const requestCount = 2000;
const connections = 32;
const receivers = ['plain', 'sink:0', 'sink:1', 'sink:2'] as const;

/** What a receiver process prints on its first line: where to send, and the path every URL starts with. */
interface Listening {
  readonly url: string;
  readonly path: string;
}

/** CPU time of the whole receiver process (all its threads), in microseconds. */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** A receiver process: `serve plain` or `serve sink:N`; on `report` it prints what it counted. */
async function serve(kind: string): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  if (kind === 'plain') {
    let received = 0;
    const server = createServer((req, res) => {
      req.on('data', () => {});
      req.on('end', () => {
        received += 1;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    console.log(JSON.stringify({ url, path: '/plain/dest' } satisfies Listening));
    for await (const line of lines) {
      if (line === 'report') console.log(JSON.stringify({ received, verified: 0, failed: 0, cpu: cpuMicros() }));
      else break;
    }
    server.closeAllConnections();
    server.close();
    return;
  }
  const threads = Number(kind.split(':')[1]);
  const sink = await startSink({ signatureHeader: 'Svc-Signature', keys: async () => keys, threads });
  const inbox = sink.openCounter<string>('bench', {
    module: new URL('./sink-classifier.ts', import.meta.url).href,
    data: null,
  });
  let received = 0;
  let verified = 0;
  let failed = 0;
  let problem = '';
  inbox.onArrivals((batch) => {
    for (const arrival of batch) {
      received += 1;
      if (arrival.signature === 'ok') verified += 1;
      else if (arrival.signature === 'failed') {
        failed += 1;
        problem ||= arrival.problem ?? '';
      }
    }
  });
  const base = inbox.url('dest');
  console.log(JSON.stringify({ url: sink.localUrl, path: new URL(base).pathname } satisfies Listening));
  for await (const line of lines) {
    if (line === 'report') {
      await inbox.flush();
      console.log(JSON.stringify({ received, verified, failed, problem, problems: sink.problems(), cpu: cpuMicros() }));
    } else break;
  }
  await sink.close();
}

/** A token as the real service signs one (HS256; `sub` the URL, `body` the body's SHA-256), with its own jti. */
function sign(url: string, body: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const digest = createHash('sha256').update(body).digest('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iss: 'Svc', sub: url, iat: now, nbf: now, exp: now + 600, jti: `jwt_${randomUUID()}`, body: digest })}`;
  return `${unsigned}.${createHmac('sha256', keys.current).update(unsigned).digest('base64url')}`;
}

interface Figures {
  readonly kind: string;
  readonly rate: number;
  readonly non2xx: number;
  readonly received: number;
  readonly verified: number;
  readonly failed: number;
  /** The receiver's CPU microseconds per request: a figure the machine's other work disturbs less than req/s. */
  readonly cpuPerRequest: number;
  readonly note: string;
}

async function measure(kind: string, seconds: number): Promise<Figures> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'serve', kind], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`the ${kind} receiver ended early`);
    return line.value;
  };
  try {
    const listening = JSON.parse(await next()) as Listening;
    const body = 'x'.repeat(100);
    const requests = Array.from({ length: requestCount }, (_, index) => {
      const path = `${listening.path}/m${index}`;
      return {
        method: 'POST' as const,
        path,
        headers: { 'content-type': 'text/plain', 'svc-signature': sign(`${listening.url}${path}`, body) },
        body,
      };
    });
    // A second of warm-up (JIT, connections), then the measured run.
    await autocannon({ url: listening.url, connections, duration: 1, requests });
    child.stdin.write('report\n');
    const warm = JSON.parse(await next()) as { received: number; verified: number; failed: number; cpu: number };
    const result = await autocannon({ url: listening.url, connections, duration: seconds, requests });
    child.stdin.write('report\n');
    const counted = JSON.parse(await next()) as {
      received: number;
      verified: number;
      failed: number;
      problem?: string;
      problems?: string[];
      cpu: number;
    };
    return {
      kind,
      rate: result.requests.average,
      non2xx: result.non2xx + result.errors,
      received: counted.received - warm.received,
      verified: counted.verified - warm.verified,
      failed: counted.failed,
      cpuPerRequest: (counted.cpu - warm.cpu) / Math.max(1, counted.received - warm.received),
      note: [counted.problem, ...(counted.problems ?? [])].filter(Boolean).join('; '),
    };
  } finally {
    child.stdin.end('stop\n');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--seconds');
  const seconds = at > 0 ? Number(process.argv[at + 1]) : 4;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 60) throw new Error('--seconds takes 1 to 60');
  const hardStop = setTimeout(() => {
    console.error('svc-harness bench: stopped after 120 s');
    process.exit(2);
  }, 120_000);
  hardStop.unref();
  const figures: Figures[] = [];
  for (const kind of receivers) figures.push(await measure(kind, seconds));
  const plain = figures[0] as Figures;
  console.log(`sink throughput: ${connections} connections, ${seconds} s each, HS256-signed POSTs of 100 bytes`);
  console.log('receiver        req/s   × plain   CPU µs/req   counted   verified   failed   non-2xx');
  for (const item of figures) {
    const ratio = item.rate / plain.rate;
    console.log(
      `${item.kind.replace('sink:', 'sink, threads ').padEnd(14)} ${item.rate.toFixed(0).padStart(7)}   ${ratio.toFixed(2).padStart(7)}   ${item.cpuPerRequest.toFixed(0).padStart(10)}   ${String(item.received).padStart(7)}   ${String(item.verified).padStart(8)}   ${String(item.failed).padStart(6)}   ${String(item.non2xx).padStart(7)}${item.note ? `  (${item.note})` : ''}`,
    );
  }
  const short = figures.filter((item) => item.kind !== 'plain' && item.rate / plain.rate < 0.8);
  console.log(
    short.length === 0
      ? 'aim met: every sink configuration takes at least 0.8× the plain receiver'
      : `below the aim of 0.8× the plain receiver: ${short.map((item) => item.kind).join(', ')}`,
  );
  if (figures.some((item) => item.kind !== 'plain' && (item.failed > 0 || item.verified !== item.received))) {
    throw new Error('the sink failed or skipped a signature the bench signed correctly');
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3] ?? 'plain');
else await runBench(main);
