/**
 * Benchmark (issue 13): area A of the reference end to end. Deliveries plus callbacks per second at
 * saturation, and publish → delivery → callback latency percentiles at fixed publish rates, with the
 * receiver's own capacity (autocannon straight at it, same run) as the peer the figures are divided by.
 * The reference runs as `svc-harness serve` in its own process; the receiver and the publisher share
 * this one. Loopback only, bounded in time (about 40 s; hard stop at 180 s). To compare with another
 * commit's reference in the same run: messaging-throughput-compare.ts.
 *
 *   node bench/messaging-throughput.ts      (Node 24: `export PATH=$PWD/node_modules/.bin:$PATH`)
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { fixedRate, Receiver, saturation, startReference } from './messaging-bench-parts.ts';
import { runBench } from './run-bench.ts';

const saturationMessages = 4000;
const rates = [100, 300, 600] as const;
const rateSeconds = 5;
const bin = fileURLToPath(new URL('../bin/svc-harness.js', import.meta.url));

async function main(): Promise<void> {
  const hardStop = setTimeout(() => {
    console.error('svc-harness bench: stopped after 180 s');
    process.exit(2);
  }, 180_000);
  hardStop.unref();

  const receiver = new Receiver();
  await receiver.listen();
  const reference = await startReference(bin);
  try {
    console.log('svc-harness messaging-throughput benchmark');
    console.log(
      `  node ${process.version}; reference: svc-harness serve (own process), Redis ${reference.redisOrigin}`,
    );

    // The peer: the receiver's own capacity, autocannon straight at it.
    const peer = await autocannon({
      url: `${receiver.url}/peer`,
      method: 'POST',
      body: 'payload',
      connections: 20,
      duration: 3,
    });
    const peerRate = peer.requests.average;

    const saturated = await saturation(reference, receiver, saturationMessages);
    const rows: string[] = [];
    for (const rate of rates) {
      const l = await fixedRate(reference, receiver, rate, rateSeconds);
      const ms = (value: number) => value.toFixed(1).padStart(7);
      rows.push(
        `  ${String(rate).padStart(5)}/s  ${ms(l.deliveryP50)} ${ms(l.deliveryP99)}   ` +
          `${ms(l.callbackP50)} ${ms(l.callbackP99)} ${ms(l.callbackMax)}`,
      );
    }

    console.log(`  peer: autocannon straight at the receiver: ${peerRate.toFixed(0)} req/s`);
    console.log(
      `  saturation (${saturationMessages} messages, each with a callback): publish ${saturated.publishRate.toFixed(0)}/s; ` +
        `deliveries + callbacks ${saturated.endToEndRate.toFixed(0)}/s = ${(saturated.endToEndRate / peerRate).toFixed(3)} × the peer; ` +
        `CPU per message: reference ${saturated.referenceCpuUs.toFixed(0)} µs, Redis ${saturated.redisCpuUs.toFixed(0)} µs`,
    );
    console.log('  fixed rates (ms from the intended publish time):');
    console.log('      rate   deliv p50    p99   callback p50    p99     max');
    for (const row of rows) console.log(row);
  } finally {
    await reference.stop();
    receiver.close();
  }
}

await runBench(main);
