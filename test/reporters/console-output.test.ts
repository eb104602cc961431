import { describe, expect, test } from 'vitest';
import {
  createConsoleObserver,
  progressLine,
  renderConsoleSummary,
  renderRunSummary,
  resultLine,
} from '../../src/reporters/console-output.ts';
import { latencyTableLines, progressText, scenarioLines } from '../../src/reporters/load-console.ts';
import { Capture } from './capture-stream.ts';
import { fanoutEndpoints, sampleHarnessRun, sampleLoadRun } from './sample-load-run.ts';
import { sampleResults, sampleRun, wrongTokenResults } from './sample-run.ts';

describe('console output', () => {
  test('a result line names verdict, case, rules and reason', () => {
    expect(resultLine(sampleResults[1]!)).toBe('FAIL kv.fail [B.b] received <400> & "x" / expected 200 | y');
    expect(resultLine(sampleResults[0]!)).toBe('PASS kv.pass [B.a]');
  });

  test('the progress line counts what is done of what is planned', () => {
    expect(progressLine(sampleResults.slice(0, 2), 10)).toBe('[2/10] 1 pass, 1 fail · kv.fail');
  });

  test('the summary gives counts, the failures, the gate and the report folder', () => {
    const text = renderConsoleSummary(sampleRun);
    expect(text).toContain(
      'ref (embedded reference): 7 cases: 1 pass, 1 fail, 1 stale, 1 error, 1 expected-failure, 1 observation, 1 skip',
    );
    expect(text).toContain('  FAIL kv.fail [B.b]');
    expect(text).not.toContain('SKIP kv.skip');
    expect(text).toContain('gate: failed (exit code 1) in 1.5 s');
    expect(text).toContain('reports: /tmp/x (report.json, junit.xml, summary.md)');
  });

  test('a root cause most failures share comes first in the summary, once', () => {
    const cases = wrongTokenResults(96, 4);
    const target = { ...sampleRun.targets[0]!, name: 'wrong', cases };
    const lines = renderConsoleSummary({ ...sampleRun, targets: [target], results: cases }, [], false).split('\n');
    expect(lines[0]).toBe(
      'root cause: wrong: 96 of 100 cases that failed, blocked or ended in error saw status 401: check the token or credentials the target gives',
    );
    expect(lines.filter((line) => line.startsWith('root cause:'))).toHaveLength(1);
    expect(renderConsoleSummary(sampleRun)).not.toContain('root cause');
  });

  test('a load scenario with no completed answer shows no latency, not "p99 0 ms"', () => {
    const [scenario] = sampleLoadRun.scenarios;
    const refused = {
      ...scenario!,
      requests: { sent: 10, completed: 0, failed: 10, dropped: 0 },
      latencyMs: { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 },
    };
    const [line] = scenarioLines(refused);
    expect(line).toContain('0/10 completed, 10 failed, 0 dropped');
    expect(line).toContain('no completed answer, so no latency');
    expect(line).not.toContain('p99');
    expect(scenarioLines(scenario!)[0]).toMatch(/p50 [\d.]+ ms · p99 [\d.]+ ms · max [\d.]+ ms$/);
  });

  test('a messaging scenario shows each stream exactly, and where deliveries went missing', () => {
    const fanout = sampleLoadRun.scenarios.find((scenario) => scenario.name === 'publish-fanout')!;
    const accepted = fanout.accounting.messaging!.accepted;
    const expected = accepted * fanoutEndpoints;
    const lines = scenarioLines(fanout);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^  delivery: ${expected - 3}/${expected} received, 3 lost, 2 duplicated, 0 unexpected, 0 bad signatures · publish → delivery p50 [\\d.]+ ms, p99 [\\d.]+ ms$`,
        ),
      ),
    );
    // Only the endpoints where something went wrong, in natural order.
    expect(lines.filter((line) => line.startsWith('    endpoint:'))).toEqual([
      `    endpoint:e2: 3 lost, 0 duplicated of ${accepted}`,
      `    endpoint:e5: 0 lost, 2 duplicated of ${accepted}`,
    ]);
    expect(lines).toContain(
      `  ${accepted} accepted; waited 0.4 s after the load, strays (requests to no open inbox) 1`,
    );
    const callbacks = scenarioLines(
      sampleLoadRun.scenarios.find((scenario) => scenario.name === 'callback-throughput')!,
    );
    expect(callbacks.map((line) => line.split(':')[0])).toEqual(
      expect.arrayContaining(['  delivery', '  callbacks', '  failure callbacks']),
    );
    expect(callbacks.find((line) => line.startsWith('  failure callbacks:'))).toContain('1 bad signatures');
    expect(callbacks.find((line) => line.startsWith('  callbacks:'))).toContain(', 1 lost,');
    expect(callbacks.at(-1)).toMatch(
      / accepted; waited 0\.4 s after the load; send → last arrival p50 [\d.]+ ms, p99 [\d.]+ ms$/,
    );
  });

  test('a target that could not be used shows one line, not one per case', () => {
    const target = { ...sampleRun.targets[0]!, problem: 'refused' };
    const text = renderConsoleSummary({ ...sampleRun, targets: [target] });
    expect(text).toContain('  not run: refused');
    expect(text).not.toContain('FAIL');
  });

  test('without a TTY: plain lines for cases that did not pass, no control characters', () => {
    const out = new Capture(false);
    const observer = createConsoleObserver(out);
    observer.onTarget?.('ref', true);
    observer.onPlanned?.(7);
    for (const result of sampleResults) observer.onResult?.(result);
    observer.end();
    expect(out.text).not.toContain('\x1b');
    expect(out.text.split('\n').filter(Boolean)).toHaveLength(6);
  });

  test('without a TTY: a heartbeat line while cases run, none once they ended', async () => {
    const out = new Capture(false);
    const observer = createConsoleObserver(out, { heartbeatMs: 20 });
    observer.onTarget?.('ref', true);
    observer.onPlanned?.(7);
    observer.onResult?.(sampleResults[0]!);
    await new Promise((resolve) => setTimeout(resolve, 90));
    const beats = out.text.split('\n').filter((line) => line.startsWith('conformance: '));
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]).toMatch(/^conformance: \[1\/7\] 1 pass · kv\.pass · \d+ s$/);
    for (const result of sampleResults.slice(1)) observer.onResult?.(result);
    observer.end();
    const after = out.text;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(out.text).toBe(after);
  });

  test('on a TTY: a rewritten progress line, failures printed above it', () => {
    const out = new Capture(true);
    const observer = createConsoleObserver(out);
    observer.onTarget?.('ref', true);
    observer.onPlanned?.(7);
    for (const result of sampleResults) observer.onResult?.(result);
    observer.end();
    expect(out.text).toContain('\r\x1b[2K[7/7]');
    expect(out.text).toContain('FAIL kv.fail');
    expect(out.text.endsWith('\r\x1b[2K')).toBe(true);
  });
});

describe('load on the console', () => {
  test('the summary ends with a latency table: a row per scenario and per tag set, columns aligned', () => {
    const lines = latencyTableLines(sampleLoadRun);
    expect(lines[0]).toMatch(/^ {2}latency \(ms\) +count +min +p50 +p90 +p99 +p99\.9 +max$/);
    const names = lines.slice(1).map((line) => line.trim().split(/ {2,}/)[0]);
    expect(names).toEqual(expect.arrayContaining(sampleLoadRun.scenarios.map((scenario) => scenario.name)));
    const command = sampleLoadRun.scenarios[0]!;
    const row = lines.find((line) => line.trim().startsWith(`${command.name} `))!;
    expect(row.trim().split(/ +/).slice(1)).toEqual(
      [
        command.latencyMs.count,
        command.latencyMs.min,
        command.latencyMs.p50,
        command.latencyMs.p90,
        command.latencyMs.p99,
        command.latencyMs.p999,
        command.latencyMs.max,
      ].map(String),
    );
    // Right-aligned columns: every row ends where the header ends.
    expect(lines.every((line) => line.length === lines[0]!.length)).toBe(true);
    expect(renderRunSummary(sampleHarnessRun('/tmp/r'), [], false)).toContain(lines.join('\n'));
  });

  test('the live p99 says it is of the last second', () => {
    expect(
      progressText({
        scenario: 'command',
        elapsedS: 12.4,
        durationS: 30,
        rate: 998,
        p99Ms: 4.1,
        errors: 0,
        dropped: 0,
      }),
    ).toBe('command: 12/30 s · 998 req/s · p99 (last second) 4.1 ms · errors 0 · dropped 0');
  });
});

describe('console summary of a run cut short', () => {
  test('many errors with one reason take one line', () => {
    const error = { kind: 'error', reason: 'not run: the run was interrupted' } as const;
    const cases = Array.from({ length: 5 }, (_, index) => ({
      ...sampleResults[0]!,
      caseId: `kv.c${index}`,
      verdict: error,
    }));
    const target = { ...sampleRun.targets[0]!, cases };
    const text = renderConsoleSummary({ ...sampleRun, targets: [target], results: cases });
    expect(text).toContain('  ERROR 5 cases: not run: the run was interrupted\n');
    expect(text).not.toContain('kv.c0');
  });
});
