import { describe, expect, test } from 'vitest';
import type { CaseResult } from '../../src/results/conformance-run.ts';
import { measuredVerdicts, tableDifferences, updatedTable, type VerdictTable } from './case-verdicts.ts';

const result = (caseId: string, verdict: CaseResult['verdict']) => ({ caseId, verdict }) as CaseResult;

const table: VerdictTable = {
  implementation: 'x',
  version: '1',
  cases: {
    'kv.a': { verdict: 'fail', rule: 'B.status.unsupported-400', reason: 'reviewed a' },
    'kv.b': { verdict: 'pass', reason: 'reviewed b' },
    'kv.gone': { verdict: 'pass', reason: 'reviewed gone' },
  },
};

describe('per-case verdict tables', () => {
  test('a case blaming another rule is a difference, even with the same verdict kind', () => {
    const measured = measuredVerdicts([
      result('kv.a', { kind: 'fail', reason: 'r', rule: 'B.commands.cluster-refused' }),
      result('kv.b', { kind: 'pass' }),
      result('kv.gone', { kind: 'pass' }),
    ]);
    expect(tableDifferences(table, measured)).toEqual([
      'kv.a: measured fail [B.commands.cluster-refused], table fail [B.status.unsupported-400]',
    ]);
  });

  test('new and vanished cases are differences; equal rows are not', () => {
    const measured = measuredVerdicts([
      result('kv.a', { kind: 'fail', reason: 'r', rule: 'B.status.unsupported-400' }),
      result('kv.b', { kind: 'pass' }),
      result('kv.new', { kind: 'blocked', reason: 'r', rule: 'B.methods.allowed' }),
    ]);
    expect(tableDifferences(table, measured, (id) => `why ${id}`)).toEqual([
      'kv.gone: measured missing, table pass (why kv.gone)',
      'kv.new: measured blocked [B.methods.allowed], table missing (why kv.new)',
    ]);
  });

  test('the update keeps reviewed reasons of unchanged rows and marks the others unreviewed', () => {
    const measured = measuredVerdicts([
      result('kv.a', { kind: 'fail', reason: 'r', rule: 'B.commands.cluster-refused' }),
      result('kv.b', { kind: 'pass' }),
    ]);
    const updated = updatedTable(table, measured, (id) => `seen ${id}`);
    expect(updated.cases).toEqual({
      'kv.a': { verdict: 'fail', rule: 'B.commands.cluster-refused', reason: 'UNREVIEWED: seen kv.a' },
      'kv.b': { verdict: 'pass', reason: 'reviewed b' },
    });
  });
});
