/**
 * report.json: the run as data, in a fixed key order so two reports diff line by line.
 * Its JSON Schema is schemas/report.schema.json; a test validates real reports against it.
 */

import { join } from 'node:path';
import {
  type CaseResult,
  type ConformanceRun,
  gateOf,
  totalsOf,
  type VerdictTotals,
} from '../results/conformance-run.ts';
import type { HarnessRun } from '../results/harness-run.ts';
import type { Reporter } from '../results/reporter.ts';
import { rootCauseLine, rootCauseOf } from '../results/root-cause.ts';
import type { RuleCatalog } from '../results/rule.ts';
import { type Verdict, verdictRule } from '../results/verdict.ts';
import { type Redactor, redactingReplacer } from '../shared/redact.ts';
import { writeReportFile } from '../shared/report-files.ts';
import { toolVersion as currentToolVersion } from '../shared/tool-version.ts';
import { compareDocument } from './compare-document.ts';
import { loadDocument } from './load-document.ts';
import { regionsDocument } from './regions-text.ts';
import { ruleVerdicts, runAreas } from './rule-verdicts.ts';

/**
 * 3: a load scenario's settings say which k6 and how many segments (the k6 engine).
 * 4: each target's `rootCause`, the cause most of its failures share (or null).
 * 5: a load scenario's `messaging`, a messaging scenario's accounting at the sink (or null).
 * 6: `compare`, the run against its baseline (`--baseline`), when one was given; `regions`, a region comparison.
 */
export const reportSchemaVersion = 6;

function totals(value: VerdictTotals) {
  return {
    total: value.total,
    pass: value.pass,
    fail: value.fail,
    stale: value.stale,
    error: value.error,
    blocked: value.blocked,
    'expected-failure': value['expected-failure'],
    observation: value.observation,
    skip: value.skip,
  };
}

function verdict(value: Verdict) {
  if (value.kind === 'pass') return { kind: value.kind };
  const rule = verdictRule(value);
  return { kind: value.kind, reason: value.reason, ...(rule && { rule }) };
}

function caseEntry(result: CaseResult) {
  return {
    id: result.caseId,
    area: result.area,
    file: result.file,
    title: result.title,
    expect: result.expect,
    rules: [...result.rules],
    verdict: verdict(result.verdict),
    notes: [...result.notes],
    durationMs: result.durationMs,
    ...(result.exchange !== undefined && { exchange: { curl: result.exchange.curl, answer: result.exchange.answer } }),
  };
}

function rootCauseEntry(target: string, cases: readonly CaseResult[]) {
  const cause = rootCauseOf(cases);
  return cause === undefined ? null : { ...cause, line: rootCauseLine(target, cause) };
}

/** The conformance part of the document: what was asked, the totals, each target's cases, each rule. */
function conformanceFields(run: ConformanceRun, catalog: RuleCatalog) {
  return {
    settings: {
      areas: [...run.settings.areas],
      rules: run.settings.rules ?? null,
      expectations: run.settings.expectations ?? null,
      faults: [...run.settings.faults],
      silences: [...run.settings.silences],
      orderSeed: run.settings.orderSeed ?? null,
    },
    totals: totals(totalsOf(run.results)),
    targets: run.targets.map((target) => ({
      name: target.name,
      embedded: target.embedded,
      description: target.description,
      areas: [...target.areas],
      problem: target.problem ?? null,
      rootCause: rootCauseEntry(target.name, target.cases),
      totals: totals(totalsOf(target.cases)),
      cases: target.cases.map(caseEntry),
    })),
    rules: ruleVerdicts(catalog.rules, runAreas(run), run.results).map(({ rule, totals: counts }) => ({
      id: rule.id,
      area: rule.area,
      level: rule.level,
      section: rule.section,
      totals: totals(counts),
    })),
  };
}

/**
 * The report document; keys are created in the order they are written. The conformance fields are
 * there when conformance ran (as in schema version 1), `load` when load ran.
 */
export function reportDocument(run: HarnessRun, catalog: RuleCatalog, toolVersion: string) {
  return {
    schemaVersion: reportSchemaVersion,
    tool: { name: 'svc-harness', version: toolVersion },
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: run.durationMs,
    exitCode: run.exitCode,
    gate: gateOf(run.exitCode),
    aborted: run.aborted ?? null,
    problems: [...run.problems],
    ...(run.conformance && conformanceFields(run.conformance, catalog)),
    ...(run.load && { load: loadDocument(run.load) }),
    ...(run.compare && { compare: compareDocument(run.compare) }),
    ...(run.regions && { regions: regionsDocument(run.regions) }),
  };
}

export type ReportDocument = ReturnType<typeof reportDocument>;

/** The document as JSON; `redact` reaches every string but the harness's own encodings (redactingReplacer). */
export function renderReportJson(
  run: HarnessRun,
  catalog: RuleCatalog,
  toolVersion: string,
  redact: Redactor = (text) => text,
): string {
  return `${JSON.stringify(reportDocument(run, catalog, toolVersion), redactingReplacer(redact), 2)}\n`;
}

/** The `json` reporter: report.json in the run's report folder. */
export function createJsonReporter(): Reporter {
  const file = 'report.json';
  return {
    name: 'json',
    file,
    onRunEnd: (run, { catalog, redact }) =>
      writeReportFile(join(run.reportDir, file), renderReportJson(run, catalog, currentToolVersion(), redact)),
  };
}
