/** `svc-harness rules`: the rule catalog with each rule's level, spec section and covering cases. */
import { loadCaseFiles } from '../../engines/conformance/case-registry.ts';
import { loadRuleCatalog } from '../../engines/conformance/rule-catalog.ts';
import { ruleCoverage } from '../../engines/conformance/rule-coverage.ts';
import { renderRulesJson, renderRulesText } from '../../reporters/rules-listing.ts';
import { ExitCode } from '../../shared/errors.ts';
import { parseAreaList, targetAreas } from '../../target/areas.ts';
import type { ParsedValues } from '../parsed-values.ts';

export async function run(values: ParsedValues): Promise<number> {
  const areas = parseAreaList('rules', values.area as string | undefined, targetAreas);
  const [catalog, caseFiles] = await Promise.all([loadRuleCatalog(), loadCaseFiles()]);
  const coverage = ruleCoverage(catalog.rules, caseFiles, areas);
  process.stdout.write(values.json === true ? renderRulesJson(coverage) : renderRulesText(coverage));
  return ExitCode.ok;
}
