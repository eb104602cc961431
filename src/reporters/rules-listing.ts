/** Renders `svc-harness rules`: text for people, JSON for tools (pure). */
import type { CellCoverage, RuleCoverage, SilenceCoverage } from '../results/rule.ts';

export function renderRulesText(coverage: readonly RuleCoverage[]): string {
  const lines = coverage.flatMap(({ rule, cases }) => [
    `${rule.id} [${rule.level}] ${rule.section}`,
    `  ${rule.text}`,
    `  cases: ${cases.length > 0 ? cases.join(', ') : 'none'}`,
  ]);
  const uncovered = coverage.filter(({ cases }) => cases.length === 0).length;
  lines.push('', `${coverage.length} rules, ${coverage.length - uncovered} covered, ${uncovered} without a case`);
  return `${lines.join('\n')}\n`;
}

export function renderRulesJson(coverage: readonly RuleCoverage[]): string {
  const rules = coverage.map(({ rule, cases }) => ({
    id: rule.id,
    area: rule.area,
    level: rule.level,
    section: rule.section,
    text: rule.text,
    cases: [...cases],
  }));
  return `${JSON.stringify({ rules }, null, 2)}\n`;
}

/**
 * The coverage matrix: one line per cell under its rule, then the silence column (one line per place
 * where the spec is silent), the totals and any problem of the dimensions or the switches.
 */
export function renderCoverageText(
  cells: readonly CellCoverage[],
  problems: readonly string[] = [],
  silences: readonly SilenceCoverage[] = [],
): string {
  const lines: string[] = [];
  let rule = '';
  for (const cell of cells) {
    if (cell.rule.id !== rule) {
      rule = cell.rule.id;
      lines.push(`${rule} [${cell.rule.level}]`);
    }
    const point = Object.entries(cell.point)
      .map(([dimension, value]) => `${dimension}=${value}`)
      .join(' ');
    const state =
      cell.cases.length > 0
        ? `covered by ${cell.cases.join(', ')}`
        : cell.notApplicable !== undefined
          ? `n/a: ${cell.notApplicable}`
          : 'UNCOVERED';
    lines.push(`  ${point === '' ? '(the rule)' : point}: ${state}`);
  }
  const covered = cells.filter((cell) => cell.cases.length > 0).length;
  const notApplicable = cells.filter((cell) => cell.cases.length === 0 && cell.notApplicable !== undefined).length;
  const open = cells.length - covered - notApplicable;
  if (silences.length > 0)
    lines.push('', 'Silences (each exercised by a silence switch: another legal choice no case may fail)');
  for (const place of silences) {
    const state =
      place.switches.length > 0
        ? `exercised by ${place.switches.join(', ')}`
        : place.notApplicable !== undefined
          ? `n/a: ${place.notApplicable}`
          : 'UNEXERCISED';
    lines.push(`  ${place.place}: ${state}`);
  }
  const exercised = silences.filter((place) => place.switches.length > 0).length;
  const silentNa = silences.filter((place) => place.switches.length === 0 && place.notApplicable !== undefined).length;
  lines.push('');
  if (silences.length > 0) {
    lines.push(
      `${silences.length} silences: ${exercised} exercised, ${silentNa} not applicable, ${silences.length - exercised - silentNa} unexercised`,
    );
  }
  lines.push(`${cells.length} cells: ${covered} covered, ${notApplicable} not applicable, ${open} uncovered`);
  for (const problem of problems) lines.push(`problem: ${problem}`);
  return `${lines.join('\n')}\n`;
}

export function renderCoverageJson(
  cells: readonly CellCoverage[],
  problems: readonly string[] = [],
  silences: readonly SilenceCoverage[] = [],
): string {
  const rows = cells.map((cell) => ({
    rule: cell.rule.id,
    area: cell.rule.area,
    level: cell.rule.level,
    point: cell.point,
    cases: [...cell.cases],
    ...(cell.notApplicable !== undefined && { notApplicable: cell.notApplicable }),
  }));
  const uncovered = cells.filter((cell) => cell.cases.length === 0 && cell.notApplicable === undefined).length;
  const unexercised = silences.filter(
    (place) => place.switches.length === 0 && place.notApplicable === undefined,
  ).length;
  return `${JSON.stringify({ cells: rows, uncovered, silences, unexercised, problems }, null, 2)}\n`;
}
