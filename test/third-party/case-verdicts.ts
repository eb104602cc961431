/**
 * A run's verdicts as one row per case, the form the checked-in verdict tables of third-party
 * implementations are kept in: the verdict kind and the rule it blames (a failure's or a block's rule,
 * an observation's when it names one). Kept per case, not per rule, so that a case blaming the wrong
 * rule shows as a difference even where another case already breaks that rule.
 */
import type { CaseResult } from '../../src/results/conformance-run.ts';
import type { Verdict } from '../../src/results/verdict.ts';

export type VerdictKind = Verdict['kind'];

/** What a case measured: its verdict kind and the rule blamed, if any. */
export interface MeasuredVerdict {
  readonly verdict: VerdictKind;
  readonly rule?: string;
}

/** One reviewed row of a table: the measured verdict and why it is right, against the spec. */
export interface ReviewedVerdict extends MeasuredVerdict {
  readonly reason: string;
}

export interface VerdictTable {
  readonly implementation: string;
  readonly version: string;
  readonly cases: Readonly<Record<string, ReviewedVerdict>>;
}

/** A row written by the update mode and not yet reviewed: its reason starts with this. */
export const unreviewed = 'UNREVIEWED';

export function measuredVerdicts(results: readonly CaseResult[]): Record<string, MeasuredVerdict> {
  const rows: Record<string, MeasuredVerdict> = {};
  for (const result of [...results].sort((a, b) => a.caseId.localeCompare(b.caseId))) {
    const rule = 'rule' in result.verdict ? result.verdict.rule : undefined;
    rows[result.caseId] = { verdict: result.verdict.kind, ...(rule !== undefined && { rule }) };
  }
  return rows;
}

const show = (row: MeasuredVerdict | undefined) =>
  row === undefined ? 'missing' : `${row.verdict}${row.rule === undefined ? '' : ` [${row.rule}]`}`;

const same = (a: MeasuredVerdict | undefined, b: MeasuredVerdict | undefined) =>
  a !== undefined && b !== undefined && a.verdict === b.verdict && a.rule === b.rule;

/** One line per case whose measured verdict or blamed rule differs from the table, or that is in one only. */
export function tableDifferences(
  table: VerdictTable,
  measured: Readonly<Record<string, MeasuredVerdict>>,
  reasonOf: (caseId: string) => string = () => '',
): string[] {
  const ids = [...new Set([...Object.keys(table.cases), ...Object.keys(measured)])].sort();
  return ids
    .filter((id) => !same(table.cases[id], measured[id]))
    .map((id) => {
      const why = reasonOf(id);
      return `${id}: measured ${show(measured[id])}, table ${show(table.cases[id])}${why ? ` (${why})` : ''}`;
    });
}

/**
 * The table updated to a run: a row whose verdict and rule did not change keeps its reviewed reason;
 * a new or changed row gets `UNREVIEWED: <the verdict's reason>` to be reviewed against the spec by
 * hand; rows of cases that no longer exist are dropped.
 */
export function updatedTable(
  table: VerdictTable,
  measured: Readonly<Record<string, MeasuredVerdict>>,
  reasonOf: (caseId: string) => string,
): VerdictTable {
  const cases: Record<string, ReviewedVerdict> = {};
  for (const [id, row] of Object.entries(measured)) {
    const old = table.cases[id];
    cases[id] = same(old, row) && old ? old : { ...row, reason: `${unreviewed}: ${reasonOf(id)}` };
  }
  return { ...table, cases };
}
