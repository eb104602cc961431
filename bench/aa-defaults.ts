/**
 * Benchmark (issue 36, "gates that hold on a 2-core machine"): how often two identical runs at the
 * README's defaults compare as "regressed". Each pair is `svc-harness load SCENARIO` against the embedded
 * reference (sharing the harness's process, as a newcomer's first runs do), then the same again with
 * `--baseline` the first's report.json; exit 98 is a false regression. Prints the share, and which
 * metrics regressed. Loopback only, bounded: 2 × pairs runs of a few seconds each.
 *
 *   node bench/aa-defaults.ts [--pairs 20] [--scenario command] [-- extra load flags]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './run-bench.ts';

const { values, positionals } = benchArgs(import.meta.filename, {
  options: { pairs: { type: 'string', default: '20' }, scenario: { type: 'string', default: 'command' } },
  allowPositionals: true,
});
const pairs = Number(values.pairs);
const bin = join(import.meta.dirname, '..', 'bin', 'svc-harness.js');

function load(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'load', values.scenario, ...positionals, ...args], { stdio: 'ignore' });
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve(code ?? -1);
    });
  });
}

interface Metric {
  readonly metric: string;
  readonly verdict: string;
}

const dir = await mkdtemp(join(tmpdir(), 'svc-aa-'));
try {
  let regressed = 0;
  const metrics: Record<string, number> = {};
  for (let pair = 0; pair < pairs; pair += 1) {
    const first = join(dir, `a${pair}`);
    const second = join(dir, `b${pair}`);
    await load(['--report-dir', first]);
    const code = await load(['--report-dir', second, '--baseline', join(first, 'report.json')]);
    if (code === 98) regressed += 1;
    const report = JSON.parse(await readFile(join(second, 'report.json'), 'utf8')) as {
      compare?: { scenarios?: { metrics: Metric[] }[] };
    };
    for (const scenario of report.compare?.scenarios ?? []) {
      for (const item of scenario.metrics) {
        if (item.verdict === 'regressed') metrics[item.metric] = (metrics[item.metric] ?? 0) + 1;
      }
    }
    console.log(`pair ${pair + 1}: exit ${code}`);
  }
  console.log(
    `false regressions: ${regressed}/${pairs} (${((100 * regressed) / pairs).toFixed(1)}%); metrics regressed: ${JSON.stringify(metrics)}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
