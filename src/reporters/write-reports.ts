/**
 * Writes report.json, junit.xml and summary.md into the report folder, every byte redacted. The folder
 * exists already: runConformance creates it before the run, so a bad --report-dir fails before any case.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RuleCatalog } from '../engines/conformance/rule-catalog.ts';
import type { ConformanceRun } from '../results/conformance-run.ts';
import type { Redactor } from '../shared/redact.ts';
import { toolVersion } from '../shared/tool-version.ts';
import { renderJunitXml } from './junit-xml.ts';
import { renderReportJson } from './report-json.ts';
import { renderSummaryMarkdown } from './summary-md.ts';

export const reportFiles = ['report.json', 'junit.xml', 'summary.md'] as const;

export async function writeReports(
  run: ConformanceRun,
  catalog: RuleCatalog,
  dir: string,
  redact: Redactor,
): Promise<void> {
  const rendered: Record<(typeof reportFiles)[number], string> = {
    'report.json': renderReportJson(run, catalog, toolVersion()),
    'junit.xml': renderJunitXml(run),
    'summary.md': renderSummaryMarkdown(run, catalog),
  };
  for (const name of reportFiles) await writeFile(join(dir, name), redact(rendered[name]));
}
