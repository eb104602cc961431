import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { runConformance } from '../../src/engines/conformance/run-conformance.ts';
import { reportDocument } from '../../src/reporters/report-json.ts';
import { conformanceOnly } from '../../src/results/harness-run.ts';
import {
  type FixtureTarget,
  fileReporters,
  fixtureSuiteRoot,
  startFixtureTarget,
} from '../engines/conformance/fixture-run.ts';
import { sampleCatalog, sampleRun, wrongTokenResults } from './sample-run.ts';

const validate = new Ajv({ allErrors: true }).compile(schema);

describe('schemas/report.schema.json', () => {
  let fixture: FixtureTarget;
  let report: Record<string, unknown>;
  beforeAll(async () => {
    fixture = await startFixtureTarget();
    // Expectations make the real report hold every verdict kind, stale and expected failure included.
    const expectations = join(fixture.dir, 'expectations.json');
    await writeFile(
      expectations,
      JSON.stringify({
        expectations: [
          { case: 'fixture.fail', reason: 'known' },
          { case: 'fixture.pass', reason: 'was broken' },
        ],
      }),
    );
    const reportDir = join(fixture.dir, 'report');
    await runConformance({
      reporters: fileReporters(),
      targets: [fixture.targetFile],
      expectations,
      reportDir,
      suiteRoot: fixtureSuiteRoot,
    });
    report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as Record<string, unknown>;
  });
  afterAll(async () => {
    await fixture.server.close();
    await rm(fixture.dir, { recursive: true, force: true });
  });

  test('a real report with every verdict kind is valid', () => {
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    const kinds = new Set(
      (report.targets as { cases: { verdict: { kind: string } }[] }[]).flatMap((target) =>
        target.cases.map((item) => item.verdict.kind),
      ),
    );
    expect([...kinds].sort()).toEqual(['error', 'expected-failure', 'fail', 'observation', 'skip', 'stale']);
  });

  test('the schema rejects what a report must not be', () => {
    expect(validate({ ...report, gate: 'maybe' })).toBe(false);
    expect(validate({ ...report, extra: 1 })).toBe(false);
    const { totals: _totals, ...withoutTotals } = report;
    expect(validate(withoutTotals)).toBe(false);
  });

  test('a root cause validates, and a malformed one does not', () => {
    const cases = wrongTokenResults(9, 1);
    const run = { ...sampleRun, targets: [{ ...sampleRun.targets[0]!, cases }], results: cases };
    const document = JSON.parse(JSON.stringify(reportDocument(conformanceOnly(run), sampleCatalog, '9.9.9')));
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    document.targets[0].rootCause.cases = 0;
    expect(validate(document)).toBe(false);
  });
});
