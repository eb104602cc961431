/** Writes report.json, junit.xml and summary.md into the report folder, every byte redacted. */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConformanceRun } from '../conformance/conformance-run.ts';
import type { RuleCatalog } from '../conformance/rule-catalog.ts';
import { renderJunitXml } from './junit-xml.ts';
import type { Redactor } from './redact.ts';
import { renderReportJson } from './report-json.ts';
import { renderSummaryMarkdown } from './summary-md.ts';

export const reportFiles = ['report.json', 'junit.xml', 'summary.md'] as const;

export const toolVersion: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export async function writeReports(
  run: ConformanceRun,
  catalog: RuleCatalog,
  dir: string,
  redact: Redactor,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const rendered: Record<(typeof reportFiles)[number], string> = {
    'report.json': renderReportJson(run, catalog, toolVersion),
    'junit.xml': renderJunitXml(run),
    'summary.md': renderSummaryMarkdown(run, catalog),
  };
  for (const name of reportFiles) await writeFile(join(dir, name), redact(rendered[name]));
}
