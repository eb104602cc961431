/**
 * `svc-harness conformance` for areas A and C end to end: the messaging suite without an adapter (its
 * adapter cases skipped with the reason), with an adapter module named in the target file, with the
 * sink where the flags say, bad sink flags as one line, and no secret of the target, the account, the
 * signing keys or the indexes created in anything a run writes or prints.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import { allFaults } from '../../src/reference/reference-areas.ts';
import type { RunningReference } from '../../src/reference/reference-service.ts';
import { findFreePort } from '../../src/shared/free-port.ts';
import { secretForms } from '../../src/shared/redact.ts';
import { targetSecrets } from '../../src/target/target.ts';
import { expectOneLine } from '../support/cli-expect.ts';
import { startTestRedis, startTestReference } from '../support/reference-fixture.ts';
import { type CliRun, runCli } from '../support/run-cli.ts';

interface ReportCase {
  readonly id: string;
  readonly verdict: { readonly kind: string; readonly reason?: string };
  readonly notes?: readonly string[];
}

let dir: string;
let redis: RedisBacking;
let ref: RunningReference;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-messaging-'));
  redis = await startTestRedis();
  ref = await startTestReference(redis, { messaging: { retryBackoff: { kind: 'base', ms: 10 } } });
});

afterAll(async () => {
  await ref?.stop();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function targetFile(name: string, messaging: Record<string, unknown>): Promise<string> {
  const path = join(dir, name);
  const { target } = ref;
  await writeFile(
    path,
    JSON.stringify({
      name: 'reference',
      dialect: 'svc',
      messaging: { ...target.messaging, ...messaging },
      admin: target.admin,
    }),
  );
  return path;
}

function casesOf(run: CliRun): ReportCase[] {
  const report = run.report as { targets: { cases: ReportCase[] }[] } | undefined;
  return report?.targets.flatMap((target) => target.cases) ?? [];
}

describe('the messaging suite and its adapter', () => {
  test('without an adapter, the cases that need one are skipped with the reason, and the rest pass', async () => {
    const target = await targetFile('no-adapter.json', { adapter: undefined });
    const reportDir = join(dir, 'no-adapter');
    const run = await runCli(['conformance', '--target', target, '--area', 'messaging', '--report-dir', reportDir], {
      reportDir,
      timeoutMs: 120_000,
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const cases = casesOf(run);
    const skipped = cases.filter((item) => item.verdict.kind === 'skip');
    expect(skipped.map((item) => item.id)).toContain('messaging.notify.waiters');
    expect(skipped.map((item) => item.id)).toContain('messaging.signature.verifiable');
    // The regional case skips too: the target file written here declares one region.
    for (const item of skipped) expect(item.verdict.reason).toMatch(/adapter|signing keys|one region/);
    expect(cases.filter((item) => item.verdict.kind === 'pass').length).toBeGreaterThan(10);
  }, 150_000);

  test('an adapter module named in the target file is loaded and used', async () => {
    const log = join(dir, 'adapter.log');
    const target = await targetFile('module-adapter.json', {
      adapter: join(import.meta.dirname, '..', 'conformance', 'fixtures', 'module-adapter.ts'),
    });
    const reportDir = join(dir, 'module-adapter');
    const run = await runCli(
      [
        'conformance',
        '--target',
        target,
        '--area',
        'messaging',
        '--rules',
        'A.notify.*,A.queue.*,A.failure-callback.dlq-entry',
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 120_000, env: { SVC_TEST_ADAPTER_LOG: log } },
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(casesOf(run).filter((item) => item.verdict.kind === 'skip')).toEqual([]);
    const used = new Set((await readFile(log, 'utf8')).trim().split('\n'));
    expect([...used].sort()).toEqual(['createQueue', 'deadLetter', 'enqueue', 'resume', 'signingKeys', 'wait']);
  }, 150_000);

  test('the sink listens where the flags say and hands out URLs under the one --sink-url gives, path prefix included', async () => {
    const port = await findFreePort();
    const target = await targetFile('sink.json', {});
    const reportDir = join(dir, 'sink');
    const run = await runCli(
      [
        'conformance',
        '--target',
        target,
        '--area',
        'messaging',
        '--rules',
        'A.publish.delivers,A.signature.verifiable',
        '--sink-host',
        '127.0.0.1',
        '--sink-port',
        String(port),
        '--sink-url',
        `http://localhost:${port}/h/sink`,
        '--sink-wait',
        '5s',
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 120_000 },
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const signature = casesOf(run).find((item) => item.id === 'messaging.signature.verifiable');
    expect(signature?.verdict.kind).toBe('pass');
    expect(signature?.notes?.join('\n')).toMatch(/sink: POST dest → 200 at \+\d+ ms, signature ok/);
  }, 150_000);

  test('429: without an admin hook the plan’s rate is read from the management area, and a high one is not hammered', async () => {
    const path = join(dir, 'no-admin.json');
    const { target } = ref;
    await writeFile(
      path,
      JSON.stringify({ name: 'no-admin', messaging: target.messaging, management: target.management }),
    );
    const reportDir = join(dir, 'no-admin');
    const run = await runCli(
      [
        'conformance',
        '--target',
        path,
        '--area',
        'messaging',
        '--rules',
        'A.notify.rate-limit-429',
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 60_000 },
    );
    const [rate] = casesOf(run);
    expect(rate?.verdict).toEqual({ kind: 'skip', reason: expect.stringMatching(/allows 500 requests per second/) });
  }, 90_000);

  test('bad sink flags are one line and exit code 2', async () => {
    for (const args of [
      ['--sink-url', 'http://host:1/a/path?query=1'],
      ['--sink-url', 'not a url'],
      ['--sink-threads', '65'],
      ['--sink-wait', 'forever'],
      ['--sink-port', '70000'],
    ]) {
      expectOneLine(
        await runCli(['conformance', '--area', 'messaging', ...args]),
        /^svc-harness: .*sink.* \[SVC_USAGE\]$/,
      );
    }
  });
});

describe('secrets', () => {
  let faulty: RunningReference;
  beforeAll(async () => {
    const faults = allFaults.filter((fault) => fault.area !== 'kv').map((fault) => fault.name);
    faulty = await startTestReference(redis, {
      redisUrl: `${redis.url}/6`,
      faults,
      areas: ['messaging', 'management'],
    });
  });
  afterAll(() => faulty?.stop());

  test('no token, password, signing key or index token in any file written or in the console, every A and C fault on', async () => {
    const path = join(dir, 'faulty.json');
    await writeFile(path, JSON.stringify({ ...faulty.target, name: 'faulty' }));
    const reportDir = join(dir, 'secrets');
    const run = await runCli(['conformance', '--target', path, '--report-dir', reportDir, '--sink-wait', '3s'], {
      reportDir,
      timeoutMs: 150_000,
    });
    expect(run.exitCode, run.stderr).toBe(1);
    // Every secret the run could have seen: the target's, the account's, the signing keys after both
    // rotations, and the tokens of every index the management suite created.
    const client = createClient({ url: redis.url, database: 7 });
    await client.connect();
    const found: unknown[] = [];
    try {
      found.push(...Object.values(await client.hGetAll('svc:ref:keys')));
      const account = JSON.parse(String(await client.get('svc:ref:account'))) as {
        account: Record<string, unknown>;
        managementKey: string;
      };
      found.push(account.account.password, account.account.token, account.managementKey);
      for (const key of await client.keys('svc:ref:search:*')) {
        const index = JSON.parse(String(await client.get(key))) as Record<string, unknown>;
        found.push(index.token, index.read_only_token);
      }
    } finally {
      client.destroy();
    }
    const secrets = [...targetSecrets(faulty.target), ...found]
      .filter((value): value is string => typeof value === 'string' && value.length > 0)
      .flatMap(secretForms);
    expect(secrets.length).toBeGreaterThan(8);
    const { readdir } = await import('node:fs/promises');
    const written = await Promise.all(
      (await readdir(reportDir)).map((name) => readFile(join(reportDir, name), 'utf8')),
    );
    for (const text of [...written, run.stdout, run.stderr]) {
      for (const secret of secrets)
        expect(text.includes(secret), `a secret leaked: ${secret.slice(0, 4)}…`).toBe(false);
    }
  }, 200_000);
});
