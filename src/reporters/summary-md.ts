/** summary.md: totals per target, a table of rules × verdicts, and every case that did not pass. */

import { join } from 'node:path';
import {
  type CaseResult,
  type ConformanceRun,
  gateOf,
  totalsOf,
  type VerdictTotals,
  verdictKinds,
} from '../results/conformance-run.ts';
import type { HarnessRun } from '../results/harness-run.ts';
import type { Reporter } from '../results/reporter.ts';
import { rootCauseLines } from '../results/root-cause.ts';
import type { RuleCatalog } from '../results/rule.ts';
import { type RuleCell, ruleMatrix, statedCases } from '../results/rule-states.ts';
import { excerpt } from '../shared/excerpt.ts';
import { writeReportFile } from '../shared/report-files.ts';
import { comparisonMarkdown } from './compare-text.ts';
import { caseAnchor, failedCases } from './failures.ts';
import { loadMarkdown } from './load-markdown.ts';
import { cell, table } from './markdown-table.ts';
import { regionsMarkdown } from './regions-text.ts';
import { ruleVerdicts } from './rule-verdicts.ts';

/** A table cell: no pipes or line breaks may escape it. */
export { cell };

const counts = (totals: VerdictTotals) => [...verdictKinds.map((kind) => totals[kind]), totals.total];

/** The run: its gate, then the conformance part and the load part, whichever ran. */
export function renderSummaryMarkdown(run: HarnessRun, catalog: RuleCatalog): string {
  const title = run.conformance && run.load ? 'Run' : run.load ? 'Load' : run.regions ? 'Regions' : 'Conformance';
  const lines = [
    `# ${title} summary`,
    '',
    `Gate: **${gateOf(run.exitCode)}** (exit code ${run.exitCode}) · started ${run.startedAt} · ${(run.durationMs / 1000).toFixed(1)} s`,
    '',
  ];
  // The shared cause of most failures first, before the tables that list them one by one.
  const causes = run.conformance ? rootCauseLines(run.conformance) : [];
  if (causes.length > 0) lines.push(...causes.map((line) => `**${cell(line)}**`), '');
  // Every case that failed the gate, first, each linked to its details and with the command to run it again.
  const failed = run.conformance ? failedCases(run.conformance) : [];
  if (failed.length > 0) {
    lines.push(
      `Cases failed (${failed.length}):`,
      '',
      ...failed.map(
        ({ result, rule, anchor, rerun }) =>
          `- [\`${cell(result.caseId)}\`](#${anchor}) ${result.verdict.kind} on \`${cell(rule)}\`${'reason' in result.verdict ? `: ${cell(excerpt(result.verdict.reason, 240))}` : ''} · re-run: \`${cell(rerun)}\``,
      ),
      '',
    );
  }
  // What failed the load's gate, before any table: the reader looks for it first.
  const failedThresholds = (run.load?.scenarios ?? []).flatMap((scenario) =>
    scenario.thresholds
      .filter((threshold) => !threshold.ok)
      .map(
        (threshold) =>
          `- \`${scenario.name}\`: \`${threshold.expression}\` failed (value ${threshold.value === null ? 'no data' : threshold.value})`,
      ),
  );
  if (failedThresholds.length > 0) lines.push('Thresholds failed:', '', ...failedThresholds, '');
  // Against the baseline, next: a regression is what a release pipeline reads this file for.
  if (run.compare) lines.push(...comparisonMarkdown(run.compare));
  if (run.regions) lines.push(...regionsMarkdown(run.regions));
  if (run.aborted) lines.push(`The run stopped early: ${cell(run.aborted)}`, '');
  if (run.problems.length > 0) lines.push('Problems:', '', ...run.problems.map((problem) => `- ${cell(problem)}`), '');
  if (run.conformance) {
    if (run.load) lines.push('## Conformance', '');
    lines.push(...conformanceMarkdown(run.conformance, catalog, run.load ? '###' : '##'));
  }
  if (run.load) lines.push(...loadMarkdown(run.load, run.conformance ? '##' : ''));
  return `${lines.join('\n')}`;
}

function conformanceMarkdown(run: ConformanceRun, catalog: RuleCatalog, heading: string): string[] {
  const lines: string[] = [];
  lines.push(
    ...table(
      ['target', ...verdictKinds, 'total'],
      run.targets.map((target) => [target.name, ...counts(totalsOf(target.cases))]),
    ),
    '',
  );
  lines.push(...ruleMatrixMarkdown(run, heading));
  for (const target of run.targets) {
    lines.push(`${heading} ${cell(target.name)}${target.embedded ? ' (embedded reference)' : ''}`, '');
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
        ...notPassing.flatMap(reproduction),
      );
    }
  }
  return lines;
}

/** A fence longer than any run of backticks in `text`, so the block cannot be closed from inside. */
function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

/** A collapsed block with the request behind a case that did not pass, as curl, and the answer's start. */
function reproduction(result: CaseResult): string[] {
  if (result.exchange === undefined) return [`<a id="${caseAnchor(result.target, result.caseId)}"></a>`, ''];
  const { curl, answer } = result.exchange;
  return [
    `<a id="${caseAnchor(result.target, result.caseId)}"></a>`,
    '',
    `<details><summary><code>${cell(result.caseId)}</code> ${result.verdict.kind}: the request to reproduce it</summary>`,
    '',
    `${fence(curl)}sh`,
    curl,
    fence(curl),
    '',
    fence(answer),
    answer,
    fence(answer),
    '',
    '</details>',
    '',
  ];
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

/** Rules × implementations, when the run had several targets: disagreements in a table, agreement folded. */
function ruleMatrixMarkdown(run: ConformanceRun, heading: string): string[] {
  if (run.targets.length < 2) return [];
  const targets = run.targets.map((target) => target.name);
  const rows = ruleMatrix(statedCases(run.results), targets);
  const cellText = (state: RuleCell | undefined) =>
    state === undefined
      ? '–'
      : state.state === 'fail'
        ? `**fail** (${state.cases.map((id) => `\`${id}\``).join(', ')})`
        : state.state === 'blocked'
          ? `blocked (${state.cases.map((id) => `\`${id}\``).join(', ')})`
          : state.state === 'pass'
            ? 'pass'
            : 'observed';
  const render = (subset: typeof rows) =>
    table(
      ['rule', ...targets],
      subset.map((row) => [`${row.disagree ? '⚠ ' : ''}\`${row.rule}\``, ...row.cells.map(cellText)]),
    );
  const disagree = rows.filter((row) => row.disagree);
  const agree = rows.filter((row) => !row.disagree);
  return [
    `${heading} Rules × implementations`,
    '',
    `${disagree.length} of ${rows.length} rules where the implementations disagree${disagree.length > 0 ? ':' : '.'}`,
    '',
    ...(disagree.length > 0 ? [...render(disagree), ''] : []),
    `<details><summary>The ${agree.length} rules where they agree</summary>`,
    '',
    ...render(agree),
    '',
    '</details>',
    '',
  ];
}
