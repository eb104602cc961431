/** `svc-harness serve` end to end: the real bin, a target file, a call, SIGTERM, and its Redis gone. */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest } from '../../src/http/http-client.ts';
import { allFaults } from '../../src/reference/reference-areas.ts';
import { loadTargetFile } from '../../src/target/read-target.ts';
import { portAnswers } from '../support/loopback.ts';
import { startCli } from '../support/run-cli.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-serve-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runBin(args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const started = startCli(args, { env });
  const finished = started.finished.then((run) => ({ code: run.exitCode, stdout: run.stdout, stderr: run.stderr }));
  return { child: started.child, finished, output: started.stdout };
}

async function waitFor(test: () => boolean, ms: number): Promise<void> {
  const started = Date.now();
  while (!test()) {
    if (Date.now() - started > ms) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function kill(child: ChildProcess): void {
  if (child.exitCode === null) child.kill('SIGKILL');
}

const envWithoutRedisUrl = { ...process.env, REDIS_URL: '' };

describe('svc-harness serve', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'serves areas A, B and C, writes a target file, and stops with the redis-server it started on %s',
    async (signal) => {
      const file = join(dir, `target-${signal}.json`);
      const run = runBin(['serve', '--write-target', file, '--fault', 'accept-delete'], envWithoutRedisUrl);
      try {
        await waitFor(() => run.output().includes('Stop with Ctrl-C'), 30_000);
        const target = await loadTargetFile(file);
        expect(target).toMatchObject({ name: 'reference', dialect: 'svc' });
        const res = await httpRequest({
          url: `${target.kv!.url}/echo/hello`,
          headers: { authorization: `Bearer ${target.kv!.token}` },
        });
        expect(JSON.parse(res.body.toString())).toEqual({ result: 'hello' });
        // Areas A and C answer too, with the credentials of the target file.
        const keys = await httpRequest({
          url: `${target.messaging!.url}/v2/keys`,
          headers: { authorization: `Bearer ${target.messaging!.token}` },
        });
        expect(keys.status).toBe(200);
        const basic = Buffer.from(`${target.management!.username}:${target.management!.password}`).toString('base64');
        const account = await httpRequest({
          url: `${target.management!.url}/v2/svc/user`,
          headers: { authorization: `Basic ${basic}` },
        });
        expect(account.status).toBe(200);
        const out = run.output();
        expect(out).toContain(target.kv!.url);
        expect(out).toContain(target.kv!.token);
        expect(out).toContain(target.admin!.url);
        expect(out).toMatch(/fault switches\s+accept-delete/);
        const redisPort = Number(/redis:\/\/[^\s]*:(\d+)/.exec(out)?.[1]);
        expect(await portAnswers(`http://127.0.0.1:${redisPort}`)).toBe(true);

        run.child.kill(signal);
        const done = await run.finished;
        expect(done.code).toBe(0);
        expect(done.stderr).toBe('');
        expect(await portAnswers(`http://127.0.0.1:${redisPort}`)).toBe(false);
        expect(await portAnswers(target.kv!.url)).toBe(false);
        const written = JSON.parse(await readFile(file, 'utf8'));
        expect(Object.keys(written).sort()).toEqual(['admin', 'dialect', 'kv', 'management', 'messaging', 'name']);
      } finally {
        kill(run.child);
      }
    },
  );

  it('serves one messaging base URL per region, each in the target file and the printed block', async () => {
    const file = join(dir, 'target-regions.json');
    const run = runBin(
      ['serve', '--write-target', file, '--regions', 'eu-central-1,us-east-1', '--region-latency', 'us-east-1=50ms'],
      envWithoutRedisUrl,
    );
    try {
      await waitFor(() => run.output().includes('Stop with Ctrl-C'), 30_000);
      const target = await loadTargetFile(file);
      const regions = target.messaging?.regions ?? {};
      expect(Object.keys(regions).sort()).toEqual(['eu-central-1', 'us-east-1']);
      expect(run.output()).toMatch(new RegExp(`region us-east-1\\s+${regions['us-east-1']}`));
      for (const url of Object.values(regions)) {
        const res = await httpRequest({
          url: `${url}/v2/keys`,
          headers: { authorization: `Bearer ${target.messaging?.token}` },
        });
        expect(res.status).toBe(200);
      }
      run.child.kill('SIGTERM');
      expect((await run.finished).code).toBe(0);
    } finally {
      kill(run.child);
    }
  });

  it('--list-faults prints every switch with its rule and exits 0', async () => {
    const done = await runBin(['serve', '--list-faults']).finished;
    expect(done.code).toBe(0);
    for (const fault of allFaults)
      expect(done.stdout).toMatch(new RegExp(`${fault.name}\\s+${fault.rule.replaceAll('.', '\\.')}`));
  });

  it('refuses an unknown fault and an unreachable Redis with one line and exit code 2', async () => {
    for (const args of [
      ['serve', '--fault', 'no-such-fault'],
      ['serve', '--redis-url', 'redis://127.0.0.1:1'],
      ['serve', '--max-request-bytes', '1.5'],
      ['serve', '--regions', 'eu-central-1,mars-1'],
      ['serve', '--region-latency', 'us-east-1:80ms'],
      ['serve', '--regions', 'eu-central-1', '--region-latency', 'us-east-1=80ms'],
      ['serve', '--retry-backoff', 'soon'],
    ]) {
      const done = await runBin(args).finished;
      expect(done.code, args.join(' ')).toBe(2);
      expect(done.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(done.stderr, args.join(' ')).toMatch(/^svc-harness: .+ \[SVC_[A-Z_]+\]\n$/);
    }
  });
});
