/** Runs `redis-benchmark` for SET and GET at one pipeline depth and reads its CSV output. */
import { spawnSync } from 'node:child_process';

export interface RedisBenchmarkFigures {
  /** The command line, with any password replaced by ***. */
  readonly commandLine: string;
  /** Commands per second by test name (SET, GET). */
  readonly opsPerSecond: ReadonlyMap<string, number>;
}

export function redisBenchmarkVersion(): string | undefined {
  const result = spawnSync('redis-benchmark', ['--version'], { encoding: 'utf8', timeout: 5_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** `requests` is chosen per depth so each run takes about a second or two on loopback. */
export function runRedisBenchmark(
  redisUrl: string,
  options: { pipeline: number; clients: number; requests: number; valueBytes: number },
): RedisBenchmarkFigures {
  const url = new URL(redisUrl);
  const args = ['-h', url.hostname, '-p', url.port || '6379'];
  const password = decodeURIComponent(url.password);
  if (url.username !== '') args.push('--user', decodeURIComponent(url.username));
  const secretArgs = password === '' ? [] : ['-a', password];
  args.push('-c', String(options.clients), '-n', String(options.requests), '-P', String(options.pipeline));
  args.push('-d', String(options.valueBytes), '-t', 'set,get', '--csv');
  const shown = ['redis-benchmark', ...args.slice(0, 4), ...(password === '' ? [] : ['-a', '***']), ...args.slice(4)];

  const result = spawnSync('redis-benchmark', [...args.slice(0, 4), ...secretArgs, ...args.slice(4)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.status !== 0) {
    const why = result.error?.message ?? result.stderr.trim().split('\n').at(-1) ?? `exit ${result.status}`;
    throw new Error(`redis-benchmark failed: ${why}`);
  }
  const opsPerSecond = new Map<string, number>();
  // "test","rps","avg_latency_ms",...  then one row per test: "SET","81300.81",...
  for (const line of result.stdout.split('\n')) {
    const cells = line.split(',').map((cell) => cell.replaceAll('"', ''));
    const rps = Number(cells[1]);
    if (cells[0] && Number.isFinite(rps) && cells[0] !== 'test') opsPerSecond.set(cells[0], rps);
  }
  return { commandLine: shown.map(shellQuote).join(' '), opsPerSecond };
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
