/**
 * Benchmark: what the live outputs cost the run (issue 38, item 4). The same `load command` at a fixed
 * rate against the reference (`serve`, in its own process, so its CPU is never counted), without any
 * output and with every one on at once (`--out json=FILE`, `--out prometheus-rw=` a real Prometheus,
 * `--out otlp=` a real OpenTelemetry Collector), in pairs ordered A B, B A, A B… so the machine's
 * drift lands on both alike. Each run is a child under `/usr/bin/time`; the figures are the load
 * process's CPU (user + system) per completed request, the same beyond its start-up and end (a 1 s
 * trickle of each variant, subtracted: the outputs' SDKs load once per run, not per request), and its
 * peak resident memory sampled from /proc. The goal: with every output on, CPU per request within 5%
 * of none, and memory flat.
 *
 *   node bench/outputs-cost.ts [--rate 3000] [--seconds 10] [--pairs 3]
 *
 * Loopback only; about pairs × 2 × (seconds + 3) s, plus the receivers' start.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCollector } from '../test/support/otelcol.ts';
import { prometheusVersion, startPrometheus } from '../test/support/prometheus.ts';
import { startCli } from '../test/support/run-cli.ts';
import { fixed, positive, renderTable, rssOf, runTimed, tempDir, whole } from './load-bench-util.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    rate: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '10' },
    pairs: { type: 'string', default: '3' },
  },
});
const rate = positive(values.rate, 'rate');
const seconds = positive(values.seconds, 'seconds');
const pairs = positive(values.pairs, 'pairs');
const bin = new URL('../bin/svc-harness.js', import.meta.url).pathname;

interface Measured {
  readonly outputs: 'none' | 'all';
  readonly completed: number;
  readonly cpuS: number;
  readonly peakRss: number;
  readonly dropped: string;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

async function main(): Promise<void> {
  if (prometheusVersion() === undefined) throw new Error('no prometheus on PATH (scripts/setup.sh installs it)');
  const dir = tempDir();
  const target = join(dir.path, 'target.json');
  const serve = startCli(['serve', '--write-target', target], { timeoutMs: 3_600_000 });
  const prometheus = await startPrometheus();
  const collector = await startCollector();
  try {
    for (let waited = 0; !serve.stdout().includes('Stop with Ctrl-C'); waited += 100) {
      if (waited > 60_000) throw new Error(`serve did not start: ${serve.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const measured: Measured[] = [];
    const run = async (outputs: Measured['outputs'], index: number, short = false): Promise<Measured> => {
      const reportDir = join(dir.path, `${outputs}-${index}${short ? '-short' : ''}`);
      const outs =
        outputs === 'all'
          ? [
              '--out',
              `json=${join(dir.path, `live-${index}.ndjson`)}`,
              '--out',
              `prometheus-rw=${prometheus.writeUrl}`,
              '--out',
              `otlp=${collector.url}`,
            ]
          : [];
      let peakRss = 0;
      let sampler: NodeJS.Timeout | undefined;
      // The short run: the same command at a trickle for 1 s, whose CPU is the start-up and the end
      // (modules, the outputs' SDKs, the reports), subtracted to leave what the requests cost.
      const load = short ? ['--rate', '10', '--duration', '1s'] : ['--rate', String(rate), '--duration', `${seconds}s`];
      const args = [bin, 'load', 'command', '--target', target, ...load];
      const done = await runTimed(
        process.execPath,
        [...args, '--report-dir', reportDir, '--quiet', ...outs],
        (seconds + 60) * 1000,
        dir.path,
        (pid) => {
          sampler = setInterval(() => {
            peakRss = Math.max(peakRss, rssOf(pid) ?? 0);
          }, 100);
        },
      );
      clearInterval(sampler);
      const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
        load: { scenarios: { requests: { completed: number } }[] };
      };
      const dropped = /(\d+) of (\d+) \w+ dropped/g;
      return {
        outputs,
        completed: report.load.scenarios[0]?.requests.completed ?? 0,
        cpuS: done.userS + done.sysS,
        peakRss,
        dropped: [...done.stderr.matchAll(dropped)].map((match) => `${match[1]}/${match[2]}`).join(' ') || '0',
      };
    };
    const shortRuns: Measured[] = [];
    // A B, then B A, and so on (ABBA): a drift of the machine's speed within a pair lands on both alike.
    for (let pair = 0; pair < pairs; pair++) {
      const order: Measured['outputs'][] = pair % 2 === 0 ? ['none', 'all'] : ['all', 'none'];
      for (const outputs of order) measured.push(await run(outputs, pair));
      shortRuns.push(await run('none', pair, true));
      shortRuns.push(await run('all', pair, true));
    }
    const perRequest = (item: Measured) => (item.cpuS / Math.max(item.completed, 1)) * 1e6;
    const fixedCost = (which: Measured['outputs']) => {
      const runs = shortRuns.filter((item) => item.outputs === which);
      return { cpuS: median(runs.map((item) => item.cpuS)), completed: median(runs.map((item) => item.completed)) };
    };
    /** CPU per request beyond the start-up and the end, µs. */
    const marginal = (item: Measured) => {
      const start = fixedCost(item.outputs);
      return ((item.cpuS - start.cpuS) / Math.max(item.completed - start.completed, 1)) * 1e6;
    };
    const pairsOf = (cost: (item: Measured) => number) =>
      Array.from({ length: pairs }, (_, pair) => {
        const both = [measured[pair * 2], measured[pair * 2 + 1]] as [Measured, Measured];
        const none = both.find((item) => item.outputs === 'none') as Measured;
        const all = both.find((item) => item.outputs === 'all') as Measured;
        return cost(all) / cost(none);
      });
    const ratios = pairsOf(perRequest);
    const marginalRatios = pairsOf(marginal);
    const rows = measured.map((item) => [
      item.outputs,
      whole(item.completed),
      fixed(item.cpuS, 2),
      fixed(perRequest(item), 1),
      fixed(marginal(item), 1),
      fixed(item.peakRss / 1024 / 1024, 1),
      item.dropped,
    ]);
    console.log(
      `load command at ${rate} req/s for ${seconds} s against serve; outputs: none, or json + prometheus-rw + otlp`,
    );
    console.log(
      renderTable(
        ['outputs', 'completed', 'CPU s', 'CPU µs/request', 'beyond start-up µs/request', 'peak RSS MB', 'dropped'],
        rows,
      ),
    );
    console.log(
      `start-up and end (a 1 s trickle), median CPU: none ${fixed(fixedCost('none').cpuS, 2)} s, all ${fixed(fixedCost('all').cpuS, 2)} s`,
    );
    const rss = (which: Measured['outputs']) =>
      median(measured.filter((item) => item.outputs === which).map((item) => item.peakRss));
    console.log(
      `CPU per request, all outputs / none, pair by pair: ${ratios.map((ratio) => fixed(ratio, 3)).join(', ')}; median ${fixed(median(ratios), 3)}`,
    );
    console.log(
      `beyond start-up, all / none, pair by pair: ${marginalRatios.map((ratio) => fixed(ratio, 3)).join(', ')}; median ${fixed(median(marginalRatios), 3)} (goal: at most 1.05)`,
    );
    // Every run's CPU beyond start-up over every run's requests, per variant: one figure over all pairs.
    const pooled = (which: Measured['outputs']) => {
      const runs = measured.filter((item) => item.outputs === which);
      const start = fixedCost(which);
      const cpu = runs.reduce((sum, item) => sum + item.cpuS - start.cpuS, 0);
      return cpu / runs.reduce((sum, item) => sum + item.completed - start.completed, 0);
    };
    console.log(`beyond start-up, all / none, pooled over every pair: ${fixed(pooled('all') / pooled('none'), 3)}`);
    console.log(
      `peak RSS, median: none ${fixed(rss('none') / 1024 / 1024, 1)} MB, all ${fixed(rss('all') / 1024 / 1024, 1)} MB`,
    );
  } finally {
    serve.child.kill('SIGTERM');
    await serve.finished;
    await prometheus.stop();
    await collector.dispose();
    dir.remove();
  }
}

await runBench(main);
