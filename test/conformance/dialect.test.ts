/**
 * Dialects end to end: the reference answering to the real-world names (Upstash-Encoding, …) passes
 * the key-value suite when the target file says `dialect: upstash`, and the same service fails the
 * header rules when the target claims the spec's names — so the suite really sends the dialect's names.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetJson } from '../../src/cli/commands/serve.ts';
import { useTestReference } from '../support/reference-fixture.ts';
import { runCli } from '../support/run-cli.ts';

interface ReportCase {
  readonly id: string;
  readonly verdict: { readonly kind: string; readonly rule?: string };
}
interface Report {
  readonly exitCode: number;
  readonly targets: readonly { readonly cases: readonly ReportCase[] }[];
}

const env = useTestReference({ dialect: 'upstash' });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svch-dialect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runAs(dialect: 'svc' | 'upstash'): Promise<Report> {
  const targetFile = join(dir, `${dialect}.json`);
  await writeFile(targetFile, JSON.stringify({ ...targetJson(env.ref), dialect }), { mode: 0o600 });
  const reportDir = join(dir, `report-${dialect}`);
  // Only the header rules: they are the ones a dialect changes.
  const run = await runCli(
    ['conformance', '--target', targetFile, '--rules', 'B.encoding.*,B.format.*', '--report-dir', reportDir],
    {
      reportDir,
    },
  );
  expect(run.report, run.stderr).toBeDefined();
  return run.report as Report;
}

describe('dialects', () => {
  it('passes against a service that answers to the upstash names when the target says upstash', async () => {
    const report = await runAs('upstash');
    const failed = report.targets[0]?.cases.filter((c) => c.verdict.kind === 'fail') ?? [];
    expect(failed.map((c) => c.id)).toEqual([]);
    expect(report.exitCode).toBe(0);
  });

  it('fails the header rules when the target claims the spec names the service does not answer to', async () => {
    const report = await runAs('svc');
    const failedRules = new Set(
      report.targets[0]?.cases.filter((c) => c.verdict.kind === 'fail').map((c) => c.verdict.rule) ?? [],
    );
    expect(failedRules).toContain('B.encoding.base64');
    expect(failedRules).toContain('B.format.resp2');
    expect(report.exitCode).toBe(1);
  });
});
