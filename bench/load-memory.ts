/**
 * Benchmark: memory. The node engine's resident memory (RSS) while it sends 1 M (and, asked, 10 M)
 * requests to the fast local server (bench/load-test-server.ts, own process) at maximum throughput
 * (closed model, 10 connections) or at a high open rate (`--model open --rate R`, one thread).
 * The engine runs in bench/load-engine-driver.ts, which stops it after --requests answers and
 * notes its own RSS at each mark; this script also reads the driver's VmRSS from /proc every
 * --sample-seconds. "flat" when the highest RSS stays under 200 MB. The driver runs with
 * --expose-gc: at each mark it also notes the heap and RSS right after a full collection (live memory).
 *
 *   node bench/load-memory.ts [--requests 1000000] [--model closed|open] [--connections 10] [--rate 4000]
 *     [--max-seconds 240] [--sample-seconds 2] [--open-connections 1000 (open model: most in flight)]
 *
 * The default (1 M) takes about 3 min here (the closed model does ~5,500 req/s on 2 shared cores);
 * 10 M (`--requests 10000000 --max-seconds 2400`) about 30 min: the script prints its estimate for
 * this machine from the measured rate. --max-seconds bounds the load whatever --requests says.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import {
  driverFile,
  fixed,
  hardStop,
  lastJsonLine,
  mb,
  positive,
  renderTable,
  rssOf,
  shellLine,
  startTestServer,
  whole,
} from './load-bench-util.ts';
import type { DriverResult } from './load-engine-driver.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    requests: { type: 'string', default: '1000000' },
    model: { type: 'string', default: 'closed' },
    connections: { type: 'string', default: '10' },
    'open-connections': { type: 'string', default: '1000' },
    rate: { type: 'string', default: '4000' },
    'max-seconds': { type: 'string', default: '240' },
    'sample-seconds': { type: 'string', default: '2' },
  },
});
const requests = positive(values.requests, 'requests');
const maxSeconds = positive(values['max-seconds'], 'max-seconds');
const sampleMs = positive(values['sample-seconds'], 'sample-seconds') * 1000;
const flatBytes = 200 * 1024 * 1024;

async function main(): Promise<void> {
  hardStop((maxSeconds + 180) * 1000, 'load-memory');
  if (values.model !== 'closed' && values.model !== 'open') throw new Error('--model is closed or open');
  const server = await startTestServer();
  try {
    console.log('svc-harness load-memory benchmark');
    console.log(`  node ${process.version}; loopback; server: bench/load-test-server.ts (own process)`);
    console.log('');
    const marks = [100_000, 1_000_000, 10_000_000].filter((mark) => mark < requests);
    marks.push(requests);
    // The open model stops by its schedule: rate × seconds = requests (bounded by --max-seconds).
    const modelFlags =
      values.model === 'closed'
        ? ['--model', 'closed', '--connections', values.connections, '--seconds', String(maxSeconds)]
        : [
            '--model',
            'open',
            '--rate',
            values.rate,
            '--workers',
            '1',
            // The most in flight (and sockets): the engine's default 1,000 unless --open-connections says.
            '--connections',
            values['open-connections'],
            '--seconds',
            String(Math.min(maxSeconds, requests / positive(values.rate, 'rate'))),
          ];
    const args = [
      driverFile,
      '--url',
      server.plainUrl,
      ...modelFlags,
      '--requests',
      String(requests),
      '--marks',
      marks.join(','),
      '--sample-ms',
      String(sampleMs),
    ];
    const started = performance.now();
    const samples: { atS: number; rss: number }[] = [];
    const child = spawn(process.execPath, ['--expose-gc', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const sampler = setInterval(() => {
      const rss = rssOf(child.pid ?? 0);
      if (rss !== undefined) samples.push({ atS: (performance.now() - started) / 1000, rss });
    }, sampleMs);
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), (maxSeconds + 120) * 1000);
      child.once('close', (exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
    clearInterval(sampler);
    if (code !== 0) throw new Error(`the driver exited with code ${code}: ${stdout.slice(-300)}`);
    const result = lastJsonLine<DriverResult>(stdout, 'the driver');

    const answered = result.completed + result.failed;
    const rate = result.completed / result.loadS;
    const procMax = Math.max(0, ...samples.map((item) => item.rss));
    const rows = [
      ['start (modules loaded, before the load)', '0', mb(result.rssStartBytes)],
      ...result.marks.map((mark) => [
        `after ${whole(mark.requests)} answers (${fixed(mark.atS)} s)`,
        whole(mark.requests),
        mb(mark.rssBytes),
        mb(mark.rssAfterGcBytes ?? Number.NaN),
        mb(mark.heapAfterGcBytes ?? Number.NaN),
      ]),
      ['end (after the result was merged)', whole(answered), mb(result.rssEndBytes)],
      ['highest, driver (every 250 ms)', '', mb(result.rssMaxBytes)],
      [`highest, /proc VmRSS (every ${sampleMs / 1000} s)`, '', mb(procMax)],
    ];
    console.log(renderTable(['node engine', 'answers', 'RSS', 'RSS after a full GC', 'live heap after GC'], rows));
    console.log(
      `the start and end are before and after the load; the highest RSS includes the end's merge of the result`,
    );
    console.log('');
    const highest = Math.max(result.rssMaxBytes, procMax);
    const reached = result.marks.find((mark) => mark.requests === requests);
    console.log(
      `${whole(result.completed)} completed, ${whole(result.failed)} failed, ${whole(result.dropped)} dropped, ` +
        `${whole(rate)} req/s over ${fixed(result.loadS)} s (${values.model} model)` +
        (reached ? '' : `; stopped by --max-seconds ${maxSeconds} before ${whole(requests)} answers`),
    );
    const warm = result.marks.find((mark) => mark.requests === 100_000);
    const last = result.marks.at(-1);
    if (warm && last && last.requests > warm.requests) {
      const perMillion = (a: number, b: number) => ((b - a) / (last.requests - warm.requests)) * 1e6;
      console.log(
        `growth from 100,000 answers to ${whole(last.requests)}, per million answers: RSS ${mb(perMillion(warm.rssBytes, last.rssBytes))}` +
          (warm.heapAfterGcBytes !== undefined && last.heapAfterGcBytes !== undefined
            ? `, live heap ${mb(perMillion(warm.heapAfterGcBytes, last.heapAfterGcBytes))}`
            : ''),
      );
    }
    console.log(
      highest < flatBytes
        ? `flat: the highest RSS, ${mb(highest)}, stays under 200 MB`
        : `NOT flat: the highest RSS, ${mb(highest)}, is above 200 MB`,
    );
    console.log(
      `10 M answers at this rate take about ${fixed(10_000_000 / rate / 60, 1)} min here ` +
        `(node bench/load-memory.ts --requests 10000000 --max-seconds ${Math.ceil((10_000_000 / rate) * 1.3)})`,
    );
    console.log(
      `RSS over time (/proc, s:MB): ${samples.map((item) => `${Math.round(item.atS)}:${Math.round(item.rss / 1048576)}`).join(' ')}`,
    );
    for (const problem of result.problems) console.log(`  ! ${problem}`);
    console.log('');
    console.log('command:');
    console.log(`  ${shellLine(['node', 'bench/load-engine-driver.ts', ...args.slice(1)])}`);
  } finally {
    await server.stop();
  }
}

await runBench(main);
