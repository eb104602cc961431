/**
 * Benchmark: the node engine and the k6 engine on the same scenario and the same target in the same
 * run. The reference runs as `svc-harness serve` in a process of its own; each engine runs as
 * `svc-harness load <scenario> --engine E --target T --rate R --duration D` under /usr/bin/time, so
 * the client CPU counted is the harness's process and, on k6, the k6 processes it waits for (setup,
 * finish and reading k6's JSON output included: what a user pays). Per rate: client CPU per 1,000
 * completed requests for each engine and the ratio k6 / node, and the latency percentiles of both
 * side by side. Engines alternate, node first, then k6, at each rate.
 *
 * The two measure latency differently: node from each request's intended start (coordinated
 * omission corrected), k6 from the request being written (k6 drops an iteration when no VU is free).
 *
 *   node bench/k6-vs-node.ts [--scenario command] [--rates 500,2000] [--seconds 10] [--segments 1]
 *
 * Loopback only; about rates × 2 × (seconds + 5) s; hard stop at 10 min.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findK6 } from '../src/engines/load/k6/k6-binary.ts';
import { parseList } from '../src/engines/load/load-settings.ts';
import { fixed, hardStop, positive, renderTable, runTimed, shellLine, tempDir, whole } from './load-bench-util.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    scenario: { type: 'string', default: 'command' },
    rates: { type: 'string', default: '500,2000' },
    seconds: { type: 'string', default: '10' },
    segments: { type: 'string', default: '1' },
  },
});
const seconds = positive(values.seconds, 'seconds');
const rates = parseList(values.rates, '--rates');
const segments = positive(values.segments, 'segments');
const cli = join(import.meta.dirname, '..', 'bin', 'svc-harness.js');

interface EngineRun {
  readonly engine: 'node' | 'k6';
  readonly rate: number;
  readonly completed: number;
  readonly failed: number;
  readonly dropped: number;
  readonly cpuS: number;
  readonly latency: { p50: number; p90: number; p99: number; p999: number; max: number };
}

interface ReportShape {
  readonly load: {
    readonly scenarios: readonly {
      readonly requests: { completed: number; failed: number; dropped: number };
      readonly latencyMs: { p50: number; p90: number; p99: number; p999: number; max: number };
      readonly problem: string | null;
    }[];
  };
}

/** `svc-harness serve --write-target`: the reference in its own process, until stdin closes or SIGTERM. */
async function startServe(dir: string): Promise<{ target: string; stop: () => void }> {
  const target = join(dir, 'reference-target.json');
  const child = spawn(process.execPath, [cli, 'serve', '--write-target', target], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  while (!existsSync(target)) {
    if (child.exitCode !== null) throw new Error(`serve exited with code ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('the reference did not write its target file within 30 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { target, stop: () => child.kill('SIGTERM') };
}

async function runEngine(engine: 'node' | 'k6', rate: number, target: string, dir: string): Promise<EngineRun> {
  const reportDir = join(dir, `${engine}-${rate}`);
  const args = [
    cli,
    'load',
    values.scenario,
    '--engine',
    engine,
    ...(engine === 'k6' && segments > 1 ? ['--segments', String(segments)] : []),
    '--target',
    target,
    '--rate',
    String(rate),
    '--duration',
    `${seconds}s`,
    '--report-dir',
    reportDir,
    '--reporter',
    'json',
  ];
  console.log(`$ node ${shellLine(args.slice(1))}`);
  const timed = await runTimed(process.execPath, args, (seconds + 120) * 1000, dir);
  if (timed.code !== 0 && timed.code !== 99)
    throw new Error(`${engine} at ${rate}/s exited ${timed.code}: ${timed.stderr.trim().slice(-300)}`);
  const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as ReportShape;
  const scenario = report.load.scenarios[0];
  if (!scenario) throw new Error(`${engine} at ${rate}/s: no scenario in its report`);
  if (scenario.problem) throw new Error(`${engine} at ${rate}/s: ${scenario.problem}`);
  return {
    engine,
    rate,
    completed: scenario.requests.completed,
    failed: scenario.requests.failed,
    dropped: scenario.requests.dropped,
    cpuS: timed.userS + timed.sysS,
    latency: scenario.latencyMs,
  };
}

await runBench(async () => {
  hardStop(10 * 60_000, 'k6-vs-node');
  const k6 = await findK6({ log: (line) => console.log(line) });
  console.log(
    `k6 v${k6.version} (${k6.source}); node ${process.version}; scenario ${values.scenario}; ${seconds} s per run`,
  );
  const dir = tempDir();
  const serve = await startServe(dir.path);
  const runs: EngineRun[] = [];
  try {
    for (const rate of rates) {
      runs.push(await runEngine('node', rate, serve.target, dir.path));
      runs.push(await runEngine('k6', rate, serve.target, dir.path));
    }
  } finally {
    serve.stop();
    dir.remove();
  }
  const perThousand = (run: EngineRun) => (run.cpuS / Math.max(1, run.completed)) * 1000;
  console.log('\nClient CPU (harness + k6 processes), seconds per 1,000 completed requests:\n');
  console.log(
    renderTable(
      ['rate/s', 'node cpu', 'k6 cpu', 'k6 / node', 'node done', 'k6 done', 'node drop', 'k6 drop'],
      rates.map((rate) => {
        const node = runs.find((run) => run.rate === rate && run.engine === 'node')!;
        const k6run = runs.find((run) => run.rate === rate && run.engine === 'k6')!;
        return [
          whole(rate),
          fixed(perThousand(node), 3),
          fixed(perThousand(k6run), 3),
          fixed(perThousand(k6run) / perThousand(node), 2),
          whole(node.completed),
          whole(k6run.completed),
          whole(node.dropped),
          whole(k6run.dropped),
        ];
      }),
    ),
  );
  console.log('\nLatency (ms), node (from intended start) | k6 (http_req_duration):\n');
  console.log(
    renderTable(
      ['rate/s engine', 'p50', 'p90', 'p99', 'p99.9', 'max'],
      runs.map((run) => [
        `${run.rate} ${run.engine}`,
        fixed(run.latency.p50, 3),
        fixed(run.latency.p90, 3),
        fixed(run.latency.p99, 3),
        fixed(run.latency.p999, 3),
        fixed(run.latency.max, 3),
      ]),
    ),
  );
});
