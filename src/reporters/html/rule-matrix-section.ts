/**
 * Rules × implementations (after wpt.fyi's and Bowtie's tables), when a conformance run had several
 * targets: a row per rule, a column per target, the rules where the implementations disagree first
 * and marked. A cell that did not pass links to its first case's details on the page.
 */
import type { ConformanceRun } from '../../results/conformance-run.ts';
import { type RuleCell, ruleMatrix, statedCases } from '../../results/rule-states.ts';
import { caseAnchor } from '../failures.ts';
import type { Text } from './markup.ts';

const word: Readonly<Record<RuleCell['state'], string>> = {
  pass: '✓ pass',
  fail: '✗ fail',
  blocked: '◌ blocked',
  other: 'observed',
};

export function ruleMatrixSection(t: Text, run: ConformanceRun): string {
  if (run.targets.length < 2) return '';
  const targets = run.targets.map((target) => target.name);
  const rows = ruleMatrix(statedCases(run.results), targets);
  const disagreeing = rows.filter((row) => row.disagree).length;
  const cellHtml = (target: string, cell: RuleCell | undefined) => {
    if (cell === undefined) return '<td class="quiet">–</td>';
    const title = t(cell.cases.join(', '));
    const text = word[cell.state];
    const first = cell.cases[0];
    const linked =
      cell.state === 'fail' || cell.state === 'blocked'
        ? first === undefined
          ? text
          : `<a href="#${t(caseAnchor(target, first))}">${text}</a>`
        : text;
    const className = cell.state === 'fail' ? 'bad' : cell.state === 'pass' ? 'ok' : 'quiet';
    return `<td class="${className}" title="${title}">${linked}</td>`;
  };
  const body = rows
    .map(
      (row) =>
        `<tr${row.disagree ? ' class="disagree"' : ''}><td>${row.disagree ? '⚠ ' : ''}<code>${t(row.rule)}</code></td>${row.cells
          .map((cell, index) => cellHtml(targets[index] ?? '', cell))
          .join('')}</tr>`,
    )
    .join('\n');
  return [
    '<div class="matrix">',
    `<h3>Rules × implementations <small class="quiet">${disagreeing} of ${rows.length} rules where they disagree, first</small></h3>`,
    '<style>.matrix tr.disagree td{background:#fff3cd}</style>',
    `<table><thead><tr><th>rule</th>${targets.map((target) => `<th>${t(target)}</th>`).join('')}</tr></thead><tbody>\n${body}\n</tbody></table>`,
    '</div>',
  ].join('\n');
}
