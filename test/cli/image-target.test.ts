/**
 * `--image`: an implementation's container as the target, through Podman (the engine of
 * ../shared/tools/container-engine.sh), as CI has it. The implementation is the third party the suites
 * already know, `@humanwhocodes/upstash-redis-server`, with a redis-server beside it in one image built
 * here on the Node base image made from this machine's files (scripts/node-base-image.sh). Its target
 * file is a template: the token is the one the container's environment gives, the URL the mapped port.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureContainerEngine } from '../reference/redis/container-engine.ts';
import { waitFor } from '../support/processes.ts';
import { repoRoot, runCli, startCli, startProcess } from '../support/run-cli.ts';

const baseImage = 'localhost/svc-node:local';
const image = 'localhost/svc-hwc:test';
const token = 'image-test-token-0123456789';
const engineMissing = ensureContainerEngine();

let dir: string;
let targetFile: string;

/** Containers of the image, running or not: none may be left after a run. */
function containersOf(name: string): string[] {
  const listed = spawnSync('podman', ['ps', '--all', '--quiet', '--filter', `ancestor=${name}`], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return listed.stdout.trim().split('\n').filter(Boolean);
}

/** redis-server and the shared libraries it needs, at their own paths under `root`. */
function copyWithLibraries(binary: string, root: string): void {
  const files = [binary, ...(spawnSync('ldd', [binary], { encoding: 'utf8' }).stdout.match(/\/\S+/g) ?? [])];
  for (const file of files) {
    mkdirSync(join(root, dirname(file)), { recursive: true });
    copyFileSync(file, join(root, file));
  }
}

beforeAll(async () => {
  if (engineMissing !== undefined) return;
  dir = await mkdtemp(join(tmpdir(), 'harness-image-target-'));
  const built = await startProcess('bash', [join(repoRoot, 'scripts', 'node-base-image.sh'), baseImage], {
    timeoutMs: 120_000,
  }).finished;
  if (built.exitCode !== 0) throw new Error(`node-base-image.sh: ${built.stderr}`);
  const context = join(dir, 'context');
  copyWithLibraries('/usr/bin/redis-server', join(context, 'rootfs'));
  await writeFile(
    join(context, 'start.sh'),
    "/usr/bin/redis-server --port 6379 --save '' --appendonly no &\nexec node /app/node_modules/@humanwhocodes/upstash-redis-server/dist/server.js\n",
  );
  await writeFile(
    join(context, 'Containerfile'),
    [
      `FROM ${baseImage}`,
      'WORKDIR /app',
      'RUN npm install --no-audit --no-fund --loglevel=error @humanwhocodes/upstash-redis-server@1.0.0',
      'COPY rootfs/ /',
      'COPY start.sh /start.sh',
      'CMD ["/bin/sh", "/start.sh"]',
      '',
    ].join('\n'),
  );
  const podman = await startProcess('podman', ['build', '--quiet', '--tag', image, context], { timeoutMs: 300_000 })
    .finished;
  if (podman.exitCode !== 0) throw new Error(`podman build: ${podman.stderr.slice(-2000)}`);
  targetFile = join(dir, 'hwc-image.json');
  await writeFile(
    targetFile,
    JSON.stringify({
      name: 'hwc-image',
      dialect: 'upstash',
      image: { ports: [8080], env: { URS_TOKEN: token }, wait: { http: { port: 8080, path: '/' }, timeout: '60s' } },
      kv: { url: 'http://{host}:{port:8080}', token },
    }),
  );
}, 500_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  if (engineMissing === undefined) spawnSync('podman', ['rmi', '--force', image], { timeout: 60_000 });
});

describe.skipIf(engineMissing !== undefined)(`--image (${engineMissing ?? 'podman'})`, () => {
  test('conformance --image: the suite runs against the container, which is removed afterwards', async () => {
    const reportDir = join(dir, 'conformance');
    const done = await runCli(
      [
        'conformance',
        '--target',
        targetFile,
        '--image',
        image,
        '--area',
        'kv',
        '--rules',
        'B.commands.*',
        '--report-dir',
        reportDir,
      ],
      { timeoutMs: 240_000, reportDir },
    );
    // The third party runs SELECT, which the spec refuses: the gate fails on that, not on the harness.
    expect(done.exitCode, done.stderr).toBe(1);
    expect(done.stderr).toContain(`image: ${image} started`);
    const report = done.report as { targets: { name: string; cases: { id: string; verdict: { kind: string } }[] }[] };
    expect(report.targets[0]?.name).toBe('hwc-image');
    expect(report.targets[0]?.cases.find((item) => item.id === 'kv.commands.refused.select')?.verdict.kind).toBe(
      'fail',
    );
    expect(report.targets[0]?.cases.filter((item) => item.verdict.kind === 'error')).toEqual([]);
    expect(await readFile(join(reportDir, 'report.json'), 'utf8')).not.toContain(token);
    expect(containersOf(image)).toEqual([]);
  }, 260_000);

  test('load --image: a short run against the container', async () => {
    const reportDir = join(dir, 'load');
    const done = await runCli(
      // pipeline, not command: the third party serves only POST / and /pipeline, not the path form.
      [
        'load',
        'pipeline',
        '--batch',
        '1,10',
        '--target',
        targetFile,
        '--image',
        image,
        '--duration',
        '2s',
        '--rate',
        '50',
        '--report-dir',
        reportDir,
      ],
      { timeoutMs: 180_000 },
    );
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/pipeline +100 /);
    expect(containersOf(image)).toEqual([]);
  }, 200_000);

  test('Ctrl-C during the run: the run ends with its report and the container is removed', async () => {
    const reportDir = join(dir, 'interrupted');
    const started = startCli(
      ['conformance', '--target', targetFile, '--image', image, '--area', 'kv', '--report-dir', reportDir],
      { timeoutMs: 180_000 },
    );
    let stderr = '';
    started.child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await waitFor(() => stderr.includes(`image: ${image} started`), 120_000), stderr).toBe(true);
    // Into the suite's run: a second after the container is up, most of the kv suite is still to come.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    started.child.kill('SIGINT');
    const done = await started.finished;
    expect(done.exitCode).not.toBe(0);
    expect(JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')).aborted).toMatch(/interrupted/);
    expect(containersOf(image)).toEqual([]);
  }, 200_000);

  test('soak --image: the container killed and paused under load, answering again at the same URL, removed afterwards', async () => {
    const reportDir = join(dir, 'soak');
    const done = await runCli(
      [
        'soak',
        'pipeline',
        '--target',
        targetFile,
        '--image',
        image,
        '--duration',
        '9s',
        '--rate',
        '30',
        '--fault',
        'kill every 4s after 2s',
        '--fault',
        'pause 700ms every 4s after 4s',
        '--report-dir',
        reportDir,
      ],
      { timeoutMs: 240_000 },
    );
    const context = `${done.stdout.slice(-2500)}\n${done.stderr.slice(-1500)}`;
    // A faulted run's error rate may fail the scenario's thresholds (99); nothing else may.
    expect([0, 99], context).toContain(done.exitCode);
    const soak = JSON.parse(await readFile(join(reportDir, 'soak.json'), 'utf8')) as {
      implementation: string;
      problems: string[];
      faults: { action: string; error?: string; startAt: number; healedAt: number }[];
      trends: { series: { process: string; samples: number }[] };
    };
    expect(soak.implementation).toBe('image');
    expect(soak.problems, context).toEqual([]);
    expect(
      soak.faults.filter((fault) => fault.error !== undefined),
      context,
    ).toEqual([]);
    expect(soak.faults.filter((fault) => fault.action === 'kill')).toHaveLength(2);
    expect(soak.faults.some((fault) => fault.action === 'pause')).toBe(true);
    // Answered between and after the kills, at the URL the target named: 30/s for 9 s, less the outages.
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
      load: {
        scenarios: {
          requests: { completed: number; failed: number };
          series: { second: number; completed: number }[];
        }[];
      };
    };
    const scenario = report.load.scenarios[0];
    expect(scenario?.requests.failed, context).toBeGreaterThan(0);
    expect(
      scenario?.series.filter((point) => point.second >= 7).reduce((sum, point) => sum + point.completed, 0),
      context,
    ).toBeGreaterThan(0);
    // The container's processes sampled as the implementation's.
    expect(soak.trends.series.find((item) => item.process === 'implementation')?.samples ?? 0, context).toBeGreaterThan(
      0,
    );
    expect(done.stdout).not.toContain(token);
    expect(containersOf(image)).toEqual([]);
  }, 260_000);

  test('an image the engine lacks, and --image without a template, are one line each', async () => {
    const missing = await runCli(['conformance', '--target', targetFile, '--image', 'localhost/no-such-image:1'], {
      timeoutMs: 60_000,
    });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toMatch(
      /^svc-harness: --image localhost\/no-such-image:1: no such image on the engine .* \[SVC_CONFIG\]$/,
    );
    const plain = join(dir, 'plain.json');
    await writeFile(plain, JSON.stringify({ kv: { url: 'http://127.0.0.1:9', token } }));
    const untemplated = await runCli(['load', '--target', plain, '--image', image], { timeoutMs: 60_000 });
    expect(untemplated.exitCode).toBe(2);
    expect(untemplated.stderr.trim()).toMatch(
      /^svc-harness: --image needs --target FILE whose target has an "image" template/,
    );
  }, 130_000);
});
