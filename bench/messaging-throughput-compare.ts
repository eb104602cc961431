/**
 * Benchmark (issue 21, "The reference under this load"): this checkout's reference next to another
 * checkout's (the base commit, `git worktree add /tmp/p-base <commit>`), in ONE run, with the receiver's
 * own capacity (autocannon straight at it) as the peer. Each contender, in alternating order per
 * round: deliveries plus callbacks per second at saturation, and delivery and callback latency at a
 * fixed publish rate. The machine's noise moves every figure, so read the ratios within the run.
 * Loopback only, bounded in time (about 20 s per round; hard stop at 300 s).
 *
 *   node bench/messaging-throughput-compare.ts --base /tmp/p-base [--rounds 2] [--messages 4000]
 *        [--rate 300] [--rate-seconds 5] [--serve-node-options '--cpu-prof --cpu-prof-dir=/tmp/prof']
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  fixedRate,
  type Latencies,
  Receiver,
  type Saturation,
  saturation,
  startReference,
} from './messaging-bench-parts.ts';
import { benchArgs, runBench } from './run-bench.ts';

const warmUpMessages = 500;

interface Contender {
  readonly label: string;
  readonly bin: string;
}

interface RoundResult {
  readonly label: string;
  readonly round: number;
  readonly saturation: Saturation;
  readonly latencies?: Latencies;
}

function positive(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} takes a positive integer, not ${text}`);
  return value;
}

async function main(): Promise<void> {
  const { values } = benchArgs(import.meta.filename, {
    options: {
      base: { type: 'string' },
      rounds: { type: 'string' },
      messages: { type: 'string' },
      rate: { type: 'string' },
      'rate-seconds': { type: 'string' },
      'serve-node-options': { type: 'string' },
      'saturation-only': { type: 'boolean' },
      only: { type: 'string' },
    },
  });
  if (values.base === undefined) throw new Error('--base <checkout of the base commit> is required');
  const baseBin = join(resolve(values.base), 'bin', 'svc-harness.js');
  if (!existsSync(baseBin)) throw new Error(`no ${baseBin}: --base names a checkout of this repository`);
  const rounds = positive(values.rounds, 'rounds', 2);
  const messages = positive(values.messages, 'messages', 4000);
  const rate = positive(values.rate, 'rate', 300);
  const rateSeconds = positive(values['rate-seconds'], 'rate-seconds', 5);

  const hardStop = setTimeout(() => {
    console.error('svc-harness bench: stopped after 300 s');
    process.exit(2);
  }, 300_000);
  hardStop.unref();

  if (values.only !== undefined && values.only !== 'base' && values.only !== 'this') {
    throw new Error(`--only takes base or this, not ${values.only}`);
  }
  const contenders: Contender[] = [
    { label: 'base', bin: baseBin },
    { label: 'this', bin: fileURLToPath(new URL('../bin/svc-harness.js', import.meta.url)) },
  ].filter(({ label }) => values.only === undefined || label === values.only);
  const receiver = new Receiver();
  await receiver.listen();
  const results: RoundResult[] = [];
  try {
    console.log('svc-harness messaging-throughput comparison');
    console.log(`  node ${process.version}; base: ${values.base}; each reference: svc-harness serve (own process)`);
    const peer = await autocannon({
      url: `${receiver.url}/peer`,
      method: 'POST',
      body: 'payload',
      connections: 20,
      duration: 3,
    });
    const peerRate = peer.requests.average;
    console.log(`  peer: autocannon straight at the receiver: ${peerRate.toFixed(0)} req/s`);

    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? contenders : [...contenders].reverse();
      for (const contender of order) {
        const reference = await startReference(contender.bin, values['serve-node-options']);
        try {
          await saturation(reference, receiver, warmUpMessages);
          const result: RoundResult = {
            label: contender.label,
            round,
            saturation: await saturation(reference, receiver, messages),
            ...(!values['saturation-only'] && { latencies: await fixedRate(reference, receiver, rate, rateSeconds) }),
          };
          results.push(result);
          const s = result.saturation;
          const l = result.latencies;
          console.log(
            `  round ${round} ${contender.label.padEnd(4)}  publish ${s.publishRate.toFixed(0).padStart(5)}/s  ` +
              `deliveries+callbacks ${s.endToEndRate.toFixed(0).padStart(5)}/s (${(s.endToEndRate / peerRate).toFixed(3)} × peer)  ` +
              `CPU/message: reference ${s.referenceCpuUs.toFixed(0)} µs (system ${s.referenceSystemCpuUs.toFixed(0)}), Redis ${s.redisCpuUs.toFixed(0)} µs ` +
              `(${s.redisReadsPerMessage.toFixed(2)} Redis reads)` +
              (l === undefined
                ? ''
                : `  ${rate}/s: delivery p50 ${l.deliveryP50.toFixed(1)} p99 ${l.deliveryP99.toFixed(1)} ms, ` +
                  `callback p50 ${l.callbackP50.toFixed(1)} p99 ${l.callbackP99.toFixed(1)} max ${l.callbackMax.toFixed(1)} ms`),
          );
        } finally {
          await reference.stop();
        }
      }
    }

    const median = (numbers: number[]) => {
      const sorted = [...numbers].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1
        ? (sorted[mid] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
    };
    const of = (label: string) => results.filter((r) => r.label === label);
    const rateOf = (label: string) => median(of(label).map((r) => r.saturation.endToEndRate));
    const p99Of = (label: string) => median(of(label).map((r) => r.latencies?.deliveryP99 ?? Number.NaN));
    const cpuOf = (label: string) => median(of(label).map((r) => r.saturation.referenceCpuUs));
    const redisCpuOf = (label: string) => median(of(label).map((r) => r.saturation.redisCpuUs));
    console.log(`  medians over ${rounds} round(s), ${messages} messages each with a callback:`);
    for (const { label } of contenders) {
      console.log(
        `    ${label.padEnd(4)}  deliveries+callbacks ${rateOf(label).toFixed(0).padStart(5)}/s = ` +
          `${(rateOf(label) / peerRate).toFixed(3)} × peer; CPU/message: reference ${cpuOf(label).toFixed(0)} µs, ` +
          `Redis ${redisCpuOf(label).toFixed(0)} µs` +
          (values['saturation-only'] ? '' : `; delivery p99 at ${rate}/s ${p99Of(label).toFixed(1)} ms`),
      );
    }
    if (contenders.length === 2) {
      console.log(
        `    this / base: throughput ${(rateOf('this') / rateOf('base')).toFixed(2)}×, ` +
          `reference CPU/message ${(cpuOf('this') / cpuOf('base')).toFixed(2)}×, ` +
          `Redis CPU/message ${(redisCpuOf('this') / redisCpuOf('base')).toFixed(2)}×` +
          (values['saturation-only'] ? '' : `, delivery p99 ${(p99Of('this') / p99Of('base')).toFixed(2)}×`),
      );
    }
  } finally {
    receiver.close();
  }
}

await runBench(main);
