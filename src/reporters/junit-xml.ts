/**
 * junit.xml: one testsuite per target, one testcase per case, the rule ids as properties. Expected
 * failures are reported as skipped (they do not fail the gate); stale expectations as failures. A
 * load scenario is a testsuite of its thresholds, and of its messaging streams (lost is a failure).
 */
import { join } from 'node:path';
import type { CaseResult, ConformanceRun } from '../results/conformance-run.ts';
import { totalsOf } from '../results/conformance-run.ts';
import type { HarnessRun } from '../results/harness-run.ts';
import type { ScenarioResult } from '../results/load-run.ts';
import type { Reporter } from '../results/reporter.ts';
import { writeReportFile } from '../shared/report-files.ts';
import { messagingStreams, sortedByTags, tagText } from './messaging-streams.ts';

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

/** The failure's text: its reason, then the request to reproduce it and the answer it got, when kept. */
function failureText(result: CaseResult, reason: string): string {
  const { exchange } = result;
  return exchange === undefined ? reason : `${reason}\n\nreproduce: ${exchange.curl}\nanswer: ${exchange.answer}`;
}

function outcomeElement(result: CaseResult): string {
  const { verdict } = result;
  switch (verdict.kind) {
    case 'fail':
    case 'stale':
      return `      <failure${attrs({ type: verdict.kind, message: verdict.reason })}>${escapeXml(failureText(result, verdict.reason))}</failure>\n`;
    case 'error':
      return `      <error${attrs({ type: 'error', message: verdict.reason })}>${escapeXml(failureText(result, verdict.reason))}</error>\n`;
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

/** A messaging stream's accounting, as a testcase: it fails when anything expected was lost. */
interface StreamCase {
  readonly name: string;
  readonly lost: number;
  readonly message: string;
  readonly properties: Readonly<Record<string, number>>;
}

/**
 * A messaging scenario's streams: one testcase each, failed when something is lost (where it was lost,
 * per endpoint, in the message). Duplicates and bad signatures are properties: at least once allows
 * duplicates, and a threshold on them is a testcase of its own.
 */
function streamCases(scenario: ScenarioResult): StreamCase[] {
  const messaging = scenario.accounting.messaging;
  if (!messaging) return [];
  return messagingStreams(messaging).map(({ label, accounting }) => {
    const where = sortedByTags(accounting.byTags)
      .filter((item) => item.lost > 0)
      .map((item) => `${tagText(item.tags)} ${item.lost}`);
    return {
      name: `${label}: nothing lost`,
      lost: accounting.lost,
      message: `${label}: ${accounting.lost} of ${accounting.expected} expected never arrived${where.length > 0 ? ` (${where.join(', ')})` : ''}`,
      properties: {
        expected: accounting.expected,
        received: accounting.received,
        lost: accounting.lost,
        duplicated: accounting.duplicated,
        unexpected: accounting.unexpected,
        badSignatures: accounting.badSignatures,
      },
    };
  });
}

function streamTestcase(item: StreamCase, suite: string, time: string): string {
  const properties = Object.entries(item.properties)
    .map(([name, value]) => `        <property${attrs({ name, value })}/>\n`)
    .join('');
  const failure =
    item.lost > 0
      ? `      <failure${attrs({ type: 'lost', message: item.message })}>${escapeXml(item.message)}</failure>\n`
      : '';
  return `    <testcase${attrs({ name: item.name, classname: suite, time })}>\n      <properties>\n${properties}      </properties>\n${failure}    </testcase>\n`;
}

/**
 * A load scenario as a testsuite: one testcase per threshold (failed thresholds are failures), and a
 * messaging scenario's one per stream. Named `load.<scenario>`, and `load.<scenario>.<engine>` when
 * the run has the scenario on two engines.
 */
function scenarioSuite(scenario: ScenarioResult, _index: number, all: readonly ScenarioResult[]): string {
  const twice = all.filter((other) => other.name === scenario.name).length > 1;
  const suite = `load.${scenario.name}${twice ? `.${scenario.engine}` : ''}`;
  const streams = streamCases(scenario);
  const failed =
    scenario.thresholds.filter((threshold) => !threshold.ok).length + streams.filter((item) => item.lost > 0).length;
  // The problem's testcase counts too: a suite's `tests` is the number of testcases it holds.
  const tests = scenario.thresholds.length + streams.length + (scenario.problem ? 1 : 0);
  // A threshold or a stream is a verdict on the whole scenario, so each carries the time it covers.
  const time = seconds(scenario.durationMs);
  const head = `  <testsuite${attrs({ name: suite, tests, failures: failed, errors: scenario.problem ? 1 : 0, skipped: 0, time: seconds(scenario.durationMs), timestamp: scenario.startedAt })}>\n`;
  const cases = scenario.thresholds.map((threshold) => {
    const value = threshold.value === null ? 'no data' : String(threshold.value);
    const failure = threshold.ok
      ? ''
      : `      <failure${attrs({ type: 'threshold', message: `${threshold.expression}: value ${value}` })}>${escapeXml(`${threshold.expression}: value ${value}`)}</failure>\n`;
    return `    <testcase${attrs({ name: threshold.expression, classname: suite, time })}>\n      <properties>\n        <property${attrs({ name: 'value', value })}/>\n        <property${attrs({ name: 'source', value: threshold.source })}/>\n      </properties>\n${failure}    </testcase>\n`;
  });
  const problem = scenario.problem
    ? `    <testcase${attrs({ name: 'scenario ran', classname: suite, time })}>\n      <error${attrs({ type: 'error', message: scenario.problem })}>${escapeXml(scenario.problem)}</error>\n    </testcase>\n`
    : '';
  return `${head}${problem}${cases.join('')}${streams.map((item) => streamTestcase(item, suite, time)).join('')}  </testsuite>\n`;
}

export function renderJunitXml(run: HarnessRun): string {
  const suites = [
    ...(run.conformance ? conformanceSuites(run.conformance) : []),
    ...(run.load?.scenarios ?? []).map(scenarioSuite),
  ];
  const caseCounts = counts(run.conformance?.results ?? []);
  const thresholds = (run.load?.scenarios ?? []).flatMap((scenario) => scenario.thresholds);
  const streams = (run.load?.scenarios ?? []).flatMap(streamCases);
  const problems = (run.load?.scenarios ?? []).filter((scenario) => scenario.problem).length;
  const root = attrs({
    name: run.load ? (run.conformance ? 'svc-harness run' : 'svc-harness load') : 'svc-harness conformance',
    tests: caseCounts.tests + thresholds.length + streams.length + problems,
    failures:
      caseCounts.failures +
      thresholds.filter((threshold) => !threshold.ok).length +
      streams.filter((item) => item.lost > 0).length,
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
