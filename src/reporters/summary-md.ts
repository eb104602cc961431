/** summary.md: totals per target, a table of rules × verdicts, and every case that did not pass. */

import { join } from 'node:path';
import { type ConformanceRun, gateOf, totalsOf, type VerdictTotals, verdictKinds } from '../results/conformance-run.ts';
import type { Reporter } from '../results/reporter.ts';
import type { RuleCatalog } from '../results/rule.ts';
import { writeReportFile } from '../shared/report-files.ts';
import { ruleVerdicts } from './rule-verdicts.ts';

/** A table cell: no pipes or line breaks may escape it. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replaceAll('|', '\\|');
}

function row(cells: readonly (string | number)[]): string {
  return `| ${cells.map((value) => cell(String(value))).join(' | ')} |`;
}

function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string[] {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)];
}

const counts = (totals: VerdictTotals) => [...verdictKinds.map((kind) => totals[kind]), totals.total];

export function renderSummaryMarkdown(run: ConformanceRun, catalog: RuleCatalog): string {
  const lines = [
    '# Conformance summary',
    '',
    `Gate: **${gateOf(run.exitCode)}** (exit code ${run.exitCode}) · started ${run.startedAt} · ${(run.durationMs / 1000).toFixed(1)} s`,
    '',
  ];
  if (run.aborted) lines.push(`The run stopped early: ${cell(run.aborted)}`, '');
  if (run.problems.length > 0) lines.push('Problems:', '', ...run.problems.map((problem) => `- ${cell(problem)}`), '');
  lines.push(
    ...table(
      ['target', ...verdictKinds, 'total'],
      run.targets.map((target) => [target.name, ...counts(totalsOf(target.cases))]),
    ),
    '',
  );
  for (const target of run.targets) {
    lines.push(`## ${cell(target.name)}${target.embedded ? ' (embedded reference)' : ''}`, '');
    if (target.problem) lines.push(`Not run: ${cell(target.problem)}`, '');
    const rules = ruleVerdicts(catalog.rules, target.areas, target.cases);
    lines.push(
      ...table(
        ['rule', 'level', ...verdictKinds, 'cases'],
        rules.map(({ rule, totals }) => [`\`${rule.id}\``, rule.level, ...counts(totals)]),
      ),
      '',
    );
    const notPassing = target.cases.filter((result) => result.verdict.kind !== 'pass');
    if (notPassing.length > 0) {
      lines.push(
        ...table(
          ['case', 'rules', 'verdict', 'why'],
          notPassing.map((result) => [
            `\`${result.caseId}\``,
            result.rules.join(', '),
            result.verdict.kind,
            'reason' in result.verdict ? result.verdict.reason : '',
          ]),
        ),
        '',
      );
    }
  }
  return `${lines.join('\n')}`;
}

/** The `markdown` reporter: summary.md in the run's report folder. */
export function createMarkdownReporter(): Reporter {
  const file = 'summary.md';
  return {
    name: 'markdown',
    file,
    onRunEnd: (run, { catalog, redact }) =>
      writeReportFile(join(run.reportDir, file), redact(renderSummaryMarkdown(run, catalog))),
  };
}
