import { describe, expect, test } from 'vitest';
import { escapeXml, renderJunitXml } from '../../src/reporters/junit-xml.ts';
import { conformanceOnly } from '../../src/results/harness-run.ts';
import { fanoutEndpoints, sampleHarnessRun, sampleLoadRun } from './sample-load-run.ts';
import { sampleExchange, sampleRun } from './sample-run.ts';

describe('junit.xml', () => {
  const xml = renderJunitXml(conformanceOnly(sampleRun));

  test('one testsuite per target with counts; one testcase per case', () => {
    expect(xml).toContain(
      '<testsuites name="svc-harness conformance" tests="7" failures="2" errors="1" skipped="2" time="1.500">',
    );
    expect(xml).toContain('<testsuite name="ref" tests="7" failures="2" errors="1" skipped="2"');
    expect(xml.match(/<testcase /g)).toHaveLength(7);
  });

  test('the text of a failure carries the request to reproduce it and the answer it got', () => {
    const failCase = xml.slice(xml.indexOf('name="kv.fail"'), xml.indexOf('name="kv.skip"'));
    expect(failCase).toContain(
      escapeXml(
        `received <400> & "x" / expected 200 | y\n\nreproduce: ${sampleExchange.curl}\nanswer: ${sampleExchange.answer}`,
      ),
    );
    // The one-line message stays the reason alone.
    expect(failCase).toContain('message="received &lt;400&gt; &amp; &quot;x&quot; / expected 200 | y"');
  });

  test('rule ids are properties of the testcase', () => {
    const failCase = xml.slice(xml.indexOf('name="kv.fail"'), xml.indexOf('name="kv.skip"'));
    expect(failCase).toContain('<property name="rule" value="B.a"/>');
    expect(failCase).toContain('<property name="rule" value="B.b"/>');
    expect(failCase).toContain('<property name="verdict" value="fail"/>');
  });

  test('verdicts map to failure, error and skipped elements', () => {
    expect(xml).toContain(
      '<failure type="fail" message="received &lt;400&gt; &amp; &quot;x&quot; / expected 200 | y">',
    );
    expect(xml).toContain('<failure type="stale"');
    expect(xml).toContain('<error type="error" message="did not answer within 300 ms\uFFFD">');
    expect(xml).toContain('<skipped message="no admin hook"/>');
    expect(xml).toContain('<skipped message="expected failure: known"/>');
    expect(xml).toContain('<system-out>401 text is &quot;Unauthorized&quot;</system-out>');
  });

  test('escapes markup and drops characters XML cannot hold', () => {
    expect(escapeXml(`<a href='x'>&"\u0000\u{1F600}`)).toBe('&lt;a href=&apos;x&apos;&gt;&amp;&quot;\uFFFD\u{1F600}');
  });

  test('is well formed: every opened element is closed', () => {
    const opened = (xml.match(/<(testsuites|testsuite|testcase|properties|failure|error|system-out)[ >]/g) ?? [])
      .length;
    const closed = (xml.match(/<\/(testsuites|testsuite|testcase|properties|failure|error|system-out)>/g) ?? []).length;
    expect(opened).toBe(closed);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  });
});

describe('junit.xml of messaging load', () => {
  const run = { ...sampleHarnessRun('/tmp/unused'), conformance: undefined, load: sampleLoadRun };
  const xml = renderJunitXml(run);
  const suite = (name: string) =>
    xml.slice(xml.indexOf(`<testsuite name="load.${name}"`)).split('</testsuite>')[0] ?? '';

  test('a testcase per stream, failed when something was lost, naming the endpoints', () => {
    const fanout = suite('publish-fanout');
    const accepted = sampleLoadRun.scenarios.find((s) => s.name === 'publish-fanout')!.accounting.messaging!.accepted;
    const expected = accepted * fanoutEndpoints;
    // The threshold and the delivery stream: both failed.
    expect(fanout).toContain('tests="2" failures="2"');
    const seconds = (sampleLoadRun.scenarios.find((s) => s.name === 'publish-fanout')!.durationMs / 1000).toFixed(3);
    expect(seconds).not.toBe('0.000');
    expect(fanout).toContain(
      `<testcase name="delivery: nothing lost" classname="load.publish-fanout" time="${seconds}">`,
    );
    expect(fanout).toContain(
      `<failure type="lost" message="delivery: 3 of ${expected} expected never arrived (endpoint:e2 3)">`,
    );
    expect(fanout).toContain('<property name="duplicated" value="2"/>');
    expect(fanout).toContain(`<property name="received" value="${expected - 3}"/>`);
  });

  test('a stream with nothing lost passes, whatever its duplicates or signatures', () => {
    const callbacks = suite('callback-throughput');
    expect(callbacks).toContain('tests="4" failures="2"');
    const failureCase = callbacks.slice(callbacks.indexOf('name="failure callbacks: nothing lost"'));
    expect(failureCase.split('</testcase>')[0]).not.toContain('<failure');
    expect(failureCase).toContain('<property name="badSignatures" value="1"/>');
    expect(callbacks).toContain('<failure type="lost" message="callbacks: 1 of ');
  });

  test('every load testcase carries the time its verdict covers; a suite counts every testcase it holds', () => {
    expect(xml).not.toContain('time="0.000"');
    const problem = { ...sampleLoadRun.scenarios[0]!, problem: 'the target stopped answering' };
    const withProblem = renderJunitXml({ ...run, load: { ...sampleLoadRun, scenarios: [problem] } });
    const held = withProblem.match(/<testcase /g)?.length ?? 0;
    expect(withProblem).toContain(`<testsuite name="load.${problem.name}" tests="${held}" `);
    expect(held).toBe(problem.thresholds.length + 1);
  });

  test('the root counts the stream testcases', () => {
    const scenarios = sampleLoadRun.scenarios;
    const thresholds = scenarios.flatMap((s) => s.thresholds);
    const streams = 1 + 3;
    const failures = thresholds.filter((t) => !t.ok).length + 2;
    expect(xml).toContain(
      `<testsuites name="svc-harness load" tests="${thresholds.length + streams}" failures="${failures}"`,
    );
  });
});
