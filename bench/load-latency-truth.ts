/**
 * Benchmark: latency truth. A local server (bench/load-test-server.ts, own process) holds every
 * request arriving in the first second of each 4-second window until that second ends. The node
 * engine's open model at 1,000 req/s and autocannon `-R 1000` load it in the same run; both are set
 * against the truth computed from the schedule: a request arriving at offset s in [0, 1 s) of a
 * window waits 1 s − s, on top of the unstalled latency L (p50 of a short unstalled run first).
 * Over whole windows 25 % of requests stall, so p50 = L, p90 = 600 ms + L, p99 = 960 ms + L,
 * p99.9 = 996 ms + L; the truth here is computed per arrival from the run's own phase (the server
 * reports the first arrival's offset in its window), so any --seconds is exact.
 *
 *   node bench/load-latency-truth.ts [--seconds 12] [--rate 1000] [--baseline-seconds 3]
 *     [--connections 2000 (node engine: most in flight)] [--ac-connections 1000]
 *     [--start-at-ms 0 (where in a window the engine's run starts; the truth follows the phase)]
 *     [--workers 1 (threads of the node engine's open model)] [--engine node|node-undici]
 *
 * Loopback only; about 2 × seconds + 15 s; hard stop at 4 × seconds + 60 s.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseLoadSettings } from '../src/engines/load/load-settings.ts';
import { runLoad } from '../src/engines/load/run-load.ts';
import type { ScenarioResult } from '../src/results/load-run.ts';
import {
  autocannonBin,
  fixed,
  hardStop,
  lastJsonLine,
  positive,
  renderTable,
  runTimed,
  scenariosDir,
  shellLine,
  startTestServer,
  tempDir,
  whole,
  writeTarget,
} from './load-bench-util.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    seconds: { type: 'string', default: '12' },
    rate: { type: 'string', default: '1000' },
    'baseline-seconds': { type: 'string', default: '3' },
    connections: { type: 'string', default: '2000' },
    'ac-connections': { type: 'string', default: '1000' },
    'window-ms': { type: 'string', default: '4000' },
    'stall-ms': { type: 'string', default: '1000' },
    'start-at-ms': { type: 'string', default: '0' },
    workers: { type: 'string', default: '1' },
    // The node engine on raw sockets (node) or on undici (node-undici).
    engine: { type: 'string', default: 'node' },
  },
});
const seconds = positive(values.seconds, 'seconds');
const rate = positive(values.rate, 'rate');
const baselineSeconds = positive(values['baseline-seconds'], 'baseline-seconds');
const windowMs = positive(values['window-ms'], 'window-ms');
const stallMs = positive(values['stall-ms'], 'stall-ms');
const percentiles = [50, 90, 99, 99.9] as const;

interface Row {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
}

async function main(): Promise<void> {
  hardStop((4 * seconds + baselineSeconds + 60) * 1000, 'load-latency-truth');
  const server = await startTestServer({ everyMs: windowMs, stallMs });
  const dir = tempDir();
  try {
    console.log('svc-harness load-latency-truth benchmark');
    console.log(
      `  node ${process.version}; loopback; server: bench/load-test-server.ts (own process, pid ${server.pid})`,
    );
    console.log(
      `  stall: requests arriving in the first ${stallMs} ms of each ${windowMs} ms window are held until it ends`,
    );
    console.log('');

    // L: the unstalled latency, from a short run of the same engine (which also warms it up).
    const baseline = await nodeRun(dir.path, server.plainUrl, baselineSeconds);
    const L = baseline.latencyMs.p50;

    // The engine's own event loop while it loads the stalled server: a blocked loop adds to every latency.
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    // The ping scenario's setup waits for this point of a window (its edge by default).
    await control(server.url, `/start-at?ms=${Number(values['start-at-ms'])}`);
    const engine = await nodeRun(dir.path, server.url, seconds);
    loop.disable();
    const enginePhase = await first(server.url);
    const truth = truthOf(enginePhase.firstOffsetMs, Math.floor(rate * seconds), L);
    const served = truthOf(enginePhase.firstOffsetMs, Math.floor(rate * seconds), L, enginePhase.releases);

    // A new first-arrival mark for autocannon's run.
    await control(server.url, '/clock');
    const acArgs = [
      '-R',
      String(rate),
      '-c',
      values['ac-connections'],
      '-d',
      String(seconds),
      '-H',
      'authorization=Bearer t',
      '--json',
      `${server.url}/ping`,
    ];
    const acRun = await runTimed(autocannonBin, acArgs, (seconds + 30) * 1000, dir.path);
    const ac = lastJsonLine<AutocannonJson>(acRun.stdout, 'autocannon');
    const acPhase = await first(server.url);

    const engineRow: Row = engine.latencyMs;
    const acRow: Row = { p50: ac.latency.p50, p90: ac.latency.p90, p99: ac.latency.p99, p999: ac.latency.p99_9 };
    const acFailed = ac.non2xx + ac.errors + ac.timeouts;
    const cells = (row: Row) => [fixed(row.p50), fixed(row.p90), fixed(row.p99), fixed(row.p999)];
    console.log(
      renderTable(
        ['latency ms', 'p50', 'p90', 'p99', 'p99.9', 'answered', 'failed', 'dropped'],
        [
          ['truth (schedule)', ...cells(truth.row), whole(truth.count), '-', '-'],
          ['truth + server release', ...cells(served.row), whole(served.count), '-', '-'],
          [
            `${values.engine} engine (open)`,
            ...cells(engineRow),
            whole(engine.requests.completed),
            whole(engine.requests.failed),
            whole(engine.requests.dropped),
          ],
          ['autocannon -R', ...cells(acRow), whole(ac['2xx']), whole(acFailed), 'n/a'],
        ],
      ),
    );
    console.log('');
    const error = (got: number, want: number) =>
      `${((got - want) / want) * 100 >= 0 ? '+' : ''}${fixed(((got - want) / want) * 100)} %`;
    console.log(
      renderTable(
        ['vs truth', 'p90', 'p99', 'p99.9', 'p50 / L'],
        [
          [
            'node engine',
            error(engineRow.p90, truth.row.p90),
            error(engineRow.p99, truth.row.p99),
            error(engineRow.p999, truth.row.p999),
            fixed(engineRow.p50 / L, 2),
          ],
          [
            'node engine vs truth + server release',
            error(engineRow.p90, served.row.p90),
            error(engineRow.p99, served.row.p99),
            error(engineRow.p999, served.row.p999),
            '',
          ],
          [
            'autocannon',
            error(acRow.p90, truth.row.p90),
            error(acRow.p99, truth.row.p99),
            error(acRow.p999, truth.row.p999),
            fixed(acRow.p50 / L, 2),
          ],
        ],
      ),
    );
    console.log('');
    console.log(
      `L (unstalled p50, node engine, ${baselineSeconds} s at ${rate}/s) = ${fixed(L, 3)} ms; ` +
        `its p99 ${fixed(baseline.latencyMs.p99, 2)} ms`,
    );
    console.log(
      `stalled share realised: ${fixed(truth.stalledShare * 100, 2)} % of ${whole(truth.count)} scheduled arrivals ` +
        `(run starts ${fixed(enginePhase.firstOffsetMs ?? 0, 1)} ms into a window; ` +
        `autocannon's first request ${fixed(acPhase.firstOffsetMs ?? 0, 1)} ms into one)`,
    );
    console.log(
      `node engine's event-loop delay during its stalled run: p99 ${fixed(loop.percentile(99) / 1e6)} ms, ` +
        `max ${fixed(loop.max / 1e6)} ms (includes setup, finish and the result's merge)`,
    );
    const releases = enginePhase.releases;
    console.log(
      `server's releases of held answers in the engine's run: ${releases.length}, ` +
        `${releases.map((item) => `${item.count} answers begun ${fixed(item.lateMs)} ms late, written in ${fixed(item.ms)} ms`).join('; ')}`,
    );
    console.log(
      `requests held per stall window: server ${releases.map((item) => item.count).join('/')}, ` +
        `schedule ${truth.perWindow.join('/')} (more held than scheduled: requests sent late, into a stall)`,
    );
    console.log('aim: node engine within 2 % of the truth at p90, p99 and p99.9; p50 / L near 1.');
    console.log(
      'autocannon -R spreads the rate over its connections: each sends its share at the start of each of its own seconds (bursts), and it times a request from when it was written, so a stall hides the requests that could not be sent (coordinated omission).',
    );
    console.log('');
    console.log('commands:');
    const engineLine = `runLoad({ scenarios: ['ping'], scenariosDir: 'bench/load-scenarios', target, settings: parseLoadSettings({ model: 'open', rate: '${rate}', duration: 'Ns', connections: '${values.connections}' }) })`;
    console.log(
      `  node engine, unstalled: ${engineLine.replace('Ns', `${baselineSeconds}s`)} against ${server.plainUrl}`,
    );
    console.log(`  node engine, stalled:   ${engineLine.replace('Ns', `${seconds}s`)} against ${server.url}`);
    console.log(`  ${shellLine(['autocannon', ...acArgs])}`);
  } finally {
    await server.stop();
    dir.remove();
  }
}

interface AutocannonJson {
  readonly latency: { readonly p50: number; readonly p90: number; readonly p99: number; readonly p99_9: number };
  readonly '2xx': number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}

async function nodeRun(dir: string, url: string, durationS: number): Promise<ScenarioResult> {
  const run = await runLoad({
    scenarios: ['ping'],
    scenariosDir,
    target: writeTarget(dir, url),
    settings: parseLoadSettings({
      engine: values.engine,
      model: 'open',
      rate: String(rate),
      duration: `${durationS}s`,
      connections: values.connections,
      workers: values.workers,
    }),
    reportDir: dir,
    reporters: [],
  });
  const scenario = run.scenarios[0];
  if (!scenario) throw new Error(`the node engine ran nothing: ${run.aborted ?? run.problems.join('; ')}`);
  if (scenario.problem) throw new Error(`the node engine's run: ${scenario.problem}`);
  return scenario;
}

async function control(url: string, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as Record<string, unknown>;
}

async function first(
  url: string,
): Promise<{ firstOffsetMs: number | undefined; count: number; releases: readonly Release[] }> {
  const answer = await control(url, '/first');
  return {
    firstOffsetMs: typeof answer.firstOffsetMs === 'number' ? answer.firstOffsetMs : undefined,
    count: Number(answer.count),
    releases: Array.isArray(answer.releases) ? (answer.releases as Release[]) : [],
  };
}

interface Release {
  readonly count: number;
  readonly lateMs: number;
  readonly ms: number;
}

/**
 * Latency of every scheduled arrival: L, plus the rest of the stall if it arrives inside one. With
 * `releases` (the server's own account of each release), a held request also waits for the server
 * to begin the release and to write the answers before its own: the truth the server allows.
 */
function truthOf(firstOffsetMs: number | undefined, count: number, L: number, releases: readonly Release[] = []) {
  const offset0 = firstOffsetMs ?? 0;
  const latencies = new Float64Array(count);
  let stalled = 0;
  let window = -1;
  let release = -1;
  let rank = 0;
  const perWindow: number[] = [];
  for (let n = 0; n < count; n++) {
    const at = offset0 + (n * 1000) / rate;
    const w = Math.floor(at / windowMs);
    const offset = at - w * windowMs;
    let wait = 0;
    if (offset < stallMs) {
      stalled++;
      if (w !== window) {
        window = w;
        release++;
        rank = 0;
        perWindow.push(0);
      }
      rank++;
      perWindow[perWindow.length - 1]! += 1;
      const item = releases[release];
      wait = stallMs - offset + (item ? item.lateMs + (item.ms * rank) / item.count : 0);
    }
    latencies[n] = L + wait;
  }
  latencies.sort();
  // As HDR's getValueAtPercentile: the smallest value with at least p % of the values at or below it.
  const at = (p: number) => latencies[Math.max(0, Math.ceil((p / 100) * count) - 1)] ?? 0;
  const [p50, p90, p99, p999] = percentiles.map(at) as [number, number, number, number];
  return { row: { p50, p90, p99, p999 }, count, stalledShare: stalled / count, perWindow };
}

await runBench(main);
