/**
 * `svc-harness rules`: the rule catalog with each rule's level, spec section and covering cases;
 * with `--coverage`, the matrix of every rule's cells (issue 20), exiting 1 when one is uncovered.
 */
import { loadCaseFiles } from '../../engines/conformance/case-registry.ts';
import { loadDimensionCatalog, loadRuleCatalog } from '../../engines/conformance/rule-catalog.ts';
import { cellCoverage, dimensionProblems, ruleCoverage } from '../../engines/conformance/rule-coverage.ts';
import {
  renderCoverageJson,
  renderCoverageText,
  renderRulesJson,
  renderRulesText,
} from '../../reporters/rules-listing.ts';
import { ExitCode } from '../../shared/errors.ts';
import { parseAreaList, targetAreas } from '../../target/areas.ts';
import type { ParsedValues } from '../parsed-values.ts';

export async function run(values: ParsedValues): Promise<number> {
  const areas = parseAreaList('rules', values.area as string | undefined, targetAreas);
  const [catalog, caseFiles] = await Promise.all([loadRuleCatalog(), loadCaseFiles()]);
  const json = values.json === true;
  if (values.coverage !== true) {
    const coverage = ruleCoverage(catalog.rules, caseFiles, areas);
    process.stdout.write(json ? renderRulesJson(coverage) : renderRulesText(coverage));
    return ExitCode.ok;
  }
  const dimensions = await loadDimensionCatalog();
  const cells = cellCoverage(catalog.rules, dimensions, caseFiles, areas);
  const problems = dimensionProblems(catalog.rules, dimensions, caseFiles);
  process.stdout.write(json ? renderCoverageJson(cells, problems) : renderCoverageText(cells, problems));
  const open = cells.some((cell) => cell.cases.length === 0 && cell.notApplicable === undefined);
  return open || problems.length > 0 ? ExitCode.failed : ExitCode.ok;
}
