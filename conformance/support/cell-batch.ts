/**
 * Many cells judged in one case (issue 20: batch cells where one oracle judges them): each cell's
 * check runs, at most 8 at a time, its failure is kept, and the case then fails once on the first
 * failure, naming how many cells failed and under which rules. Notes (silent cells) are recorded,
 * grouped by text.
 */
import { type CaseContext, CheckFailure, isCheckFailure } from '../../src/suite-kit/suite-api.ts';
import { mapLimit } from './bounded.ts';

export interface BatchCell {
  /** Names the cell in the failure: `base64 reply string-array`. */
  readonly name: string;
  /** Throws CheckFailure on a broken rule; returns a note where the spec is silent. */
  check(): Promise<string | undefined>;
}

const concurrency = 8;

export async function runCells(ctx: CaseContext, cells: readonly BatchCell[]): Promise<void> {
  const outcomes = await mapLimit(cells, concurrency, async (cell) => {
    try {
      return { cell, note: await cell.check() };
    } catch (error) {
      if (!isCheckFailure(error)) throw error;
      return { cell, failure: error };
    }
  });
  const notes = new Map<string, string[]>();
  for (const { cell, note } of outcomes)
    if (note !== undefined) notes.set(note, [...(notes.get(note) ?? []), cell.name]);
  for (const [note, names] of notes) {
    ctx.observe(`${note} (${names.length} cells: ${names.slice(0, 3).join('; ')}${names.length > 3 ? '; …' : ''})`);
  }
  const failed = outcomes.filter((outcome) => outcome.failure !== undefined);
  const first = failed[0];
  if (first?.failure === undefined) return;
  const rules = [...new Set(failed.map((outcome) => outcome.failure?.rule))].join(', ');
  throw new CheckFailure(
    first.failure.rule,
    first.failure.received,
    first.failure.expected,
    `${failed.length}/${cells.length} cells failed (rules ${rules}); first: ${first.cell.name}${first.failure.message.includes(': received') ? `, ${first.failure.message.split(': received')[0]}` : ''}`,
  );
}
