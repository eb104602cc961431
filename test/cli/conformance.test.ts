import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import {
  type BadServer,
  refusedUrl,
  startGarbageServer,
  startPingOnlyServer,
  startStallingServer,
} from '../engines/conformance/fixtures/bad-servers.ts';
import { type FixtureServer, startFixtureServer } from '../engines/conformance/fixtures/fixture-server.ts';
import { expectOneLine } from '../support/cli-expect.ts';
import { runCli } from '../support/run-cli.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-conformance-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function targetFile(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('conformance: bad input gives one line and exit code 2', () => {
  let garbage: BadServer;
  let stalling: BadServer;
  let fixture: FixtureServer;
  beforeAll(async () => {
    [garbage, stalling, fixture] = await Promise.all([
      startGarbageServer(),
      startStallingServer(),
      startFixtureServer(),
    ]);
  });
  afterAll(() => Promise.all([garbage.close(), stalling.close(), fixture.close()]));

  const kvTarget = (url: string) => ({ name: 'bad', kv: { url, token: 'bad-input-token-77' } });

  test('a malformed target file', async () => {
    const notJson = await runCli(['conformance', '--target', await targetFile('not-json.json', '{"kv":')]);
    expectOneLine(notJson, /^svc-harness: target file .*not-json\.json: not JSON \(.*\) \[SVC_CONFIG\]$/);
    const wrongShape = await runCli([
      'conformance',
      '--target',
      await targetFile('shape.json', { kv: { url: 'http://127.0.0.1:1' } }),
    ]);
    expectOneLine(
      wrongShape,
      /^svc-harness: target file .*shape\.json: kv must have required property 'token' \[SVC_CONFIG\]$/,
    );
    const missing = await runCli(['conformance', '--target', join(dir, 'nope.json')]);
    expectOneLine(missing, /nope\.json: no such file \[SVC_CONFIG\]$/);
  });

  test('a wrong URL', async () => {
    const run = await runCli(['conformance', '--target', await targetFile('url.json', kvTarget('ftp://example'))]);
    expectOneLine(
      run,
      /^svc-harness: target file .*url\.json: kv\.url must be an http:\/\/ or https:\/\/ URL \[SVC_CONFIG\]$/,
    );
  });

  test('a refused connection: one line, per-case errors in the report', async () => {
    const reportDir = join(dir, 'refused');
    const run = await runCli(
      [
        'conformance',
        '--target',
        await targetFile('refused.json', kvTarget(await refusedUrl())),
        '--report-dir',
        reportDir,
      ],
      {
        reportDir,
      },
    );
    expectOneLine(
      run,
      /^svc-harness: target "bad" \(kv\): http:\/\/127\.0\.0\.1:\d+ refused the connection \[SVC_TARGET_UNREACHABLE\]$/,
    );
    const report = run.report as {
      gate: string;
      targets: { problem: string; cases: { verdict: { kind: string } }[] }[];
    };
    expect(report.gate).toBe('error');
    expect(report.targets[0]?.problem).toContain('refused the connection');
    expect(report.targets[0]?.cases.every((item) => item.verdict.kind === 'error')).toBe(true);
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
  });

  test('a server answering garbage bytes', async () => {
    const run = await runCli([
      'conformance',
      '--target',
      await targetFile('garbage.json', kvTarget(garbage.url)),
      '--report-dir',
      join(dir, 'garbage'),
    ]);
    expectOneLine(run, /^svc-harness: target "bad" \(kv\): .* did not answer with HTTP .* \[SVC_TARGET_GARBAGE\]$/);
  });

  test('a stalling server ends after the probe timeout', async () => {
    const run = await runCli([
      'conformance',
      '--target',
      await targetFile('stall.json', kvTarget(stalling.url)),
      '--report-dir',
      join(dir, 'stall'),
    ]);
    expectOneLine(run, /did not answer within 3000 ms \[SVC_TARGET_UNREACHABLE\]$/);
    expect(run.durationMs).toBeLessThan(20_000);
  });

  test('a malformed expectations file', async () => {
    const target = await targetFile('fixture.json', {
      name: 'fixture',
      kv: { url: fixture.url, token: fixture.token },
    });
    const notJson = await runCli([
      'conformance',
      '--target',
      target,
      '--expectations',
      await targetFile('e1.json', 'nope'),
    ]);
    expectOneLine(notJson, /^svc-harness: expectations file .*e1\.json: not JSON .* \[SVC_CONFIG\]$/);
    const unknown = await runCli([
      'conformance',
      '--target',
      target,
      '--expectations',
      await targetFile('e2.json', { expectations: [{ rule: 'B.no-such-rule', reason: 'x' }] }),
    ]);
    expectOneLine(
      unknown,
      /^svc-harness: expectations file .*e2\.json: expectations\.0 names unknown rule "B\.no-such-rule" \[SVC_CONFIG\]$/,
    );
  });

  // Five runs of the CLI, one loading every suite's rules: the time allowed is for a busy CI machine.
  test('usage errors: --fault with --target, an unknown area, an unknown flag, a glob matching nothing', async () => {
    const target = await targetFile('usage.json', kvTarget('http://127.0.0.1:1'));
    expectOneLine(
      await runCli(['conformance', '--target', target, '--fault', 'x']),
      /--fault works only with the embedded reference .*\[SVC_USAGE\]$/,
    );
    expectOneLine(await runCli(['conformance', '--area', 'kv,queues']), /unknown area "queues" .*\[SVC_USAGE\]$/);
    expectOneLine(
      await runCli(['conformance', '--fault', 'no-such-fault']),
      /unknown fault "no-such-fault" .*\[SVC_USAGE\]$/,
    );
    expectOneLine(
      await runCli(['conformance', '--bogus']),
      /^svc-harness: conformance: unknown flag --bogus \(svc-harness conformance --help lists its flags\) \[SVC_USAGE\]$/,
    );
    expectOneLine(await runCli(['conformance', '--rules', 'Q.*']), /--rules "Q\.\*" matches no rule .*\[SVC_USAGE\]$/);
  }, 120_000);
});

describe('conformance: an interrupted run', () => {
  test('SIGINT stops the run within seconds, exit code 2, and the report says so', async () => {
    const slow = await startPingOnlyServer();
    try {
      const reportDir = join(dir, 'interrupted');
      const target = await targetFile('slow.json', { name: 'slow', kv: { url: slow.url, token: 'slow-token-123' } });
      const run = await runCli(['conformance', '--target', target, '--report-dir', reportDir], {
        reportDir,
        interrupt: { afterMs: 2_500 },
        timeoutMs: 30_000,
      });
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.afterSignalMs).toBeLessThan(10_000);
      expect(run.stderr + run.stdout).not.toMatch(/\n\s+at /);
      const report = run.report as { aborted: string; gate: string };
      expect(report.aborted).toBe('interrupted (SIGINT)');
      expect(report.gate).toBe('error');
      expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    } finally {
      await slow.close();
    }
  });
});

describe('conformance against the reference service', () => {
  test('the embedded reference: a filtered run passes and writes valid reports', async () => {
    const reportDir = join(dir, 'embedded');
    const run = await runCli(['conformance', '--area', 'kv', '--rules', 'B.status.ok-200', '--report-dir', reportDir], {
      reportDir,
    });
    expect(run.exitCode, run.stderr + run.stdout).toBe(0);
    expect((await readdir(reportDir)).sort()).toEqual(['index.html', 'junit.xml', 'report.json', 'summary.md']);
    expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(run.stdout).toContain('gate: passed (exit code 0)');
    expect(run.stdout).toContain(`reports: ${reportDir}`);
  });
});
