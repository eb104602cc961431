/** Which cases cover which rule, and which cell of its dimensions: the catalogs joined with the case registry (pure). */

import type { CellCoverage, CellPoint, CellRegion, DimensionCatalog, Rule, RuleCoverage } from '../../results/rule.ts';
import type { TargetArea } from '../../target/target.ts';
import type { CaseFile } from './case-registry.ts';

export function ruleCoverage(
  rules: readonly Rule[],
  caseFiles: readonly CaseFile[],
  areas?: readonly TargetArea[],
): RuleCoverage[] {
  const byRule = new Map<string, string[]>();
  for (const file of caseFiles) {
    for (const item of file.cases) {
      for (const id of item.rules) byRule.set(id, [...(byRule.get(id) ?? []), item.id]);
    }
  }
  return rules
    .filter((rule) => areas === undefined || areas.includes(rule.area))
    .map((rule) => ({ rule, cases: [...new Set(byRule.get(rule.id) ?? [])].sort() }));
}

/** Every point of a grid: the cross product of its dimensions' values, dimensions in the grid's order. */
function gridPoints(grid: readonly string[], valuesOf: ReadonlyMap<string, readonly string[]>): CellPoint[] {
  let points: Record<string, string>[] = [{}];
  for (const dimension of grid) {
    const values = valuesOf.get(dimension) ?? [];
    points = points.flatMap((point) => values.map((value) => ({ ...point, [dimension]: value })));
  }
  return points;
}

/**
 * Whether a region holds a point: every dimension the region names is one of the point's (a region
 * about reply shapes says nothing of a grid of lookalike values), and spans the point's value there.
 */
export function regionHolds(where: CellRegion, point: CellPoint): boolean {
  return Object.entries(where).every(([dimension, values]) => {
    const value = point[dimension];
    return value !== undefined && values.includes(value);
  });
}

export function cellKey(rule: string, point: CellPoint): string {
  const parts = Object.keys(point)
    .sort()
    .map((dimension) => `${dimension}=${point[dimension]}`);
  return parts.length === 0 ? rule : `${rule} [${parts.join(' ')}]`;
}

/**
 * The coverage matrix: every cell of every rule (one cell for a rule without dimensions), with the
 * cases covering it or the reason it does not apply. A case covers a rule's dimensioned cells only
 * through its `covers`, and a rule without dimensions by naming it.
 */
export function cellCoverage(
  rules: readonly Rule[],
  dimensions: DimensionCatalog,
  caseFiles: readonly CaseFile[],
  areas?: readonly TargetArea[],
): CellCoverage[] {
  const valuesOf = new Map(dimensions.dimensions.map((dimension) => [dimension.id, dimension.values]));
  const gridsOf = new Map(dimensions.rules.map((entry) => [entry.rule, entry]));
  const cases = caseFiles.flatMap((file) => file.cases);
  const cells: CellCoverage[] = [];
  for (const rule of rules) {
    if (areas !== undefined && !areas.includes(rule.area)) continue;
    const entry = gridsOf.get(rule.id);
    if (entry === undefined) {
      const naming = cases.filter((item) => item.rules.includes(rule.id)).map((item) => item.id);
      cells.push({ rule, point: {}, key: rule.id, cases: [...new Set(naming)].sort() });
      continue;
    }
    const seen = new Set<string>();
    for (const grid of entry.grids) {
      for (const point of gridPoints(grid, valuesOf)) {
        const key = cellKey(rule.id, point);
        if (seen.has(key)) continue;
        seen.add(key);
        const covering = cases
          .filter((item) => item.covers?.some((cover) => cover.rule === rule.id && regionHolds(cover.where, point)))
          .map((item) => item.id);
        const reason = entry.notApplicable?.find((carve) => regionHolds(carve.where, point))?.reason;
        cells.push({
          rule,
          point,
          key,
          cases: [...new Set(covering)].sort(),
          ...(reason !== undefined && { notApplicable: reason }),
        });
      }
    }
  }
  return cells;
}

/**
 * What is wrong with the dimensions and the cases' `covers`, one line each: unknown rules, dimensions
 * or values, a cover of a rule its case does not name, a cover or carve-out that holds no cell.
 */
export function dimensionProblems(
  rules: readonly Rule[],
  dimensions: DimensionCatalog,
  caseFiles: readonly CaseFile[],
): string[] {
  const problems: string[] = [];
  const ruleIds = new Set(rules.map((rule) => rule.id));
  const valuesOf = new Map(dimensions.dimensions.map((dimension) => [dimension.id, dimension.values]));
  const gridsOf = new Map(dimensions.rules.map((entry) => [entry.rule, entry]));
  const checkRegion = (where: CellRegion, what: string) => {
    for (const [dimension, values] of Object.entries(where)) {
      const known = valuesOf.get(dimension);
      if (known === undefined) problems.push(`${what}: unknown dimension ${dimension}`);
      else
        for (const value of values) if (!known.includes(value)) problems.push(`${what}: ${dimension} has no ${value}`);
    }
  };
  const holdsACell = (rule: string, where: CellRegion) =>
    (gridsOf.get(rule)?.grids ?? []).some((grid) =>
      gridPoints(grid, valuesOf).some((point) => regionHolds(where, point)),
    );
  const seenRules = new Set<string>();
  for (const entry of dimensions.rules) {
    if (!ruleIds.has(entry.rule)) problems.push(`dimensions of ${entry.rule}: no such rule`);
    if (seenRules.has(entry.rule)) problems.push(`dimensions of ${entry.rule}: given twice`);
    seenRules.add(entry.rule);
    const inGrids = new Set<string>();
    for (const grid of entry.grids)
      for (const dimension of grid) {
        if (!valuesOf.has(dimension)) problems.push(`dimensions of ${entry.rule}: unknown dimension ${dimension}`);
        // A region names dimensions, so it could not tell apart two grids of one rule sharing one.
        if (inGrids.has(dimension))
          problems.push(
            `dimensions of ${entry.rule}: grids share the dimension ${dimension} (a region could not tell them apart)`,
          );
        inGrids.add(dimension);
      }
    for (const carve of entry.notApplicable ?? []) {
      checkRegion(carve.where, `not applicable to ${entry.rule}`);
      if (!holdsACell(entry.rule, carve.where)) problems.push(`not applicable to ${entry.rule}: holds no cell`);
    }
  }
  for (const item of caseFiles.flatMap((file) => file.cases)) {
    for (const cover of item.covers ?? []) {
      const what = `case ${item.id} covers ${cover.rule}`;
      if (!item.rules.includes(cover.rule)) problems.push(`${what}: the case does not name the rule`);
      if (!gridsOf.has(cover.rule)) problems.push(`${what}: the rule has no dimensions`);
      checkRegion(cover.where, what);
      if (gridsOf.has(cover.rule) && !holdsACell(cover.rule, cover.where)) problems.push(`${what}: holds no cell`);
    }
  }
  return problems;
}
