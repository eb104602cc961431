/**
 * `svc-harness rules`: the rule catalog with each rule's level, spec section and covering cases;
 * with `--coverage`, the matrix of every rule's cells (issue 20) and the silence column (every place the
 * spec is silent, exercised by a silence switch or not applicable), exiting 1 when one is open.
 */
import { loadCaseFiles } from '../../engines/conformance/case-registry.ts';
import { loadDimensionCatalog, loadRuleCatalog, loadSilentPlaces } from '../../engines/conformance/rule-catalog.ts';
import { cellCoverage, dimensionProblems, ruleCoverage } from '../../engines/conformance/rule-coverage.ts';
import { silenceCoverage, silenceProblems } from '../../engines/conformance/silence-coverage.ts';
import { allSilences } from '../../reference/reference-areas.ts';
import {
  renderCoverageJson,
  renderCoverageText,
  renderRulesJson,
  renderRulesText,
} from '../../reporters/rules-listing.ts';
import { ExitCode } from '../../shared/errors.ts';
import type { CommandValues } from '../command-table.ts';

export async function run(values: CommandValues<'rules'>): Promise<number> {
  const areas = values.area;
  const [catalog, caseFiles] = await Promise.all([loadRuleCatalog(), loadCaseFiles()]);
  const json = values.json === true;
  if (values.coverage !== true) {
    const coverage = ruleCoverage(catalog.rules, caseFiles, areas);
    process.stdout.write(json ? renderRulesJson(coverage) : renderRulesText(coverage));
    return ExitCode.ok;
  }
  const [dimensions, places] = await Promise.all([loadDimensionCatalog(), loadSilentPlaces()]);
  const cells = cellCoverage(catalog.rules, dimensions, caseFiles, areas);
  const silences = silenceCoverage(catalog.rules, places, allSilences, areas);
  const problems = [
    ...dimensionProblems(catalog.rules, dimensions, caseFiles),
    ...silenceProblems(catalog.rules, places, allSilences),
  ];
  process.stdout.write(
    json ? renderCoverageJson(cells, problems, silences) : renderCoverageText(cells, problems, silences),
  );
  const open =
    cells.some((cell) => cell.cases.length === 0 && cell.notApplicable === undefined) ||
    silences.some((place) => place.switches.length === 0 && place.notApplicable === undefined);
  return open || problems.length > 0 ? ExitCode.failed : ExitCode.ok;
}
