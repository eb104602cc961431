/**
 * Benchmark (issue 13): area A of the reference end to end. Deliveries plus callbacks per second at
 * saturation, and publish → delivery → callback latency percentiles at fixed publish rates, with the
 * receiver's own capacity (autocannon straight at it, same run) as the peer the figures are divided by.
 * The reference runs as `svc-harness serve` in its own process; the receiver and the publisher share
 * this one. Loopback only, bounded in time (about 40 s; hard stop at 180 s).
 *
 *   node bench/messaging-throughput.ts      (Node 24: `export PATH=$PWD/node_modules/.bin:$PATH`)
 */

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { Agent, request } from 'undici';
import { acquireRedis } from '../src/reference/redis/acquire-redis.ts';
import { runBench } from './run-bench.ts';

const saturationMessages = 4000;
const rates = [100, 300, 600] as const;
const rateSeconds = 5;
const bin = fileURLToPath(new URL('../bin/svc-harness.js', import.meta.url));

interface Arrival {
  delivered?: number;
  called?: number;
}

async function main(): Promise<void> {
  const hardStop = setTimeout(() => {
    console.error('svc-harness bench: stopped after 180 s');
    process.exit(2);
  }, 180_000);
  hardStop.unref();

  const arrivals = new Map<string, Arrival>();
  let deliveries = 0;
  let callbacks = 0;
  const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = performance.now();
      if (req.url?.startsWith('/cb')) {
        callbacks += 1;
        const source = (JSON.parse(Buffer.concat(chunks).toString()) as { sourceMessageId?: string }).sourceMessageId;
        if (source !== undefined) arrivals.set(source, { ...arrivals.get(source), called: now });
      } else if (req.url?.startsWith('/dest')) {
        deliveries += 1;
        const id = String(req.headers['svc-message-id']);
        arrivals.set(id, { ...arrivals.get(id), delivered: now });
      }
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

  const redis = await acquireRedis({});
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-messaging-'));
  const serve = spawn(
    process.execPath,
    [bin, 'serve', '--redis-url', redis.url, '--write-target', join(dir, 't.json')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    let out = '';
    serve.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    for (let waited = 0; !out.includes('Stop with Ctrl-C'); waited += 50) {
      if (waited > 30_000) throw new Error('serve did not start within 30 s');
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
    await new Promise((resolve) => setTimeout(resolve, 600));

    console.log('svc-harness messaging-throughput benchmark');
    console.log(`  node ${process.version}; reference: svc-harness serve (own process), Redis ${redis.origin}`);

    // The peer: the receiver's own capacity, autocannon straight at it.
    const peer = await autocannon({
      url: `${sinkUrl}/peer`,
      method: 'POST',
      body: 'payload',
      connections: 20,
      duration: 3,
    });
    const peerRate = peer.requests.average;

    const agent = new Agent({ connections: 64 });
    const publishOne = async (index: number): Promise<string> => {
      const res = await request(`${target.messaging.url}/v2/publish/${sinkUrl}/dest/${index % 16}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${target.messaging.token}`, 'Svc-Callback': `${sinkUrl}/cb` },
        body: `message ${index}`,
        dispatcher: agent,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}: ${text}`);
      return (JSON.parse(text) as { messageId: string }).messageId;
    };
    const waitUntil = async (condition: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      if (!condition()) throw new Error('deliveries or callbacks did not all arrive in time');
    };

    // Saturation: publish as fast as 64 connections go; count until every delivery and callback arrived.
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < saturationMessages) await publishOne(next++);
      }),
    );
    const published = performance.now();
    await waitUntil(() => deliveries >= saturationMessages && callbacks >= saturationMessages, 60_000);
    const ended = performance.now();
    const publishRate = saturationMessages / ((published - started) / 1000);
    const endToEndRate = (deliveries + callbacks) / ((ended - started) / 1000);

    // Fixed rates: latency from each message's intended publish time.
    const rows: string[] = [];
    for (const rate of rates) {
      const toDelivery = hdr.build({
        lowestDiscernibleValue: 1,
        highestTrackableValue: 60_000_000,
        numberOfSignificantValueDigits: 3,
      });
      const toCallback = hdr.build({
        lowestDiscernibleValue: 1,
        highestTrackableValue: 60_000_000,
        numberOfSignificantValueDigits: 3,
      });
      const count = rate * rateSeconds;
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
      await waitUntil(() => sent.every(({ id }) => arrivals.get(id)?.called !== undefined), 60_000);
      for (const { id, intended } of sent) {
        const arrival = arrivals.get(id) as Arrival;
        toDelivery.recordValue(Math.max(1, Math.round(((arrival.delivered ?? intended) - intended) * 1000)));
        toCallback.recordValue(Math.max(1, Math.round(((arrival.called ?? intended) - intended) * 1000)));
      }
      const ms = (h: hdr.Histogram, p: number) => (h.getValueAtPercentile(p) / 1000).toFixed(1);
      rows.push(
        `  ${String(rate).padStart(5)}/s  ${ms(toDelivery, 50).padStart(7)} ${ms(toDelivery, 99).padStart(7)}   ` +
          `${ms(toCallback, 50).padStart(7)} ${ms(toCallback, 99).padStart(7)} ${ms(toCallback, 100).padStart(7)}`,
      );
      toDelivery.destroy();
      toCallback.destroy();
    }
    await agent.close();

    console.log(`  peer: autocannon straight at the receiver: ${peerRate.toFixed(0)} req/s`);
    console.log(
      `  saturation (${saturationMessages} messages, each with a callback): publish ${publishRate.toFixed(0)}/s; ` +
        `deliveries + callbacks ${endToEndRate.toFixed(0)}/s = ${(endToEndRate / peerRate).toFixed(3)} × the peer`,
    );
    console.log('  fixed rates (ms from the intended publish time):');
    console.log('      rate   deliv p50    p99   callback p50    p99     max');
    for (const row of rows) console.log(row);
  } finally {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('close', resolve));
    await redis.stop();
    receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await runBench(main);
