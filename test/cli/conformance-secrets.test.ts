/**
 * The conformance command against a reference with every area-B fault switch on: many cases fail, each
 * showing the request behind it as curl, and no credential of the target appears in any file written or
 * in the console. A file of its own: its run waits out six stream cases (3 s each with --timeout 3s,
 * the default 10 s would be a minute), and alone it runs beside the other CLI tests.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { allFaults } from '../../src/reference/reference-areas.ts';
import { type RunningReference, startReference } from '../../src/reference/reference-service.ts';
import { runCli } from '../support/run-cli.ts';
import { expectNoSecrets } from '../support/secret-scan.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-conformance-secrets-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function targetFile(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(content));
  return path;
}

describe('svc-harness conformance', () => {
  describe('with every fault switch on', () => {
    let reference: RunningReference;
    beforeAll(async () => {
      reference = await startReference({
        faults: allFaults.filter((fault) => fault.area === 'kv').map((fault) => fault.name),
      });
    });
    afterAll(() => reference.stop());

    test('no credential of the target appears in any file written or in the console', async () => {
      const reportDir = join(dir, 'secrets');
      const target = await targetFile('reference.json', reference.target);
      const run = await runCli(
        ['conformance', '--target', target, '--area', 'kv', '--timeout', '3s', '--report-dir', reportDir],
        {
          reportDir,
          timeoutMs: 120_000,
        },
      );
      expect(run.exitCode, run.stderr).toBe(1);
      await expectNoSecrets(reference.target, reportDir, run);
      // Each failure carries the request behind it as curl, the token as the variable it comes from.
      const report = run.report as {
        targets: { cases: { verdict: { kind: string }; exchange?: { curl: string; answer: string } }[] }[];
      };
      const failed = report.targets[0]?.cases.filter((item) => item.verdict.kind === 'fail') ?? [];
      expect(failed.length).toBeGreaterThan(0);
      const shown = failed.filter((item) => item.exchange !== undefined);
      expect(shown.length).toBeGreaterThan(failed.length / 2);
      for (const { exchange } of shown) {
        expect(exchange?.curl).toMatch(/^curl -sS -i -X [A-Z]+ /);
        expect(exchange?.answer).toMatch(/^(\d{3} |no answer: )/);
      }
      expect(shown.some(({ exchange }) => exchange?.curl.includes('"$SVC_KV_TOKEN"'))).toBe(true);
    }, 150_000);
  });
});
