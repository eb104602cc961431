/**
 * `--warmup` (issue 36): unmeasured load before each scenario's measured run, at its rate; the report
 * counts only the measured requests and says how long the warm-up was; what the warm-up did to the
 * target still counts (the transaction scenario's commits reach its lost-update check).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectOneLine } from '../support/cli-expect.ts';
import { runCli } from '../support/run-cli.ts';

interface Report {
  readonly load: {
    readonly scenarios: readonly {
      readonly name: string;
      readonly settings: { readonly warmupS: number | null };
      readonly requests: { readonly sent: number };
      readonly lostUpdates: number | null;
    }[];
  };
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-warmup-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('--warmup', () => {
  test('measures only after the warm-up; its commits still reach the lost-update check; 0 turns it off', async () => {
    const reportDir = join(dir, 'warm');
    const run = await runCli(
      [
        'load',
        'transaction',
        'command',
        '--rate',
        '40',
        '--duration',
        '1s',
        '--warmup',
        '1s',
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 60_000 },
    );
    expect([0, 99], run.stderr).toContain(run.exitCode);
    const report = run.report as Report;
    for (const scenario of report.load.scenarios) {
      expect(scenario.settings.warmupS, scenario.name).toBe(1);
      // 40 a second for the measured second only: the warm-up's 40 are in no count.
      expect(scenario.requests.sent, scenario.name).toBe(40);
    }
    expect(report.load.scenarios.find((scenario) => scenario.name === 'transaction')?.lostUpdates).toBe(0);

    const coldDir = join(dir, 'cold');
    const cold = await runCli(
      ['load', 'command', '--rate', '40', '--duration', '1s', '--warmup', '0', '--report-dir', coldDir],
      { reportDir: coldDir, timeoutMs: 60_000 },
    );
    expect((cold.report as Report).load.scenarios[0]?.settings.warmupS).toBeNull();
  }, 90_000);

  test('a warm-up that is no duration is one line', async () => {
    expectOneLine(await runCli(['load', '--warmup', 'soon']), /--warmup "soon" is not a duration .* or 0/);
    expectOneLine(
      await runCli(['load', '--warmup', '-1s']),
      /^svc-harness: load: --warmup "-1s": a value cannot start with a dash \(no value of these flags is negative\) \[SVC_USAGE\]$/,
    );
  });
});
