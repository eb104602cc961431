/**
 * Benchmark: memory against huge answers (issue 36). A loopback server answers every GET with 50 MB of
 * JSON (with its Content-Length, or chunked with `--chunked`; `/pipeline` and `/ping` ordinarily, so
 * setup, finish and the run's probe work). `svc-harness load command --engine E --rate 50 --duration
 * 12s` runs on each engine in turn, node first, with the memory guard raised (SVC_K6_MAX_RSS_MB=10000)
 * so that k6 is measured rather than stopped; /proc is read every 100 ms for the harness's process and
 * every k6 process under it. Per engine: peak RSS of the harness and of k6, the exit code, and what the
 * checks saw (requests, error classes, the k6 fallback's counters), which must agree between engines.
 *
 *   node bench/k6-huge-answers.ts [--mb 50] [--rate 50] [--seconds 12] [--chunked] [--k6 PATH]
 *
 * `--k6 PATH` runs that k6 (K6_BINARY): the stock one in ~/.cache/svc-harness/k6/v2.2.0/k6 measures
 * k6/http's own reads (the fallback), the default the one the harness finds (with its extension).
 * Loopback only; about 2 × (seconds + 10) s; hard stop at 5 min.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  hardStop,
  mb,
  positive,
  renderTable,
  rssOf,
  shellLine,
  tempDir,
  whole,
  writeTarget,
} from './load-bench-util.ts';
import { benchArgs, runBench } from './run-bench.ts';

const { values } = benchArgs(import.meta.filename, {
  options: {
    mb: { type: 'string', default: '50' },
    rate: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '12' },
    chunked: { type: 'boolean', default: false },
    k6: { type: 'string' },
  },
});
const answerBytes = positive(values.mb, 'mb') * 1024 * 1024;
const rate = positive(values.rate, 'rate');
const seconds = positive(values.seconds, 'seconds');
const cli = join(import.meta.dirname, '..', 'bin', 'svc-harness.js');

/** The huge answer's server, in this process (its memory is not measured). */
async function startHugeServer(): Promise<{ url: string; server: Server }> {
  const huge = Buffer.from(JSON.stringify({ result: 'x'.repeat(answerBytes) }));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url?.startsWith('/pipeline')) {
        const commands = (JSON.parse(Buffer.concat(chunks).toString('utf8') || '[]') as unknown[]).length;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(Array.from({ length: commands }, () => ({ result: 'OK' }))));
        return;
      }
      if (req.url?.toLowerCase().startsWith('/ping')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":"PONG"}');
        return;
      }
      if (values.chunked) {
        res.writeHead(200, { 'content-type': 'application/json' });
        // In 1 MB writes: no Content-Length, so Node sends it chunked.
        for (let at = 0; at < huge.length; at += 1024 * 1024) res.write(huge.subarray(at, at + 1024 * 1024));
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(huge.length) }).end(huge);
      }
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('connection', (socket) => socket.on('error', () => {}));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Every descendant of `pid` named `name` (from /proc's parent links). */
function descendantsNamed(pid: number, name: string): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const under = (child: number): boolean => {
    for (let at = parents.get(child); at !== undefined && at > 1; at = parents.get(at)) if (at === pid) return true;
    return false;
  };
  return [...names].filter(([child, comm]) => comm === name && under(child)).map(([child]) => child);
}

interface Scenario {
  readonly requests: { sent: number; completed: number; failed: number };
  readonly errors: readonly { kind: string; count: number; example: string }[];
  readonly checks: readonly { name: string; passes: number; fails: number }[];
  readonly counters: Readonly<Record<string, number>>;
  readonly problem: string | null;
}

interface Measured {
  readonly engine: string;
  readonly code: number | null;
  readonly harnessPeak: number;
  readonly k6Peak: number;
  readonly scenario: Scenario | undefined;
}

async function measure(engine: 'node' | 'k6', target: string, dir: string): Promise<Measured> {
  const reportDir = join(dir, engine);
  const args = [
    cli,
    'load',
    'command',
    '--engine',
    engine,
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
  const env = { ...process.env, SVC_K6_MAX_RSS_MB: '10000', ...(values.k6 && { K6_BINARY: values.k6 }) };
  console.log(
    `$ SVC_K6_MAX_RSS_MB=10000${values.k6 ? ` K6_BINARY=${values.k6}` : ''} node ${shellLine(args.slice(1))}`,
  );
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let harnessPeak = 0;
  let k6Peak = 0;
  const timer = setInterval(() => {
    const pid = child.pid ?? 0;
    harnessPeak = Math.max(harnessPeak, rssOf(pid) ?? 0);
    for (const k6 of descendantsNamed(pid, 'k6')) k6Peak = Math.max(k6Peak, rssOf(k6) ?? 0);
  }, 100);
  const kill = setTimeout(() => child.kill('SIGKILL'), (seconds + 120) * 1000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearInterval(timer);
  clearTimeout(kill);
  let scenario: Scenario | undefined;
  try {
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as {
      load: { scenarios: Scenario[] };
    };
    scenario = report.load.scenarios[0];
  } catch {
    console.log(`  no report.json; stderr: ${stderr.trim().slice(-300)}`);
  }
  return { engine, code, harnessPeak, k6Peak, scenario };
}

await runBench(async () => {
  hardStop(5 * 60_000, 'k6-huge-answers');
  const { url, server } = await startHugeServer();
  const dir = tempDir();
  const runs: Measured[] = [];
  try {
    const target = writeTarget(dir.path, url, 'huge');
    console.log(
      `answers of ${mb(answerBytes)} ${values.chunked ? 'chunked' : 'with their Content-Length'}, ${rate}/s for ${seconds} s; node ${process.version}`,
    );
    for (const engine of ['node', 'k6'] as const) runs.push(await measure(engine, target, dir.path));
  } finally {
    server.closeAllConnections();
    server.close();
    dir.remove();
  }
  console.log('');
  console.log(
    renderTable(
      ['engine', 'exit', 'harness peak', 'k6 peak', 'sent', 'completed', 'failed', 'errors', 'checks', 'counters'],
      runs.map((run) => [
        run.engine,
        String(run.code),
        mb(run.harnessPeak),
        run.engine === 'k6' ? mb(run.k6Peak) : '',
        whole(run.scenario?.requests.sent ?? Number.NaN),
        whole(run.scenario?.requests.completed ?? Number.NaN),
        whole(run.scenario?.requests.failed ?? Number.NaN),
        (run.scenario?.errors ?? []).map((error) => `${error.kind} ${error.count}`).join(', '),
        (run.scenario?.checks ?? []).map((check) => `${check.name} ${check.passes}/${check.fails}`).join(', '),
        Object.entries(run.scenario?.counters ?? {})
          .filter(([name]) => name.startsWith('answers_'))
          .map(([name, count]) => `${name} ${count}`)
          .join(', '),
      ]),
    ),
  );
  for (const run of runs) {
    if (run.scenario?.problem) console.log(`${run.engine}: problem: ${run.scenario.problem}`);
    const example = run.scenario?.errors[0]?.example;
    if (example) console.log(`${run.engine}: first error: ${example}`);
  }
  const [node, k6] = runs;
  if (node && k6 && node.harnessPeak > 0) {
    console.log(`k6 peak / node engine's harness peak: ${(k6.k6Peak / node.harnessPeak).toFixed(2)}`);
  }
});
