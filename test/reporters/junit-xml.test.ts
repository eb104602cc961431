import { describe, expect, test } from 'vitest';
import { escapeXml, renderJunitXml } from '../../src/reporters/junit-xml.ts';
import { conformanceOnly } from '../../src/results/harness-run.ts';
import { sampleRun } from './sample-run.ts';

describe('junit.xml', () => {
  const xml = renderJunitXml(conformanceOnly(sampleRun));

  test('one testsuite per target with counts; one testcase per case', () => {
    expect(xml).toContain(
      '<testsuites name="svc-harness conformance" tests="7" failures="2" errors="1" skipped="2" time="1.500">',
    );
    expect(xml).toContain('<testsuite name="ref" tests="7" failures="2" errors="1" skipped="2"');
    expect(xml.match(/<testcase /g)).toHaveLength(7);
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
