import { describe, expect, test } from 'vitest';
import { cell, renderSummaryMarkdown } from '../../src/reporters/summary-md.ts';
import { conformanceOnly } from '../../src/results/harness-run.ts';
import { sampleCatalog, sampleRun, wrongTokenResults } from './sample-run.ts';

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

  test('lists every case that did not pass, pipes escaped', () => {
    expect(text).toContain('| `kv.fail` | B.a, B.b | fail | received <400> & "x" / expected 200 \\| y |');
    expect(text).not.toContain('| `kv.pass` |');
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
