/**
 * Benchmark (issue 25): resident memory of a load run with the embedded reference in the harness's own
 * process (A, "together") against the reference served by its own process (B, "apart": `serve
 * --write-target`, then `load --target`). Every 200 ms it reads VmRSS from /proc for each process tree
 * (the command's node and its descendants, e.g. the embedded redis-server), and reports node and
 * redis-server separately: peak and steady (median of the last half of the samples). It also reads
 * report.json (load.scenarios[0]: requests sent/completed/failed/dropped, p50/p99) of each run.
 *
 *   node bench/embedded-memory.ts [--rate 5000] [--duration 60s] [--setups A,B] [--repeat 2]
 *     [--out /tmp/emb] [--breakdown]
 *
 * Setup C: the reference in a worker thread of the harness's process (see childC below).
 *
 * --breakdown preloads this same file (`node --import bench/embedded-memory.ts`, EMB_MEM_LOG set) into
 * the harness (and serve) processes: in that mode it only appends process.memoryUsage() of every
 * thread (main and worker threads) once a second to EMB_MEM_LOG, as JSON lines.
 */
import { execSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs } from './run-bench.ts';

const preloadLog = process.env.EMB_MEM_LOG;
if (preloadLog !== undefined && process.argv[1]?.endsWith('embedded-memory.ts') !== true) {
  // Preload mode: note this thread's memory once a second.
  const { isMainThread, threadId } = await import('node:worker_threads');
  const v8 = await import('node:v8');
  const t0 = Date.now();
  const note = (): void => {
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(
      v8
        .getHeapSpaceStatistics()
        .map((s) => [s.space_name, [Math.round(s.space_used_size / 1048576), Math.round(s.space_size / 1048576)]]),
    );
    appendFileSync(
      preloadLog,
      `${JSON.stringify({
        pid: process.pid,
        thread: isMainThread ? 'main' : threadId,
        t: (Date.now() - t0) / 1000,
        rss: m.rss,
        heapTotal: m.heapTotal,
        heapUsed: m.heapUsed,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
        spaces,
      })}\n`,
    );
  };
  setInterval(note, 1000).unref();
}

type Sample = { t: number; node: number; redis: number; other: number; nodePids: number };

function pidsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {}
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function sampleTree(root: number, t: number): Sample | null {
  const s: Sample = { t, node: 0, redis: 0, other: 0, nodePids: 0 };
  let any = false;
  for (const pid of pidsOf(root)) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
      const name = /Name:\s+(\S+)/.exec(status)?.[1] ?? '';
      const exe = (() => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
        } catch {
          return '';
        }
      })();
      any = true;
      if (name.startsWith('redis') || exe.includes('redis-server')) s.redis += rss;
      else if (exe.endsWith('node') || name === 'node' || name === 'MainThread') {
        s.node += rss;
        s.nodePids++;
      } else s.other += rss;
    } catch {}
  }
  return any ? s : null;
}

const median = (xs: number[]): number => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const mb = (b: number): string => (b / 1048576).toFixed(0);

interface Summary {
  peakNode: number;
  steadyNode: number;
  peakRedis: number;
  steadyRedis: number;
  peakTotal: number;
  steadyTotal: number;
  n: number;
}
function summarize(samples: Sample[]): Summary {
  const last = samples.slice(Math.floor(samples.length / 2));
  return {
    peakNode: Math.max(...samples.map((s) => s.node)),
    steadyNode: median(last.map((s) => s.node)),
    peakRedis: Math.max(...samples.map((s) => s.redis)),
    steadyRedis: median(last.map((s) => s.redis)),
    peakTotal: Math.max(...samples.map((s) => s.node + s.redis + s.other)),
    steadyTotal: median(last.map((s) => s.node + s.redis + s.other)),
    n: samples.length,
  };
}

async function main(): Promise<void> {
  const { values } = benchArgs(import.meta.filename, {
    options: {
      rate: { type: 'string', default: '5000' },
      duration: { type: 'string', default: '60s' },
      setups: { type: 'string', default: 'A,B' },
      repeat: { type: 'string', default: '2' },
      out: { type: 'string', default: '/tmp/emb' },
      breakdown: { type: 'boolean', default: false },
    },
  });
  const repo = new URL('..', import.meta.url).pathname;
  const bin = join(repo, 'bin/svc-harness.js');
  const self = new URL(import.meta.url).pathname;
  const out = values.out!;
  mkdirSync(out, { recursive: true });
  const nodeArgs = (log: string | undefined): { args: string[]; env: NodeJS.ProcessEnv } =>
    log === undefined
      ? { args: [], env: { ...process.env } }
      : { args: ['--import', self], env: { ...process.env, EMB_MEM_LOG: log } };

  const rows: string[] = [];
  for (let i = 1; i <= Number(values.repeat); i++) {
    for (const setup of values.setups!.split(',')) {
      const tag = `${setup}-r${values.rate}-${i}${values.breakdown ? '-bd' : ''}`;
      const reportDir = join(out, tag);
      rmSync(reportDir, { recursive: true, force: true });
      const load = execSync('uptime')
        .toString()
        .trim()
        .replace(/.*load average: /, '');
      let serve: ReturnType<typeof spawn> | undefined;
      const serveSamples: Sample[] = [];
      let serveIdle: Sample | null = null;
      let stopServeSampling = false;
      let serveSampler: Promise<void> = Promise.resolve();
      const loadArgs = [
        'load',
        'command',
        '--rate',
        values.rate!,
        '--duration',
        values.duration!,
        '--report-dir',
        reportDir,
      ];
      if (setup === 'B') {
        const targetFile = join(out, `t-${tag}.json`);
        rmSync(targetFile, { force: true });
        const n = nodeArgs(values.breakdown ? join(out, `${tag}-serve.mem.jsonl`) : undefined);
        serve = spawn(process.execPath, [...n.args, bin, 'serve', '--write-target', targetFile], {
          env: n.env,
          stdio: ['ignore', 'ignore', 'ignore'],
        });
        const t0 = Date.now();
        while (!existsSync(targetFile)) {
          if (Date.now() - t0 > 30_000) throw new Error('serve wrote no target file within 30 s');
          await new Promise((r) => setTimeout(r, 100));
        }
        await new Promise((r) => setTimeout(r, 1000));
        serveIdle = sampleTree(serve.pid!, 0);
        loadArgs.push('--target', targetFile);
        const pid = serve.pid!;
        serveSampler = (async () => {
          const s0 = Date.now();
          while (!stopServeSampling) {
            const s = sampleTree(pid, (Date.now() - s0) / 1000);
            if (s) serveSamples.push(s);
            await new Promise((r) => setTimeout(r, 200));
          }
        })();
      }
      const n = nodeArgs(values.breakdown ? join(out, `${tag}-load.mem.jsonl`) : undefined);
      const started = Date.now();
      const argv =
        setup === 'C'
          ? [...n.args, self, '--child-c', join(out, `t-${tag}.json`), ...loadArgs]
          : [...n.args, bin, ...loadArgs];
      const child = spawn(process.execPath, argv, {
        env: n.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout!.on('data', (d) => (text += d));
      child.stderr!.on('data', (d) => (text += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      let done = false;
      void exited.then(() => (done = true));
      const samples: Sample[] = [];
      while (!done) {
        const s = sampleTree(child.pid!, (Date.now() - started) / 1000);
        if (s) samples.push(s);
        await new Promise((r) => setTimeout(r, 200));
      }
      const code = await exited;
      stopServeSampling = true;
      await serveSampler;
      if (serve) {
        serve.kill('SIGINT');
        await new Promise((r) => {
          const timer = setTimeout(() => {
            serve!.kill('SIGKILL');
            r(null);
          }, 10_000);
          serve!.on('exit', () => {
            clearTimeout(timer);
            r(null);
          });
        });
      }
      const wall = (Date.now() - started) / 1000;
      const h = summarize(samples);
      let rep = { sent: 0, completed: 0, failed: 0, dropped: 0, rps: 0, p50: 0, p99: 0, max: 0 };
      try {
        const r = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
        const sc = r.load.scenarios[0];
        rep = {
          ...sc.requests,
          rps: sc.throughput.requestsPerSecond,
          p50: sc.latencyMs.p50,
          p99: sc.latencyMs.p99,
          max: sc.latencyMs.max,
        };
      } catch (error) {
        console.error(`${tag}: no report (${String(error)}); exit ${code}\n${text.slice(-2000)}`);
      }
      const record: Record<string, unknown> = {
        tag,
        setup,
        rate: values.rate,
        load,
        exit: code,
        wall,
        harness: h,
        report: rep,
        samples,
      };
      let line =
        `${tag.padEnd(14)} load ${load.padEnd(16)} exit ${code} wall ${wall.toFixed(1)}s | harness node peak ${mb(h.peakNode)} steady ${mb(h.steadyNode)}` +
        ` redis peak ${mb(h.peakRedis)} steady ${mb(h.steadyRedis)} tree peak ${mb(h.peakTotal)} steady ${mb(h.steadyTotal)}`;
      if (setup === 'B') {
        const sv = summarize(serveSamples);
        record.serve = sv;
        record.serveIdle = serveIdle;
        record.serveSamples = serveSamples;
        // The sum of the two trees at the same instants (samples are taken at about the same times).
        const k = Math.min(samples.length, serveSamples.length);
        const sums: Sample[] = [];
        for (let j = 0; j < k; j++)
          sums.push({
            t: samples[j]!.t,
            node: samples[j]!.node + serveSamples[j]!.node,
            redis: samples[j]!.redis + serveSamples[j]!.redis,
            other: samples[j]!.other + serveSamples[j]!.other,
            nodePids: 2,
          });
        const both = summarize(sums);
        record.both = both;
        line +=
          ` | serve idle node ${mb(serveIdle?.node ?? 0)} redis ${mb(serveIdle?.redis ?? 0)}; serve node peak ${mb(sv.peakNode)} steady ${mb(sv.steadyNode)}` +
          ` redis peak ${mb(sv.peakRedis)} steady ${mb(sv.steadyRedis)} | sum node peak ${mb(both.peakNode)} steady ${mb(both.steadyNode)} all peak ${mb(both.peakTotal)} steady ${mb(both.steadyTotal)}`;
      }
      line += ` | sent ${rep.sent} done ${rep.completed} failed ${rep.failed} dropped ${rep.dropped} rps ${rep.rps} p50 ${rep.p50} p99 ${rep.p99} max ${rep.max}`;
      console.log(line);
      rows.push(line);
      appendFileSync(join(out, 'results.jsonl'), `${JSON.stringify(record)}\n`);
    }
  }
}

/**
 * Setup C ("worker thread"): this process starts a redis-server and the reference in a worker thread
 * (bench/reference-thread.ts, as kv-throughput.ts does), writes a kv-only target file, then runs the
 * CLI's `load` in this same process against it: one process, two event loops.
 */
async function childC(targetFile: string, cliArgs: string[]): Promise<number> {
  const { findRedisServer, startRedisServer } = await import('../src/reference/redis/redis-server-process.ts');
  const { startReferenceThread } = await import('./reference-thread.ts');
  const { runCli } = await import('../src/cli/main.ts');
  const { writeFileSync } = await import('node:fs');
  const binary = findRedisServer(process.env);
  if (binary === undefined) throw new Error('no redis-server on PATH');
  const redis = await startRedisServer(binary);
  try {
    const reference = await startReferenceThread(redis.url);
    try {
      writeFileSync(
        targetFile,
        JSON.stringify({ name: 'reference-thread', kv: { url: reference.kvUrl, token: reference.token } }),
      );
      return await runCli([...cliArgs, '--target', targetFile]);
    } finally {
      await reference.stop();
    }
  } finally {
    await redis.stop();
  }
}

if (process.argv[2] === '--child-c') {
  const code = await childC(process.argv[3]!, process.argv.slice(4));
  process.exit(code);
} else if (preloadLog === undefined || process.argv[1]?.endsWith('embedded-memory.ts') === true) await main();
