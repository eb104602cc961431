/**
 * The console's levels (`--quiet`, `--verbose`; src/reporters/console-output.ts): quiet says only the
 * problems while the run goes, then the failures and the gate line; verbose adds every case's verdict
 * and a progress line each second, on a terminal as anywhere; normal is as it was.
 */
import { describe, expect, test } from 'vitest';
import { createConsoleReporter, renderQuietSummary } from '../../src/reporters/console-output.ts';
import type { LoadProgress } from '../../src/results/reporter.ts';
import { createRuleCatalog } from '../../src/results/rule.ts';
import { Capture } from './capture-stream.ts';
import { sampleHarnessRun } from './sample-load-run.ts';
import { sampleResults } from './sample-run.ts';

const progress = (elapsedS: number): LoadProgress => ({
  scenario: 'command',
  elapsedS,
  durationS: 3,
  rate: 100,
  p99Ms: 2,
  errors: 0,
  dropped: 0,
});

const end = { catalog: createRuleCatalog([]), redact: (text: string) => text };

/** What a console of `level` prints for a few cases, three seconds of load and the run's end. */
async function printed(level: 'quiet' | 'normal' | 'verbose', isTTY: boolean) {
  const stderr = new Capture(isTTY);
  const stdout = new Capture(false);
  const reporter = createConsoleReporter({ progress: stderr, summary: stdout, files: ['report.json'], level });
  reporter.onTarget?.('ref', true);
  reporter.onPlanned?.(sampleResults.length);
  for (const result of sampleResults) reporter.onResult?.(result);
  reporter.onProblem?.('the sink lost a request');
  reporter.onScenarioStart?.('command', 'node, open model', {
    engine: 'node',
    target: 'ref',
    embedded: true,
    durationS: 3,
  });
  for (const second of [1, 2, 3]) reporter.onProgress?.(progress(second));
  await reporter.onRunEnd?.(sampleHarnessRun('/tmp/report'), end);
  return { stderr: stderr.text, stdout: stdout.text };
}

describe('console levels', () => {
  test('quiet: only the problems as they come, then the failures and the gate line', async () => {
    const { stderr, stdout } = await printed('quiet', false);
    expect(stderr).toBe('svc-harness: the sink lost a request\n');
    expect(stdout).toBe(renderQuietSummary(sampleHarnessRun('/tmp/report')));
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^gate: failed \(exit code 1\) in [\d.]+ s$/);
    // The cases that fail the gate, and the failed threshold; no pass, no skip, no table, no report line.
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^FAIL kv\.fail /)]));
    expect(lines.some((line) => /THRESHOLD FAILED/.test(line))).toBe(true);
    expect(stdout).not.toMatch(/PASS|SKIP|^reports:|p50/m);
  });

  test('verbose: every case, passes too, and a progress line each second, on a terminal as in a log', async () => {
    for (const isTTY of [false, true]) {
      // A terminal's rewritten line starts with a carriage return and an erase: each a line of its own here.
      const stderr = (await printed('verbose', isTTY)).stderr.replaceAll('\r', '\n').split('\u001b[2K').join('');
      expect(stderr).toMatch(/^PASS kv\.pass \[B\.a\]$/m);
      expect(stderr).toMatch(/^SKIP kv\.skip /m);
      expect(stderr.match(/^command: \d\/3 s · 100 req\/s/gm)).toHaveLength(3);
    }
  });

  test('normal: cases that did not pass, a progress line every five seconds off a terminal', async () => {
    const { stderr, stdout } = await printed('normal', false);
    expect(stderr).not.toMatch(/^PASS/m);
    expect(stderr).toMatch(/^FAIL kv\.fail /m);
    expect(stderr.match(/^command: \d\/3 s/gm) ?? []).toHaveLength(0);
    expect(stdout).toMatch(/^reports: \/tmp\/report \(report\.json\)$/m);
  });
});
