/**
 * One load generator in a process of its own, for the cost and memory benchmarks: the node engine
 * (`runLoad` with bench/load-scenarios/ping.ts, which the CLI cannot load: it takes scenarios only
 * from scenarios/) or autocannon through its programmatic API (what its CLI calls). Prints one JSON
 * line at the end: counts, latency, this process's CPU time over the load (process.cpuUsage(),
 * every thread) and RSS samples.
 *
 *   node bench/load-engine-driver.ts --url http://127.0.0.1:PORT [--engine node|node-undici|autocannon]
 *     [--model open|closed] [--rate R] [--seconds S] [--connections C] [--workers W]
 *     [--requests N (stop after N answers)] [--marks 1000000,10000000 (RSS at these answer counts)]
 *   (run with `node --expose-gc` for the live heap after a full GC at each mark)
 *
 * `--requests` and `--marks` count answers on the main thread: use them with the closed model or
 * with `--workers 1`.
 */
import { performance } from 'node:perf_hooks';
import type autocannon from 'autocannon';
import { parseLoadSettings } from '../src/engines/load/load-settings.ts';
import { runLoad } from '../src/engines/load/run-load.ts';
import { scenariosDir, tempDir, writeTarget } from './load-bench-util.ts';
import { pingCounter } from './load-scenarios/ping.ts';
import { benchArgs, runBench } from './run-bench.ts';

/** RSS when the answer count passed a mark; with --expose-gc also the heap and RSS right after a full GC. */
export interface Mark {
  readonly requests: number;
  readonly rssBytes: number;
  readonly atS: number;
  readonly heapAfterGcBytes?: number;
  readonly rssAfterGcBytes?: number;
}

export interface DriverResult {
  readonly engine: 'node' | 'node-undici' | 'autocannon';
  readonly sent: number;
  readonly completed: number;
  readonly failed: number;
  readonly dropped: number;
  /** Seconds of load: from the first answer to the last (node engine on one thread), or autocannon's own. */
  readonly loadS: number;
  /** CPU of this process over the load call only (not Node's start nor module loading). */
  readonly cpuUserMs: number;
  readonly cpuSysMs: number;
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly p999: number };
  readonly rssStartBytes: number;
  readonly rssMaxBytes: number;
  readonly rssEndBytes: number;
  readonly marks: readonly Mark[];
  readonly samples: readonly {
    readonly atS: number;
    readonly answered: number;
    readonly rssBytes: number;
    readonly heapUsedBytes: number;
  }[];
  readonly problems: readonly string[];
}

const { values } = benchArgs(import.meta.filename, {
  options: {
    engine: { type: 'string', default: 'node' },
    url: { type: 'string' },
    model: { type: 'string', default: 'open' },
    rate: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string' },
    workers: { type: 'string' },
    requests: { type: 'string' },
    marks: { type: 'string', default: '' },
    'sample-ms': { type: 'string', default: '2000' },
  },
});

async function main(): Promise<void> {
  if (values.url === undefined) throw new Error('--url is required');
  const marks = values.marks
    .split(',')
    .filter((item) => item !== '')
    .map(Number);
  const requests = values.requests === undefined ? undefined : Number(values.requests);
  const rssStart = process.memoryUsage.rss();
  const nodeEngine = values.engine === 'node' || values.engine === 'node-undici';
  const answered = nodeEngine ? () => pingCounter.answered : ((() => autocannonAnswered) as () => number);
  const samples: DriverResult['samples'][number][] = [];
  const marked: Mark[] = [];
  const gc = (globalThis as { gc?: () => void }).gc;
  let rssMax = rssStart;
  const controller = new AbortController();
  const started = performance.now();
  const atS = () => Math.round(performance.now() - started) / 1000;
  // Marks and the stop are checked four times a second; RSS samples are kept every --sample-ms.
  let lastSample = 0;
  const watch = setInterval(() => {
    const rss = process.memoryUsage.rss();
    rssMax = Math.max(rssMax, rss);
    const count = answered();
    for (const mark of marks) {
      if (count >= mark && !marked.some((item) => item.requests === mark)) {
        // Live memory: what a full collection leaves (node --expose-gc); it pauses the load briefly.
        gc?.();
        const after = gc
          ? { heapAfterGcBytes: process.memoryUsage().heapUsed, rssAfterGcBytes: process.memoryUsage.rss() }
          : {};
        marked.push({ requests: mark, rssBytes: rss, atS: atS(), ...after });
      }
    }
    if (performance.now() - lastSample >= Number(values['sample-ms'])) {
      lastSample = performance.now();
      samples.push({ atS: atS(), answered: count, rssBytes: rss, heapUsedBytes: process.memoryUsage().heapUsed });
    }
    if (requests !== undefined && count >= requests && !controller.signal.aborted) controller.abort('requests reached');
  }, 250);

  const cpu = process.cpuUsage();
  const figures = nodeEngine
    ? await runNode(values.url, controller.signal)
    : await runAutocannon(values.url, requests, controller.signal);
  const used = process.cpuUsage(cpu);
  clearInterval(watch);
  const rssEnd = process.memoryUsage.rss();
  const result: DriverResult = {
    ...figures,
    cpuUserMs: used.user / 1000,
    cpuSysMs: used.system / 1000,
    rssStartBytes: rssStart,
    rssMaxBytes: Math.max(rssMax, rssEnd),
    rssEndBytes: rssEnd,
    marks: marked,
    samples,
  };
  console.log(JSON.stringify(result));
}

type Figures = Omit<
  DriverResult,
  'cpuUserMs' | 'cpuSysMs' | 'rssStartBytes' | 'rssMaxBytes' | 'rssEndBytes' | 'marks' | 'samples'
>;

async function runNode(url: string, signal: AbortSignal): Promise<Figures> {
  const dir = tempDir();
  try {
    const settings = parseLoadSettings({
      engine: values.engine,
      model: values.model,
      ...(values.model === 'open' && { rate: values.rate ?? '1000' }),
      duration: values.seconds,
      ...(values.connections !== undefined && { connections: values.connections }),
      ...(values.workers !== undefined && { workers: values.workers }),
      timeout: '10s',
    });
    const run = await runLoad({
      scenarios: ['ping'],
      scenariosDir,
      target: writeTarget(dir.path, url),
      settings,
      reportDir: dir.path,
      reporters: [],
      signal,
    });
    const scenario = run.scenarios[0];
    if (!scenario) throw new Error(`the node engine ran nothing: ${run.aborted ?? run.problems.join('; ')}`);
    const problems = [
      ...(scenario.problem && scenario.problem !== 'interrupted' ? [scenario.problem] : []),
      ...scenario.errors.map((error) => `${error.count} ${error.kind}: ${error.example}`),
    ];
    return {
      engine: values.engine === 'node-undici' ? 'node-undici' : 'node',
      ...scenario.requests,
      // From the first answer to the last, when they were checked here (one thread); else the set duration.
      loadS:
        pingCounter.answered > 1 &&
        pingCounter.answered >= 0.9 * (scenario.requests.completed + scenario.requests.failed)
          ? (pingCounter.lastAt - pingCounter.firstAt) / 1000
          : scenario.settings.durationS,
      latencyMs: scenario.latencyMs,
      problems,
    };
  } finally {
    dir.remove();
  }
}

let autocannonAnswered = 0;

async function runAutocannon(url: string, requests: number | undefined, signal: AbortSignal): Promise<Figures> {
  const connections = Number(values.connections ?? 10);
  let finish: (result: autocannon.Result) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // Loaded here only: the node engine's runs never load it, as the CLI's do not (its heap, collected
  // during the load, was counted in the node engine's CPU).
  const { default: run } = await import('autocannon');
  const instance = run(
    {
      url: `${url}/ping`,
      connections,
      duration: Number(values.seconds),
      ...(values.model === 'open' && values.rate !== undefined && { overallRate: Number(values.rate) }),
      ...(requests !== undefined && { amount: requests }),
      headers: { authorization: 'Bearer t' },
      timeout: 10,
    },
    (error: unknown, result: autocannon.Result) => (error ? fail(error) : finish(result)),
  );
  instance.on('response', () => {
    autocannonAnswered++;
  });
  signal.addEventListener('abort', () => instance.stop(), { once: true });
  const result = await done;
  const failed = result.non2xx + result.errors + result.timeouts;
  return {
    engine: 'autocannon',
    sent: result['2xx'] + failed,
    completed: result['2xx'],
    failed,
    dropped: 0,
    loadS: result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      p999: result.latency.p99_9,
    },
    problems: failed > 0 ? [`${failed} failed (non-2xx ${result.non2xx}, errors ${result.errors})`] : [],
  };
}

await runBench(main);
