/**
 * junit.xml: one testsuite per target, one testcase per case, the rule ids as properties. Expected
 * failures are reported as skipped (they do not fail the gate); stale expectations as failures.
 */
import { join } from 'node:path';
import type { CaseResult, ConformanceRun } from '../results/conformance-run.ts';
import { totalsOf } from '../results/conformance-run.ts';
import type { HarnessRun } from '../results/harness-run.ts';
import type { ScenarioResult } from '../results/load-run.ts';
import type { Reporter } from '../results/reporter.ts';
import { writeReportFile } from '../shared/report-files.ts';

// XML 1.0 allows tab, newline, carriage return and everything from U+0020 except lone surrogates and U+FFFE/F.
const invalidXmlChars = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(text: string): string {
  return text
    .replace(invalidXmlChars, '\uFFFD')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
    .join('');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function outcomeElement(result: CaseResult): string {
  const { verdict } = result;
  switch (verdict.kind) {
    case 'fail':
    case 'stale':
      return `      <failure${attrs({ type: verdict.kind, message: verdict.reason })}>${escapeXml(verdict.reason)}</failure>\n`;
    case 'error':
      return `      <error${attrs({ type: 'error', message: verdict.reason })}>${escapeXml(verdict.reason)}</error>\n`;
    case 'skip':
      return `      <skipped${attrs({ message: verdict.reason })}/>\n`;
    case 'expected-failure':
      return `      <skipped${attrs({ message: `expected failure: ${verdict.reason}` })}/>\n`;
    case 'blocked':
      return `      <skipped${attrs({ message: `blocked: ${verdict.reason}` })}/>\n`;
    default:
      return '';
  }
}

function testcase(result: CaseResult, suite: string): string {
  const properties = [
    ...result.rules.map((rule) => `        <property${attrs({ name: 'rule', value: rule })}/>\n`),
    `        <property${attrs({ name: 'verdict', value: result.verdict.kind })}/>\n`,
  ].join('');
  const notes = [...(result.verdict.kind === 'observation' ? [result.verdict.reason] : []), ...result.notes].filter(
    (note, index, all) => all.indexOf(note) === index,
  );
  const out = notes.length > 0 ? `      <system-out>${escapeXml(notes.join('\n'))}</system-out>\n` : '';
  const head = `    <testcase${attrs({ name: result.caseId, classname: `${suite}.${result.area}`, time: seconds(result.durationMs) })}>\n`;
  return `${head}      <properties>\n${properties}      </properties>\n${outcomeElement(result)}${out}    </testcase>\n`;
}

function counts(results: readonly CaseResult[]) {
  const totals = totalsOf(results);
  return {
    tests: totals.total,
    failures: totals.fail + totals.stale,
    errors: totals.error,
    skipped: totals.skip + totals['expected-failure'] + totals.blocked,
  };
}

function conformanceSuites(run: ConformanceRun): string[] {
  return run.targets.map((target) => {
    const time = target.cases.reduce((sum, result) => sum + result.durationMs, 0);
    const head = `  <testsuite${attrs({ name: target.name, ...counts(target.cases), time: seconds(time), timestamp: run.startedAt })}>\n`;
    return `${head}${target.cases.map((result) => testcase(result, target.name)).join('')}  </testsuite>\n`;
  });
}

/**
 * A load scenario as a testsuite: one testcase per threshold (failed thresholds are failures). Named
 * `load.<scenario>`, and `load.<scenario>.<engine>` when the run has the scenario on two engines.
 */
function scenarioSuite(scenario: ScenarioResult, _index: number, all: readonly ScenarioResult[]): string {
  const twice = all.filter((other) => other.name === scenario.name).length > 1;
  const suite = `load.${scenario.name}${twice ? `.${scenario.engine}` : ''}`;
  const failed = scenario.thresholds.filter((threshold) => !threshold.ok).length;
  const head = `  <testsuite${attrs({ name: suite, tests: scenario.thresholds.length, failures: failed, errors: scenario.problem ? 1 : 0, skipped: 0, time: seconds(scenario.durationMs), timestamp: scenario.startedAt })}>\n`;
  const cases = scenario.thresholds.map((threshold) => {
    const value = threshold.value === null ? 'no data' : String(threshold.value);
    const failure = threshold.ok
      ? ''
      : `      <failure${attrs({ type: 'threshold', message: `${threshold.expression}: value ${value}` })}>${escapeXml(`${threshold.expression}: value ${value}`)}</failure>\n`;
    return `    <testcase${attrs({ name: threshold.expression, classname: suite, time: '0.000' })}>\n      <properties>\n        <property${attrs({ name: 'value', value })}/>\n        <property${attrs({ name: 'source', value: threshold.source })}/>\n      </properties>\n${failure}    </testcase>\n`;
  });
  const problem = scenario.problem
    ? `    <testcase${attrs({ name: 'scenario ran', classname: suite, time: '0.000' })}>\n      <error${attrs({ type: 'error', message: scenario.problem })}>${escapeXml(scenario.problem)}</error>\n    </testcase>\n`
    : '';
  return `${head}${problem}${cases.join('')}  </testsuite>\n`;
}

export function renderJunitXml(run: HarnessRun): string {
  const suites = [
    ...(run.conformance ? conformanceSuites(run.conformance) : []),
    ...(run.load?.scenarios ?? []).map(scenarioSuite),
  ];
  const caseCounts = counts(run.conformance?.results ?? []);
  const thresholds = (run.load?.scenarios ?? []).flatMap((scenario) => scenario.thresholds);
  const problems = (run.load?.scenarios ?? []).filter((scenario) => scenario.problem).length;
  const root = attrs({
    name: run.load ? (run.conformance ? 'svc-harness run' : 'svc-harness load') : 'svc-harness conformance',
    tests: caseCounts.tests + thresholds.length + problems,
    failures: caseCounts.failures + thresholds.filter((threshold) => !threshold.ok).length,
    errors: caseCounts.errors + problems,
    skipped: caseCounts.skipped,
    time: seconds(run.durationMs),
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${root}>\n${suites.join('')}</testsuites>\n`;
}

/** The `junit` reporter: junit.xml in the run's report folder. */
export function createJunitReporter(): Reporter {
  const file = 'junit.xml';
  return {
    name: 'junit',
    file,
    onRunEnd: (run, { redact }) => writeReportFile(join(run.reportDir, file), redact(renderJunitXml(run))),
  };
}
