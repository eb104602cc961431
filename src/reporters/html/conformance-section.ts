/**
 * The conformance part of index.html: totals per target, the cases that did not pass with their
 * reasons (case-details.ts), verdicts by rule topic as a chart and by rule as a table.
 */
import { type ConformanceRun, totalsOf, type VerdictTotals, verdictKinds } from '../../results/conformance-run.ts';
import type { RuleCatalog } from '../../results/rule.ts';
import { ruleVerdicts, runAreas } from '../rule-verdicts.ts';
import { caseDetailsSection } from './case-details.ts';
import { verdictChart } from './chart-data.ts';
import { type Cell, figure, type Section, type Text, table } from './markup.ts';
import { ruleMatrixSection } from './rule-matrix-section.ts';

const counts = (totals: VerdictTotals): Cell[] => [...verdictKinds.map((kind) => totals[kind]), totals.total];

export function conformanceSection(t: Text, run: ConformanceRun, catalog: RuleCatalog): Section {
  const rules = ruleVerdicts(catalog.rules, runAreas(run), run.results);
  const chart = verdictChart(rules);
  const targets = table(
    'cases by target',
    ['target', ...verdictKinds, 'total'],
    run.targets.map((target) => [
      { html: `${t(target.name)}${target.embedded ? ' <small>(embedded reference)</small>' : ''}` },
      ...counts(totalsOf(target.cases)),
    ]),
  );
  const notRun = run.targets
    .filter((target) => target.problem !== undefined)
    .map((target) => `<p class="problem">${t(target.name)} not run: ${t(target.problem ?? '')}</p>`);
  const byRule =
    rules.length === 0
      ? ''
      : table(
          'cases by rule',
          ['rule', 'level', ...verdictKinds, 'cases'],
          rules.map(({ rule, totals }) => [
            { html: `<code>${t(rule.id)}</code>` },
            { html: t(rule.level) },
            ...counts(totals),
          ]),
        );
  const html = [
    '<section class="part" id="conformance">',
    '<h2>Conformance</h2>',
    ...notRun,
    `<div class="tables">${targets}</div>`,
    ruleMatrixSection(t, run),
    caseDetailsSection(t, run),
    `<div class="charts wide">${figure(t, chart, 'Conformance: case verdicts by rule topic')}</div>`,
    `<div class="tables">${byRule}</div>`,
    '</section>',
  ].join('\n');
  return { html, charts: chart ? [chart] : [] };
}
