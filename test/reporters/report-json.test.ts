import { describe, expect, test } from 'vitest';
import { renderReportJson, reportDocument } from '../../src/reporters/report-json.ts';
import { gateOf } from '../../src/results/conformance-run.ts';
import { conformanceOnly } from '../../src/results/harness-run.ts';
import { sampleCatalog, sampleRun, wrongTokenResults } from './sample-run.ts';

describe('report.json', () => {
  const document = reportDocument(conformanceOnly(sampleRun), sampleCatalog, '9.9.9');

  test('keys come in a fixed order', () => {
    expect(Object.keys(document)).toEqual([
      'schemaVersion',
      'tool',
      'startedAt',
      'finishedAt',
      'durationMs',
      'exitCode',
      'gate',
      'aborted',
      'problems',
      'settings',
      'totals',
      'targets',
      'rules',
    ]);
    expect(Object.keys(document.targets![0]?.cases[0] ?? {})).toEqual([
      'id',
      'area',
      'file',
      'title',
      'expect',
      'rules',
      'verdict',
      'notes',
      'durationMs',
    ]);
  });

  test('totals count each verdict kind', () => {
    expect(document.totals).toEqual({
      total: 7,
      pass: 1,
      fail: 1,
      stale: 1,
      error: 1,
      blocked: 0,
      'expected-failure': 1,
      observation: 1,
      skip: 1,
    });
    expect(document.gate).toBe('failed');
    expect(document.settings).toEqual({
      areas: ['kv'],
      rules: 'B.*',
      expectations: null,
      faults: ['some-fault'],
      silences: [],
      orderSeed: null,
    });
  });

  test('rules × verdicts covers the run areas only', () => {
    expect(document.rules!.map((rule) => rule.id)).toEqual(['B.a', 'B.b', 'B.o']);
    // kv.fail names B.a and B.b and failed on B.b: it counts for B.b alone.
    expect(document.rules!.find((rule) => rule.id === 'B.b')?.totals).toMatchObject({ fail: 1 });
    expect(document.rules!.find((rule) => rule.id === 'B.a')?.totals).toMatchObject({
      total: 3,
      pass: 1,
      fail: 0,
      stale: 1,
      error: 1,
    });
  });

  test('a fail keeps its rule; a pass has only its kind', () => {
    const [pass, fail] = document.targets![0]?.cases ?? [];
    expect(pass?.verdict).toEqual({ kind: 'pass' });
    expect(fail?.verdict).toEqual({ kind: 'fail', reason: 'received <400> & "x" / expected 200 | y', rule: 'B.b' });
  });

  test('each target says its root cause, or null', () => {
    expect(document.targets![0]?.rootCause).toBeNull();
    const cases = wrongTokenResults(9, 1);
    const run = { ...sampleRun, targets: [{ ...sampleRun.targets[0]!, cases }], results: cases };
    const [target] = reportDocument(conformanceOnly(run), sampleCatalog, '9.9.9').targets ?? [];
    expect(target?.rootCause).toEqual({
      cause: 'status 401',
      cases: 9,
      of: 10,
      hint: 'check the token or credentials the target gives',
      line: 'root cause: ref: 9 of 10 cases that failed, blocked or ended in error saw status 401: check the token or credentials the target gives',
    });
  });

  test('renders the same bytes for the same run, ending with a newline', () => {
    const text = renderReportJson(conformanceOnly(sampleRun), sampleCatalog, '9.9.9');
    expect(text).toBe(renderReportJson(conformanceOnly(sampleRun), sampleCatalog, '9.9.9'));
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(document)));
  });

  test('gate names follow the exit code', () => {
    expect([0, 1, 2].map(gateOf)).toEqual(['passed', 'failed', 'error']);
  });
});
