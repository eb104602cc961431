/**
 * The score: per family and area, how many mutants were tried, fired, caught, survived (not counting
 * those documented as equivalent), judged equivalent, errored, or did not fire; then every survivor
 * with what it changed. A renderer: results in, text out.
 */

import { equivalenceOf } from './equivalent.ts';
import type { MutantResult } from './mutant-run.ts';
import { families } from './operator.ts';

export interface ScoreRow {
  readonly family: string;
  readonly area: string;
  readonly tried: number;
  readonly fired: number;
  readonly caught: number;
  readonly survived: number;
  readonly equivalent: number;
  readonly error: number;
  readonly notFired: number;
}

function rowOf(family: string, area: string, results: readonly MutantResult[]): ScoreRow {
  const fired = results.filter((item) => item.outcome !== 'not-fired');
  const survivors = results.filter((item) => item.outcome === 'survived');
  const equivalent = survivors.filter((item) => equivalenceOf(item.mutant.id) !== undefined).length;
  return {
    family,
    area,
    tried: results.length,
    fired: fired.length,
    caught: results.filter((item) => item.outcome === 'caught').length,
    survived: survivors.length - equivalent,
    equivalent,
    error: results.filter((item) => item.outcome === 'error').length,
    notFired: results.length - fired.length,
  };
}

export function scoreRows(results: readonly MutantResult[]): ScoreRow[] {
  const rows: ScoreRow[] = [];
  const areas = [...new Set(results.map((item) => item.mutant.area))].sort();
  for (const family of families) {
    for (const area of areas) {
      const mine = results.filter((item) => item.mutant.family === family && item.mutant.area === area);
      if (mine.length > 0) rows.push(rowOf(family, area, mine));
    }
  }
  rows.push(rowOf('all', 'all', results));
  return rows;
}

const columns = ['family', 'area', 'tried', 'fired', 'caught', 'survived', 'equivalent', 'error', 'not fired'] as const;

export function renderScore(results: readonly MutantResult[]): string {
  const rows = scoreRows(results).map((row) => [
    row.family,
    row.area,
    String(row.tried),
    String(row.fired),
    String(row.caught),
    String(row.survived),
    String(row.equivalent),
    String(row.error),
    String(row.notFired),
  ]);
  const widths = columns.map((name, index) => Math.max(name.length, ...rows.map((row) => (row[index] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  const total = scoreRows(results).at(-1) as ScoreRow;
  const judged = total.caught + total.survived;
  const percent = judged === 0 ? 100 : Math.round((total.caught / judged) * 1000) / 10;
  const out = [
    line(columns),
    ...rows.map(line),
    '',
    `mutation score: ${total.caught} caught of ${judged} fired non-equivalent mutants that judged (${percent}%)`,
  ];
  const survivors = results.filter(
    (item) => item.outcome === 'survived' && equivalenceOf(item.mutant.id) === undefined,
  );
  if (survivors.length > 0) {
    out.push('', 'survivors:');
    for (const item of survivors) {
      out.push(
        `  ${item.mutant.id}: ${item.mutant.what}; changed ${item.changed.join('; ')} (cases: ${item.mutant.cases.join(', ')})`,
      );
      for (const note of item.detail) out.push(`    ${note}`);
    }
  }
  // A mutant the spec cannot tell from the original, yet a case failed: the case may judge what the
  // spec leaves open (or a set-up step failed on its own rule instead of blocking).
  const overAsserted = results.filter(
    (item) => item.outcome === 'caught' && equivalenceOf(item.mutant.id) !== undefined,
  );
  if (overAsserted.length > 0) {
    out.push('', 'caught although documented as equivalent (an over-assertion?):');
    for (const item of overAsserted) {
      out.push(`  ${item.mutant.id}: ${equivalenceOf(item.mutant.id)}; failed ${item.detail.join(', ')}`);
    }
  }
  const errors = results.filter((item) => item.outcome === 'error');
  if (errors.length > 0) {
    out.push('', 'errors (the run did not judge; not a catch):');
    for (const item of errors) out.push(`  ${item.mutant.id}: ${item.detail.join('; ')}`);
  }
  const notFired = results.filter((item) => item.outcome === 'not-fired');
  if (notFired.length > 0) out.push('', `not fired: ${notFired.map((item) => item.mutant.id).join(', ')}`);
  return `${out.join('\n')}\n`;
}
