/**
 * `svc-harness compare BASELINE CURRENT`: two reports (folders or report.json files) compared as
 * `--baseline` compares a run; prints the table (or JSON), writes compare.json and compare.md with
 * --report-dir, exits 98 on a regression.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { compareDocument } from '../../reporters/compare-document.ts';
import { comparisonConsole, comparisonMarkdown } from '../../reporters/compare-text.ts';
import { compareReports } from '../../results/compare.ts';
import { ExitCode, harnessError } from '../../shared/errors.ts';
import { writeReportFile } from '../../shared/report-files.ts';
import type { CommandValues } from '../command-table.ts';
import { parseTolerances } from '../compare-flags.ts';
import { readComparableReport } from '../compare-input.ts';

export async function run(values: CommandValues<'compare'>): Promise<number> {
  const [baselinePath, currentPath, ...more] = values._;
  if (baselinePath === undefined || currentPath === undefined || more.length > 0) {
    throw harnessError(
      'SVC_USAGE',
      `compare: expected BASELINE CURRENT (two report folders or report.json files), got ${values._.length}`,
    );
  }
  const tolerances = parseTolerances(values.tolerance ?? []);
  const baseline = readComparableReport(baselinePath, 'baseline');
  const current = readComparableReport(currentPath, 'current report');
  const comparison = compareReports(baseline, current, { tolerances });
  const text =
    values.json === true
      ? `${JSON.stringify(compareDocument(comparison), null, 2)}\n`
      : `${comparisonConsole(comparison).join('\n')}\n`;
  process.stdout.write(text);
  if (values['report-dir'] !== undefined) {
    const dir = resolve(values['report-dir']);
    await mkdir(dir, { recursive: true });
    await writeReportFile(join(dir, 'compare.json'), `${JSON.stringify(compareDocument(comparison), null, 2)}\n`);
    await writeReportFile(join(dir, 'compare.md'), `${comparisonMarkdown(comparison).join('\n')}\n`);
  }
  return comparison.regressed ? ExitCode.regressed : ExitCode.ok;
}
