/**
 * A report to compare (`compare BASELINE CURRENT`, `--baseline PATH`): a report folder or its
 * report.json, checked against schemas/report.schema.json, as the part a comparison reads. Read before
 * any run starts, so a wrong path or a foreign file is one line and no wasted run.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import reportSchema from '../../schemas/report.schema.json' with { type: 'json' };
import type { ComparableReport, ComparableScenario } from '../results/compare.ts';
import type { VerdictKind } from '../results/verdict.ts';
import { readJsonFile, schemaProblem } from '../shared/config-file.ts';
import { harnessError } from '../shared/errors.ts';

const validate = new Ajv({ allErrors: false, strict: false }).compile(reportSchema);

interface ReportFile {
  readonly startedAt: string;
  readonly targets?: readonly {
    readonly name: string;
    readonly cases: readonly {
      readonly rules: readonly string[];
      readonly verdict: { readonly kind: VerdictKind; readonly rule?: string };
    }[];
  }[];
  readonly load?: {
    readonly scenarios: readonly (ComparableScenario & { readonly settings: { readonly durationS: number } })[];
  };
}

/** `path` is a report folder (its report.json is read) or a report.json file; `label` starts the error line. */
export function readComparableReport(path: string, label: string): ComparableReport {
  let file = path;
  try {
    if (statSync(path).isDirectory()) file = join(path, 'report.json');
  } catch {
    throw harnessError('SVC_CONFIG', `${label} ${path}: no such file or folder`);
  }
  const value = readJsonFile(file, label);
  if (!validate(value)) {
    throw harnessError(
      'SVC_CONFIG',
      `${label} ${file}: not an svc-harness report.json (${schemaProblem(validate.errors)})`,
    );
  }
  const report = value as unknown as ReportFile;
  return {
    source: file,
    startedAt: report.startedAt,
    scenarios:
      report.load?.scenarios.map((scenario) => ({
        name: scenario.name,
        requests: scenario.requests,
        durationS: scenario.settings.durationS,
        histogram: scenario.histogram,
        series: scenario.series,
        tags: scenario.tags.map((tag) => ({ tags: tag.tags, requests: tag.requests, histogram: tag.histogram })),
      })) ?? null,
    cases:
      report.targets?.flatMap((target) =>
        target.cases.map((item) => ({
          target: target.name,
          rules: item.rules,
          verdict: item.verdict.kind,
          ...(item.verdict.rule !== undefined && { rule: item.verdict.rule }),
        })),
      ) ?? null,
  };
}
