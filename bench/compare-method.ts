/**
 * Benchmark (issue 23, "Measure the method"): how often `compare` cries wolf, and how often it catches
 * a known slowdown. Four references run side by side (`serve`): a fast one (no delay) and three whose
 * key-value answers each wait a fixed time: BASE ms, BASE + 10% and BASE + 30% of the p99 measured at
 * BASE (whole milliseconds: timers have no finer grain). Each round runs `load command` (the same rate
 * and duration) six times, in this order: fast, fast, base, +10%, +30%, base; then it compares
 *   A/A fast: the two fast runs;   A/A base: the two base runs;
 *   A/B +10%: first base → +10%;   A/B +30%: second base → +30%.
 * It prints the share of pairs whose verdict is "regressed" (any metric, and p99 alone). Loopback only,
 * bounded: rounds × 6 runs of a few seconds.
 *
 *   node bench/compare-method.ts [--rounds 20] [--duration 5s] [--rate 300] [--base-ms 10] [--pairs all|base]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readComparableReport } from '../src/cli/compare-input.ts';
import { type Comparison, compareReports } from '../src/results/compare.ts';
import { benchArgs, runBench } from './run-bench.ts';

const bin = fileURLToPath(new URL('../bin/svc-harness.js', import.meta.url));

interface Server {
  readonly target: string;
  stop(): void;
}

async function startServe(dir: string, name: string, kvLatencyMs: number): Promise<Server> {
  const target = join(dir, `${name}.json`);
  const args = ['serve', '--write-target', target, ...(kvLatencyMs > 0 ? ['--kv-latency', `${kvLatencyMs}ms`] : [])];
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const deadline = Date.now() + 30_000;
  while (!out.includes('Stop with Ctrl-C')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve ${name} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { target, stop: () => child.kill('SIGTERM') };
}

/** One run; a run that fails (the machine's hiccup, not the method's) is tried once more and counted. */
let retried = 0;
async function load(target: string, reportDir: string, duration: string, rate: string): Promise<void> {
  try {
    await loadOnce(target, reportDir, duration, rate);
  } catch {
    retried += 1;
    await loadOnce(target, reportDir, duration, rate);
  }
}

async function loadOnce(target: string, reportDir: string, duration: string, rate: string): Promise<void> {
  const args = ['load', 'command', '--target', target, '--duration', duration, '--rate', rate];
  const child = spawn(process.execPath, [bin, ...args, '--report-dir', reportDir, '--reporter', 'json'], {
    stdio: 'ignore',
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`load against ${target} exited ${code}`);
}

async function p99Of(reportDir: string): Promise<number> {
  const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
    load: { scenarios: { latencyMs: { p99: number } }[] };
  };
  return report.load.scenarios[0]?.latencyMs.p99 ?? Number.NaN;
}

interface Tally {
  pairs: number;
  regressed: number;
  /** Which metrics regressed, over all pairs. */
  metrics: Record<string, number>;
  p99Regressed: number;
  p99Changes: number[];
}

const newTally = (): Tally => ({ pairs: 0, regressed: 0, metrics: {}, p99Regressed: 0, p99Changes: [] });

function count(tally: Tally, comparison: Comparison): void {
  tally.pairs += 1;
  if (comparison.regressed) tally.regressed += 1;
  for (const metric of comparison.scenarios[0]?.metrics ?? []) {
    if (metric.verdict === 'regressed') tally.metrics[metric.metric] = (tally.metrics[metric.metric] ?? 0) + 1;
  }
  const p99 = comparison.scenarios[0]?.metrics.find((metric) => metric.metric === 'p99');
  if (p99?.verdict === 'regressed') tally.p99Regressed += 1;
  if (p99?.change !== null && p99?.change !== undefined) tally.p99Changes.push(p99.change);
}

const pct = (part: number, whole: number) => `${((100 * part) / Math.max(whole, 1)).toFixed(0)}%`;

async function main(): Promise<void> {
  const { values } = benchArgs(import.meta.filename, {
    options: {
      rounds: { type: 'string', default: '20' },
      duration: { type: 'string', default: '5s' },
      rate: { type: 'string', default: '300' },
      'base-ms': { type: 'string', default: '10' },
      // base: only the delayed reference's pairs (A/A base, A/B +10%, A/B +30%), for longer runs.
      pairs: { type: 'string', default: 'all' },
    },
  });
  const rounds = Number(values.rounds);
  const baseMs = Number(values['base-ms']);
  const dir = await mkdtemp(join(tmpdir(), 'compare-method-'));
  const servers: Server[] = [];
  try {
    const fast = await startServe(dir, 'fast', 0);
    const base = await startServe(dir, 'base', baseMs);
    servers.push(fast, base);
    // The slowdowns are shares of the p99 at BASE, measured once here.
    await load(base.target, join(dir, 'probe'), values.duration, values.rate);
    const baseP99 = await p99Of(join(dir, 'probe'));
    const plus10 = baseMs + Math.max(1, Math.round(0.1 * baseP99));
    const plus30 = baseMs + Math.max(1, Math.round(0.3 * baseP99));
    const slow10 = await startServe(dir, 'plus10', plus10);
    const slow30 = await startServe(dir, 'plus30', plus30);
    servers.push(slow10, slow30);
    console.log(
      `compare-method: ${rounds} rounds of load command at ${values.rate}/s for ${values.duration}; base ${baseMs} ms (p99 ${baseP99.toFixed(2)} ms), +10%: ${plus10} ms (+${(((plus10 - baseMs) / baseP99) * 100).toFixed(0)}% of p99), +30%: ${plus30} ms (+${(((plus30 - baseMs) / baseP99) * 100).toFixed(0)}% of p99)`,
    );
    const tallies = { aaFast: newTally(), aaBase: newTally(), ab10: newTally(), ab30: newTally() };
    for (let round = 1; round <= rounds; round += 1) {
      const runDir = (name: string) => join(dir, `r${round}-${name}`);
      const fastPairs = values.pairs !== 'base';
      const order: [string, Server][] = [
        ...(fastPairs
          ? ([
              ['f1', fast],
              ['f2', fast],
            ] as [string, Server][])
          : []),
        ['b1', base],
        ['s10', slow10],
        ['s30', slow30],
        ['b2', base],
      ];
      for (const [name, server] of order) await load(server.target, runDir(name), values.duration, values.rate);
      const read = (name: string) => readComparableReport(runDir(name), name);
      if (fastPairs) count(tallies.aaFast, compareReports(read('f1'), read('f2')));
      count(tallies.aaBase, compareReports(read('b1'), read('b2')));
      count(tallies.ab10, compareReports(read('b1'), read('s10')));
      count(tallies.ab30, compareReports(read('b2'), read('s30')));
      const line = Object.entries(tallies)
        .map(([name, tally]) => `${name} ${tally.regressed}/${tally.pairs} (p99 ${tally.p99Regressed})`)
        .join(', ');
      console.log(`round ${round}: regressed so far: ${line}`);
      for (const name of order.map(([n]) => n)) await rm(runDir(name), { recursive: true, force: true });
    }
    console.log(`runs tried again after a failure: ${retried}`);
    console.log(
      '\npairs          regressed (any metric)  p99 regressed  median p99 change  p99 change range  regressed metrics',
    );
    for (const [name, tally] of Object.entries(tallies)) {
      const sorted = [...tally.p99Changes].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
      console.log(
        `${name.padEnd(14)} ${`${tally.regressed}/${tally.pairs} (${pct(tally.regressed, tally.pairs)})`.padEnd(23)} ${`${tally.p99Regressed}/${tally.pairs} (${pct(tally.p99Regressed, tally.pairs)})`.padEnd(14)} ${`${(median * 100).toFixed(1)}%`.padEnd(18)} ${`${((sorted[0] ?? 0) * 100).toFixed(1)}% … ${((sorted.at(-1) ?? 0) * 100).toFixed(1)}%`.padEnd(17)} ${JSON.stringify(tally.metrics)}`,
      );
    }
  } finally {
    for (const server of servers) server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await runBench(main);
