/**
 * The conformance command against a hostile fake target (test/engines/conformance/fixtures/bad-servers.ts):
 * a kv target file pointing at it, the run, its report's cases.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type HostileMode, startHostileServer } from '../engines/conformance/fixtures/bad-servers.ts';
import { runCli } from './run-cli.ts';

export interface HostileReport {
  readonly gate: string;
  readonly targets: {
    readonly cases: { readonly id: string; readonly verdict: { kind: string; reason?: string; rule?: string } }[];
  }[];
}

export async function conformanceAgainstHostile(
  dir: string,
  mode: HostileMode,
  extra: Record<string, unknown> = {},
  env: Readonly<Record<string, string>> = {},
  flags: readonly string[] = [],
) {
  const server = await startHostileServer(mode);
  try {
    const target = join(dir, `${mode}.json`);
    await writeFile(
      target,
      JSON.stringify({ name: mode, kv: { url: server.url, token: 'hostile-token-1234' }, ...extra }),
    );
    const reportDir = join(dir, mode);
    const run = await runCli(['conformance', '--target', target, '--report-dir', reportDir, ...flags], {
      reportDir,
      timeoutMs: 170_000,
      env,
    });
    const report = run.report as HostileReport;
    const cases = report.targets.flatMap((item) => item.cases);
    return { run, report, cases };
  } finally {
    await server.close();
  }
}
