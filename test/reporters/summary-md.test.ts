import { describe, expect, test } from 'vitest';
import { cell, renderSummaryMarkdown } from '../../src/reporters/summary-md.ts';
import { conformanceOnly } from '../../src/results/harness-run.ts';
import { fanoutEndpoints, sampleHarnessRun, sampleLoadRun } from './sample-load-run.ts';
import { sampleCatalog, sampleExchange, sampleRun, wrongTokenResults } from './sample-run.ts';

describe('summary.md', () => {
  const text = renderSummaryMarkdown(conformanceOnly(sampleRun), sampleCatalog);

  test('states the gate and the totals per target', () => {
    expect(text).toContain('Gate: **failed** (exit code 1)');
    expect(text).toContain(
      '| target | pass | fail | stale | error | blocked | expected-failure | observation | skip | total |',
    );
    expect(text).toContain('| ref | 1 | 1 | 1 | 1 | 0 | 1 | 1 | 1 | 7 |');
  });

  test('has a rules × verdicts table per target', () => {
    expect(text).toContain('## ref (embedded reference)');
    // kv.fail failed on B.b, so B.a counts no failure of it.
    expect(text).toContain('| `B.a` | MUST | 1 | 0 | 1 | 1 | 0 | 0 | 0 | 0 | 3 |');
    expect(text).toContain('| `B.b` | MUST | 0 | 1 | 0 | 0 | 0 | 1 | 0 | 1 | 3 |');
    expect(text).toContain('| `B.o` | OBSERVE | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 1 |');
    expect(text).not.toContain('A.x');
  });

  test('leads with the cases that failed the gate, each linked to its details with the command to run it again', () => {
    const top = text.slice(0, text.indexOf('| target |'));
    expect(top).toContain('Cases failed (3):');
    expect(top).toContain(
      '- [`kv.fail`](#case-ref--kv.fail) fail on `B.b`: received <400> & "x" / expected 200 \\| y · re-run: `npx svc-harness conformance --area kv --rules \'B.b\'`',
    );
    expect(top).toMatch(/\[`kv\.stale`\]\(#case-ref--kv\.stale\) stale/);
    expect(top).toMatch(/\[`kv\.error`\]\(#case-ref--kv\.error\) error/);
    expect(top).not.toMatch(/kv\.(pass|skip|observe|xfail)/);
    // Each link lands on an anchor further down.
    expect(text.indexOf('<a id="case-ref--kv.fail"></a>')).toBeGreaterThan(text.indexOf('| target |'));
  });

  test('lists every case that did not pass, pipes escaped', () => {
    expect(text).toContain('| `kv.fail` | B.a, B.b | fail | received <400> & "x" / expected 200 \\| y |');
    expect(text).not.toContain('| `kv.pass` |');
  });

  test('a failure carries the request to reproduce it, in a collapsed block, and the answer it got', () => {
    const block = text.slice(
      text.indexOf('<details><summary><code>kv.fail</code> fail: the request to reproduce it</summary>'),
    );
    expect(block).not.toBe(text);
    expect(block).toContain(`\`\`\`sh\n${sampleExchange.curl}\n\`\`\``);
    expect(block).toContain(`\`\`\`\n${sampleExchange.answer}\n\`\`\``);
    expect(block.indexOf('</details>')).toBeGreaterThan(0);
  });

  test('failed thresholds are listed under the gate, before any table', () => {
    const withLoad = renderSummaryMarkdown(sampleHarnessRun('/tmp/r'), sampleCatalog);
    const failed = sampleLoadRun.scenarios.flatMap((scenario) =>
      scenario.thresholds.filter((threshold) => !threshold.ok).map((threshold) => ({ scenario, threshold })),
    );
    expect(failed.length).toBeGreaterThan(0);
    const at = withLoad.indexOf('Thresholds failed:');
    expect(at).toBeGreaterThan(withLoad.indexOf('Gate: '));
    expect(at).toBeLessThan(withLoad.indexOf('| target |'));
    for (const { scenario, threshold } of failed) {
      const line = `- \`${scenario.name}\`: \`${threshold.expression}\` failed (value ${threshold.value ?? 'no data'})`;
      expect(withLoad.indexOf(line)).toBeGreaterThan(at);
      expect(withLoad.indexOf(line)).toBeLessThan(withLoad.indexOf('| target |'));
    }
    expect(text).not.toContain('Thresholds failed:');
  });

  test('a root cause most failures share is stated before the tables', () => {
    const cases = wrongTokenResults(10, 1);
    const run = { ...sampleRun, targets: [{ ...sampleRun.targets[0]!, cases }], results: cases };
    const withCause = renderSummaryMarkdown(conformanceOnly(run), sampleCatalog);
    const line =
      '**root cause: ref: 10 of 11 cases that failed, blocked or ended in error saw status 401: check the token';
    expect(withCause).toContain(line);
    expect(withCause.indexOf(line)).toBeLessThan(withCause.indexOf('| target |'));
    expect(text).not.toContain('root cause');
  });

  test('cells hold no line breaks or bare pipes', () => {
    expect(cell('a|b\nc')).toBe('a\\|b c');
  });

  test('an aborted run and problems are stated', () => {
    const aborted = renderSummaryMarkdown(
      conformanceOnly({ ...sampleRun, aborted: 'interrupted (SIGINT)', problems: ['target down'] }),
      sampleCatalog,
    );
    expect(aborted).toContain('The run stopped early: interrupted (SIGINT)');
    expect(aborted).toContain('- target down');
  });
});

describe('summary.md of messaging load', () => {
  const text = renderSummaryMarkdown(
    { ...sampleHarnessRun('/tmp/unused'), conformance: undefined, load: sampleLoadRun },
    sampleCatalog,
  );
  // The rows of the messaging table only (the thresholds' table names the scenarios too).
  const messagingPart = text.slice(text.indexOf('Messaging accounting'));
  const rows = (scenario: string) => messagingPart.split('\n').filter((line) => line.startsWith(`| \`${scenario}\` |`));

  test('a row per stream with exact counts, then one per endpoint', () => {
    const fanout = sampleLoadRun.scenarios.find((scenario) => scenario.name === 'publish-fanout')!;
    const accepted = fanout.accounting.messaging!.accepted;
    const expected = accepted * fanoutEndpoints;
    expect(text).toContain(
      '| scenario | stream | expected | received | lost | duplicated | unexpected | bad signatures | p50 ms | p99 ms | accounting |',
    );
    const streamRows = rows('publish-fanout').filter((line) => line.includes(' | delivery | '));
    expect(streamRows).toHaveLength(1);
    expect(streamRows[0]).toMatch(
      new RegExp(
        `^\\| \`publish-fanout\` \\| delivery \\| ${expected} \\| ${expected - 3} \\| 3 \\| 2 \\| 0 \\| 0 \\| [\\d.]+ \\| [\\d.]+ \\| \\*\\*not exact\\*\\* \\|$`,
      ),
    );
    const endpoints = rows('publish-fanout').filter((line) => line.includes('delivery endpoint:'));
    expect(endpoints.map((line) => line.split(' | ')[1])).toEqual(
      Array.from({ length: fanoutEndpoints }, (_, index) => `delivery endpoint:e${index}`),
    );
    expect(endpoints[2]).toContain(`| ${accepted} | ${accepted - 3} | 3 | 0 | – | – |`);
    expect(endpoints[0]).toMatch(/\| exact \|$/);
  });

  test('callbacks and failure callbacks have rows of their own; the sink facts follow', () => {
    expect(rows('callback-throughput').map((line) => line.split(' | ')[1])).toEqual([
      'delivery',
      'callbacks',
      'failure callbacks',
    ]);
    expect(rows('callback-throughput')[2]).toMatch(/\| 0 \| 1 \| [\d.]+ \| [\d.]+ \| \*\*not exact\*\* \|$/);
    expect(text).toMatch(
      /- `publish-fanout`: \d+ accepted; waited 0\.4 s after the load; strays \(requests to no open inbox\) 1; unclassified 0; signatures \d+ verified, 0 failed/,
    );
  });

  test('a run without messaging scenarios has no messaging table', () => {
    const kvOnly = { ...sampleLoadRun, scenarios: sampleLoadRun.scenarios.slice(0, 4) };
    const plain = renderSummaryMarkdown(
      { ...sampleHarnessRun('/tmp/unused'), conformance: undefined, load: kvOnly },
      sampleCatalog,
    );
    expect(plain).not.toContain('Messaging accounting');
  });
});
