/**
 * Benchmark: engine cost, the load generator's CPU time (user + system, from /usr/bin/time) per
 * completed request, for the node engine, autocannon and wrk against the same fast local server
 * (bench/load-test-server.ts in its own process, so its CPU is never counted). Two regimes:
 * fixed rates all of them sustain (node engine open model, autocannon `-R`, each of `--rates` in
 * turn; wrk has no fixed rate, so it appears at maximum only) and maximum throughput with 10
 * connections (node engine closed model, autocannon `-c 10`, `wrk -t1 -c10`).
 *
 * Each generator is a child process under `/usr/bin/time -f '%e %U %S'`. Whole-process CPU
 * includes Node's start and module loading, so the figure compared is the marginal cost: (CPU of
 * the run − CPU of the same command with a near-empty load) / (requests − its requests). wrk
 * starts in a millisecond: its whole-process figure is its marginal one. Wake-ups (voluntary context
 * switches, `%w`) per request are taken the same way: at a fixed rate the cost follows them.
 *
 *   node bench/load-engine-cost.ts [--rates 1000,2000,3000] [--seconds 10] [--connections 10]
 *     [--ac-rate-connections 100] [--no-undici (leave the node-undici rows out)]
 *
 * Loopback only; about (3 × rates + 4) × seconds + 40 s (default ~3 min).
 */
import {
  autocannonBin,
  driverFile,
  fixed,
  hardStop,
  hasCommand,
  lastJsonLine,
  positive,
  renderTable,
  runTimed,
  shellLine,
  startTestServer,
  type TimedRun,
  tempDir,
  whole,
} from './load-bench-util.ts';
import type { DriverResult } from './load-engine-driver.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    rates: { type: 'string', default: '1000,2000,3000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    'ac-rate-connections': { type: 'string', default: '100' },
    'no-undici': { type: 'boolean', default: false },
  },
});
const rates = values.rates.split(',').map((item) => positive(item, 'rates'));
const seconds = positive(values.seconds, 'seconds');

interface Measured {
  readonly generator: string;
  readonly regime: 'fixed rate' | 'maximum';
  /** Requests per second asked for, in the fixed-rate regime. */
  readonly rate?: number;
  readonly command: string;
  readonly completed: number;
  readonly failed: number;
  readonly loadS: number;
  readonly cpuS: number;
  /** Voluntary context switches of the whole process: how often it slept and was woken. */
  readonly waits: number;
  readonly problems: readonly string[];
  /** CPU, wake-ups and requests of the same command with a near-empty load; undefined for wrk. */
  readonly baseline?: {
    readonly cpuS: number;
    readonly waits: number;
    readonly completed: number;
    readonly command: string;
  };
}

async function main(): Promise<void> {
  hardStop(((3 * rates.length + 4) * (seconds + 15) + 120) * 1000, 'load-engine-cost');
  const server = await startTestServer();
  const dir = tempDir();
  const url = server.plainUrl;
  const limit = (seconds + 60) * 1000;
  const cpu = (run: TimedRun) => run.userS + run.sysS;
  try {
    console.log('svc-harness load-engine-cost benchmark');
    console.log(`  node ${process.version}; loopback; server: bench/load-test-server.ts (own process, not counted)`);
    console.log('');
    const rows: Measured[] = [];

    // The node engine through the driver (the CLI takes scenarios only from scenarios/), on each transport.
    const node = async (engine: 'node' | 'node-undici', regime: Measured['regime'], rate = 0): Promise<Measured> => {
      const flags =
        regime === 'fixed rate'
          ? ['--model', 'open', '--rate', String(rate)]
          : ['--model', 'closed', '--connections', values.connections];
      const args = [driverFile, '--url', url, '--engine', engine, ...flags];
      const emptyArgs = [...args, '--seconds', '0.1'];
      const empty = await runTimed(process.execPath, emptyArgs, limit, dir.path);
      const run = await runTimed(process.execPath, [...args, '--seconds', String(seconds)], limit, dir.path);
      const result = lastJsonLine<DriverResult>(run.stdout, 'node engine');
      const emptyResult = lastJsonLine<DriverResult>(empty.stdout, 'node engine (empty)');
      return {
        generator: engine === 'node' ? 'node engine (net)' : 'node engine (undici)',
        regime,
        ...(regime === 'fixed rate' && { rate }),
        command: shellLine(['node', 'bench/load-engine-driver.ts', ...args.slice(1), '--seconds', String(seconds)]),
        completed: result.completed,
        failed: result.failed + result.dropped,
        loadS: result.loadS,
        cpuS: cpu(run),
        waits: run.waits,
        problems: [...result.problems, ...(result.dropped > 0 ? [`${result.dropped} dropped`] : [])],
        baseline: {
          cpuS: cpu(empty),
          waits: empty.waits,
          completed: emptyResult.completed,
          command: shellLine(['node', 'bench/load-engine-driver.ts', ...emptyArgs.slice(1)]),
        },
      };
    };

    const autocannon = async (regime: Measured['regime'], rate = 0): Promise<Measured> => {
      const flags =
        regime === 'fixed rate'
          ? ['-R', String(rate), '-c', values['ac-rate-connections']]
          : ['-c', values.connections];
      const args = [...flags, '-d', String(seconds), '-H', 'authorization=Bearer t', '--json', `${url}/ping`];
      const emptyArgs = ['-a', '10', '-c', '1', '-H', 'authorization=Bearer t', '--json', `${url}/ping`];
      const empty = await runTimed(autocannonBin, emptyArgs, limit, dir.path);
      const run = await runTimed(autocannonBin, args, limit, dir.path);
      const result = lastJsonLine<AutocannonJson>(run.stdout, 'autocannon');
      const emptyResult = lastJsonLine<AutocannonJson>(empty.stdout, 'autocannon (empty)');
      return {
        generator: 'autocannon',
        regime,
        ...(regime === 'fixed rate' && { rate }),
        command: shellLine(['autocannon', ...args]),
        completed: result['2xx'],
        failed: result.non2xx + result.errors + result.timeouts,
        loadS: result.duration,
        cpuS: cpu(run),
        waits: run.waits,
        problems: [],
        baseline: {
          cpuS: cpu(empty),
          waits: empty.waits,
          completed: emptyResult['2xx'],
          command: shellLine(['autocannon', ...emptyArgs]),
        },
      };
    };

    const wrk = async (): Promise<Measured | undefined> => {
      if (!(await hasCommand('wrk'))) {
        console.log('  (wrk is not installed: its row is left out; `apt-get install wrk` adds it)');
        return undefined;
      }
      const args = ['-t1', `-c${values.connections}`, `-d${seconds}s`, '-H', 'authorization: Bearer t', `${url}/ping`];
      const run = await runTimed('wrk', args, limit, dir.path);
      const completed = Number(/(\d+) requests in/.exec(run.stdout)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? 0);
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(run.stdout);
      const errors = socket ? socket.slice(1).reduce((sum, item) => sum + Number(item), 0) : 0;
      if (!Number.isFinite(completed))
        throw new Error(`wrk: no request count in its output: ${run.stdout.slice(-300)}`);
      return {
        generator: 'wrk',
        regime: 'maximum',
        command: shellLine(['wrk', ...args]),
        completed: completed - non2xx,
        failed: non2xx + errors,
        loadS: Number(/requests in ([\d.]+)s/.exec(run.stdout)?.[1] ?? seconds),
        cpuS: cpu(run),
        waits: run.waits,
        problems: [],
      };
    };

    // One at a time: never two generators on the two cores at once.
    const undici = !values['no-undici'];
    for (const rate of rates) {
      rows.push(await node('node', 'fixed rate', rate));
      if (undici) rows.push(await node('node-undici', 'fixed rate', rate));
      rows.push(await autocannon('fixed rate', rate));
    }
    rows.push(await node('node', 'maximum'));
    if (undici) rows.push(await node('node-undici', 'maximum'));
    rows.push(await autocannon('maximum'));
    const wrkRow = await wrk();
    if (wrkRow) rows.push(wrkRow);

    // Wake-ups per request beyond start-up: what a fixed rate's cost follows (each costs a task switch and a loop turn).
    const marginalWaits = (row: Measured) =>
      row.baseline
        ? (row.waits - row.baseline.waits) / (row.completed - row.baseline.completed)
        : row.waits / row.completed;
    const marginal = (row: Measured) =>
      row.baseline
        ? ((row.cpuS - row.baseline.cpuS) / (row.completed - row.baseline.completed)) * 1e6
        : (row.cpuS / row.completed) * 1e6;
    console.log(
      renderTable(
        [
          'generator',
          'regime',
          'completed',
          'failed',
          'req/s',
          'CPU s',
          'CPU ms / 1k req (whole)',
          'CPU ms / 1k req (marginal)',
          'wake-ups / req (marginal)',
        ],
        rows.map((row) => [
          row.generator,
          row.regime === 'fixed rate' ? `${whole(row.rate ?? 0)}/s` : 'maximum',
          whole(row.completed),
          whole(row.failed),
          whole(row.completed / row.loadS),
          fixed(row.cpuS, 2),
          fixed((row.cpuS / row.completed) * 1e6),
          fixed(marginal(row)),
          fixed(marginalWaits(row), 3),
        ]),
      ),
    );
    for (const row of rows) {
      for (const problem of row.problems) console.log(`  ! ${row.generator}, ${row.regime}: ${problem}`);
    }
    console.log('');
    const ratio = (generator: string, regime: Measured['regime'], rate?: number) => {
      const same = (row: Measured) => row.regime === regime && row.rate === rate;
      const engine = rows.find((row) => row.generator === generator && same(row));
      const peer = rows.find((row) => row.generator === 'autocannon' && same(row));
      return engine && peer ? marginal(engine) / marginal(peer) : Number.NaN;
    };
    for (const generator of ['node engine (net)', ...(undici ? ['node engine (undici)'] : [])]) {
      const fixedRates = rates
        .map((rate) => `${whole(rate)}/s ${fixed(ratio(generator, 'fixed rate', rate), 2)}`)
        .join(', ');
      console.log(
        `${generator} / autocannon, marginal CPU per request: fixed rate ${fixedRates}; ` +
          `maximum ${fixed(ratio(generator, 'maximum'), 2)}   (aim <= 0.7, floor <= 1.0)`,
      );
    }
    console.log(
      'wrk has no fixed-rate mode (wrk2 has -R): it appears at maximum only. The undici closed model runs autocannon underneath, plus its own checks and histograms; the net one is the engine’s own loop.',
    );
    console.log('');
    console.log('commands (each under /usr/bin/time -f "%e %U %S"; the empty-load baselines after them):');
    for (const row of rows) console.log(`  ${row.command}`);
    for (const row of rows) if (row.baseline) console.log(`  ${row.baseline.command}`);
  } finally {
    await server.stop();
    dir.remove();
  }
}

interface AutocannonJson {
  readonly '2xx': number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly duration: number;
}

await runBench(main);
