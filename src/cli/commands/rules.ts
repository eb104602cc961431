/** `svc-harness rules`: the rule catalog with each rule's level, spec section and covering cases. */
import { loadCaseFiles, targetAreas } from '../../conformance/case-registry.ts';
import { loadRuleCatalog } from '../../conformance/rule-catalog.ts';
import { ruleCoverage } from '../../conformance/rule-coverage.ts';
import { ExitCode } from '../../errors.ts';
import { renderRulesJson, renderRulesText } from '../../report/rules-listing.ts';
import type { ParsedValues } from '../command-table.ts';
import { parseAreaList } from '../parse-argv.ts';

export async function run(values: ParsedValues): Promise<number> {
  const areas = parseAreaList('rules', values.area as string | undefined, targetAreas);
  const [catalog, caseFiles] = await Promise.all([loadRuleCatalog(), loadCaseFiles()]);
  const coverage = ruleCoverage(catalog.rules, caseFiles, areas);
  process.stdout.write(values.json === true ? renderRulesJson(coverage) : renderRulesText(coverage));
  return ExitCode.ok;
}
