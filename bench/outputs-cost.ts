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
 *   node bench/outputs-cost.ts [--rate 3000] [--seconds 10] [--pairs 3] [--outputs json,prometheus-rw,otlp]
 *     [--cpu-prof DIR]
 *
 * `--outputs` turns on only those (each output's own cost); `--cpu-prof` writes each measured run's
 * V8 CPU profile into DIR (`node --cpu-prof`), to see where what is left goes.
 *
 * Loopback only; about pairs × 2 × (seconds + 3) s, plus the receivers' start.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type OutputKind, outputKinds } from '../src/reporters/outputs/output-kinds.ts';
import { studentTQuantile } from '../src/results/trend-slope.ts';
import { startCollector } from '../test/support/otelcol.ts';
import { prometheusVersion, startPrometheus } from '../test/support/prometheus.ts';
import { startCli } from '../test/support/run-cli.ts';
import { cpuSecondsOf, fixed, positive, renderTable, rssOf, runTimed, tempDir, whole } from './load-bench-util.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    rate: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '10' },
    pairs: { type: 'string', default: '3' },
    outputs: { type: 'string', default: 'json,prometheus-rw,otlp' },
    'cpu-prof': { type: 'string' },
  },
});
const chosen = (values.outputs ?? '').split(',').filter((kind) => kind !== '');
const isKind = (kind: string): kind is OutputKind => (outputKinds as readonly string[]).includes(kind);
const unknownKind = chosen.find((kind) => !isKind(kind));
if (unknownKind !== undefined || chosen.length === 0) {
  console.error(`svc-harness bench: --outputs "${values.outputs}" is not a comma list of ${outputKinds.join(', ')}`);
  process.exit(2);
}
const onOutputs = chosen.filter(isKind);
const cpuProfDir = values['cpu-prof'];
const rate = positive(values.rate, 'rate');
const seconds = positive(values.seconds, 'seconds');
const pairs = positive(values.pairs, 'pairs');
const bin = new URL('../bin/svc-harness.js', import.meta.url).pathname;

interface Measured {
  readonly outputs: 'none' | 'all';
  readonly completed: number;
  readonly cpuS: number;
  readonly peakRss: number;
  /** The steady middle of the load (steadyWindow): its CPU per request, µs, and its memory's growth. */
  readonly steady: { readonly cpuUsPerRequest: number; readonly rssGrowth: number; readonly seconds: number };
  readonly dropped: string;
}

/** A sample of the load process: when (ms, this process's clock), its CPU so far (s), its memory. */
interface Sample {
  readonly atMs: number;
  readonly cpuS: number;
  readonly rss: number;
}

/**
 * The steady middle of a run: from 3 s after the process was first seen (its start-up and the load's
 * first second are behind it) to 2.5 s before it was last seen (the drain and the reports ahead). The
 * load sends at a fixed rate, so the requests in it are the rate times its length, and its CPU per
 * request leaves out the start-up and the end with no trickle to subtract: the cleaner of the figures.
 */
function steadyWindow(samples: readonly Sample[], perSecond: number): Measured['steady'] {
  const first = samples[0];
  const last = samples.at(-1);
  const inside =
    first && last ? samples.filter((item) => item.atMs >= first.atMs + 3000 && item.atMs <= last.atMs - 2500) : [];
  const from = inside[0];
  const to = inside.at(-1);
  if (from === undefined || to === undefined || to.atMs - from.atMs < 2000) {
    return { cpuUsPerRequest: Number.NaN, rssGrowth: Number.NaN, seconds: 0 };
  }
  const seconds = (to.atMs - from.atMs) / 1000;
  return {
    cpuUsPerRequest: ((to.cpuS - from.cpuS) / (seconds * perSecond)) * 1e6,
    rssGrowth: to.rss - from.rss,
    seconds,
  };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * The pairs' ratios as one figure with its uncertainty: the geometric mean and a Student-t 95%
 * interval of the mean of their logarithms (a ratio's noise is multiplicative). A machine shared with
 * the receivers and `serve` moves single pairs by ±10%; the interval says how far the mean can be off.
 */
function ratioInterval(ratios: readonly number[]): string {
  const logs = ratios.filter((ratio) => Number.isFinite(ratio) && ratio > 0).map(Math.log);
  if (logs.length < 2) return 'too few pairs for an interval';
  const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
  const variance = logs.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (logs.length - 1);
  const half = studentTQuantile(0.975, logs.length - 1) * Math.sqrt(variance / logs.length);
  return `geometric mean ${fixed(Math.exp(mean), 3)}, 95% interval ${fixed(Math.exp(mean - half), 3)}–${fixed(Math.exp(mean + half), 3)} over ${logs.length} pairs`;
}

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
    /** A measured run; `short`, the 1 s trickle; `warm-up`, 5 s at the rate, not counted. */
    type RunKind = 'measured' | 'short' | 'warm-up';
    const run = async (outputs: Measured['outputs'], index: number, kind: RunKind = 'measured'): Promise<Measured> => {
      const reportDir = join(dir.path, `${outputs}-${index}-${kind}`);
      const destination: Record<OutputKind, string> = {
        json: join(dir.path, `live-${index}.ndjson`),
        'prometheus-rw': prometheus.writeUrl,
        otlp: collector.url,
      };
      const outs = outputs === 'all' ? onOutputs.flatMap((kind) => ['--out', `${kind}=${destination[kind]}`]) : [];
      const profile =
        cpuProfDir !== undefined && kind === 'measured'
          ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir, '--cpu-prof-name', `${outputs}-${index}.cpuprofile`]
          : [];
      const samples: Sample[] = [];
      let sampler: NodeJS.Timeout | undefined;
      // The short run: the same command at a trickle for 1 s, whose CPU is the start-up and the end
      // (modules, the outputs' SDKs, the reports), subtracted to leave what the requests cost.
      const load =
        kind === 'short'
          ? ['--rate', '10', '--duration', '1s']
          : ['--rate', String(rate), '--duration', `${kind === 'warm-up' ? 5 : seconds}s`];
      const args = [bin, 'load', 'command', '--target', target, ...load];
      const done = await runTimed(
        process.execPath,
        [...profile, ...args, '--report-dir', reportDir, '--quiet', ...outs],
        (seconds + 60) * 1000,
        dir.path,
        (pid) => {
          sampler = setInterval(() => {
            const cpuS = cpuSecondsOf(pid);
            const rss = rssOf(pid);
            if (cpuS !== undefined && rss !== undefined) samples.push({ atMs: performance.now(), cpuS, rss });
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
        peakRss: Math.max(0, ...samples.map((item) => item.rss)),
        steady: steadyWindow(samples, rate),
        dropped: [...done.stderr.matchAll(dropped)].map((match) => `${match[1]}/${match[2]}`).join(' ') || '0',
      };
    };
    const shortRuns: Measured[] = [];
    // Not counted: the first pair of every bench read 1.11–1.19 while the later ones read 0.95–1.13.
    // Then the receivers were still starting (Prometheus's first head block, the collector's first
    // export) and the outputs' modules had no compile cache yet.
    await run('none', -1, 'warm-up');
    await run('all', -1, 'warm-up');
    // A B, then B A, and so on (ABBA): a drift of the machine's speed within a pair lands on both alike.
    for (let pair = 0; pair < pairs; pair++) {
      const order: Measured['outputs'][] = pair % 2 === 0 ? ['none', 'all'] : ['all', 'none'];
      for (const outputs of order) measured.push(await run(outputs, pair));
      shortRuns.push(await run('none', pair, 'short'));
      shortRuns.push(await run('all', pair, 'short'));
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
    const steadyRatios = pairsOf((item) => item.steady.cpuUsPerRequest);
    const rows = measured.map((item) => [
      item.outputs,
      whole(item.completed),
      fixed(item.cpuS, 2),
      fixed(perRequest(item), 1),
      fixed(marginal(item), 1),
      fixed(item.steady.cpuUsPerRequest, 1),
      fixed(item.steady.rssGrowth / 1024 / 1024, 1),
      fixed(item.peakRss / 1024 / 1024, 1),
      item.dropped,
    ]);
    console.log(
      `load command at ${rate} req/s for ${seconds} s against serve; outputs: none, or ${onOutputs.join(' + ')}`,
    );
    console.log(
      renderTable(
        [
          'outputs',
          'completed',
          'CPU s',
          'CPU µs/request',
          'beyond start-up µs/request',
          'steady µs/request',
          'steady RSS growth MB',
          'peak RSS MB',
          'dropped',
        ],
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
    // The steady middle of each run (steadyWindow), pooled: every run's CPU in it over its requests.
    const steadyPooled = (which: Measured['outputs']) => {
      const runs = measured.filter((item) => item.outputs === which && item.steady.seconds > 0);
      const cpu = runs.reduce((sum, item) => sum + (item.steady.cpuUsPerRequest * item.steady.seconds * rate) / 1e6, 0);
      return cpu / runs.reduce((sum, item) => sum + item.steady.seconds * rate, 0);
    };
    console.log(
      `steady middle of the load (${fixed(measured[0]?.steady.seconds ?? 0, 1)} s a run), all / none, pair by pair: ${steadyRatios.map((ratio) => fixed(ratio, 3)).join(', ')}; median ${fixed(median(steadyRatios), 3)}; pooled ${fixed(steadyPooled('all') / steadyPooled('none'), 3)} (goal: at most 1.05)`,
    );
    console.log(`steady middle, all / none, ${ratioInterval(steadyRatios)}`);
    const growth = (which: Measured['outputs']) =>
      median(measured.filter((item) => item.outputs === which).map((item) => item.steady.rssGrowth));
    console.log(
      `memory's growth over the steady middle, median: none ${fixed(growth('none') / 1024 / 1024, 1)} MB, all ${fixed(growth('all') / 1024 / 1024, 1)} MB`,
    );
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
