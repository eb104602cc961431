/**
 * A report to compare (`compare BASELINE CURRENT`, `--baseline PATH`): a report folder or its
 * report.json, checked against schemas/report.schema.json, as the part a comparison reads. Read before
 * any run starts, so a wrong path or a foreign file is one line and no wasted run.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import reportSchema from '../../schemas/report.schema.json' with { type: 'json' };
import { comparableScenario, type ScenarioFields } from '../results/comparable.ts';
import type { ComparableReport } from '../results/compare.ts';
import type { VerdictKind } from '../results/verdict.ts';
import { harnessError } from '../shared/errors.ts';
import { lazyValidator, readJsonFile, schemaProblem } from '../shared/json-file.ts';

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
    readonly scenarios: readonly ScenarioFields[];
  };
}

/** The schema holds a report.json to what `ReportFile` names of it (and more). */
const reportValidator = lazyValidator<ReportFile>(reportSchema, { allErrors: false, strict: false });

/** `path` is a report folder (its report.json is read) or a report.json file; `label` starts the error line. */
export function readComparableReport(path: string, label: string): ComparableReport {
  let file = path;
  try {
    if (statSync(path).isDirectory()) file = join(path, 'report.json');
  } catch {
    throw harnessError('SVC_CONFIG', `${label} ${path}: no such file or folder`);
  }
  const value = readJsonFile(file, label);
  const validate = reportValidator();
  if (!validate(value)) {
    throw harnessError(
      'SVC_CONFIG',
      `${label} ${file}: not an svc-harness report.json (${schemaProblem(validate.errors)})`,
    );
  }
  const report = value;
  return {
    source: file,
    startedAt: report.startedAt,
    scenarios: report.load?.scenarios.map(comparableScenario) ?? null,
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
