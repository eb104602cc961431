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
import { sampleHarnessRun, sampleLoadRun } from './sample-load-run.ts';
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

describe('schemas/report.schema.json: messaging accounting', () => {
  const document = JSON.parse(
    JSON.stringify(reportDocument(sampleHarnessRun('/tmp/unused'), sampleCatalog, '9.9.9')),
  ) as { load: { scenarios: Record<string, unknown>[] } };
  const entry = (name: string) => {
    const found = document.load.scenarios.find((scenario) => scenario.name === name);
    if (!found) throw new Error(`no scenario ${name}`);
    return found as { messaging: Record<string, unknown> | null } & Record<string, unknown>;
  };

  test('a run with both parts and messaging scenarios is valid; the model is kept as it is', () => {
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(entry('command').messaging).toBeNull();
    const messaging = entry('callback-throughput').messaging!;
    expect(Object.keys(messaging)).toEqual([
      'accepted',
      'waitedS',
      'strays',
      'unclassified',
      'signatures',
      'delivery',
      'callbacks',
      'failureCallbacks',
      'waiters',
      'complete',
      'series',
    ]);
    expect(messaging.waiters).toBeNull();
    const model = sampleLoadRun.scenarios.find((scenario) => scenario.name === 'callback-throughput')!.accounting
      .messaging!;
    expect(messaging.callbacks).toMatchObject({
      expected: model.callbacks!.expected,
      received: model.callbacks!.expected - 1,
      lost: 1,
      duplicated: 0,
      unexpected: 0,
      badSignatures: 0,
      histogram: model.callbacks!.histogram,
    });
    expect(messaging.series).toHaveLength(model.series.length);
    const fanout = entry('publish-fanout').messaging as { delivery: { byTags: { tags: unknown; lost: number }[] } };
    expect(fanout.delivery.byTags.map((item) => [item.tags, item.lost])).toContainEqual([{ endpoint: 'e2' }, 3]);
  });

  test('the schema rejects a malformed messaging entry', () => {
    const broken = (change: (messaging: Record<string, unknown>) => void) => {
      const copy = structuredClone(document);
      const found = copy.load.scenarios.find((scenario) => scenario.name === 'publish-fanout') as {
        messaging: Record<string, unknown>;
      };
      change(found.messaging);
      return validate(copy);
    };
    expect(broken(() => {})).toBe(true);
    expect(broken((messaging) => ((messaging.delivery as Record<string, unknown>).lost = -1))).toBe(false);
    expect(broken((messaging) => delete messaging.callbacks)).toBe(false);
    expect(broken((messaging) => ((messaging.series as Record<string, unknown>[])[0]!.stream = 'deliveries'))).toBe(
      false,
    );
    expect(broken((messaging) => ((messaging.signatures as Record<string, unknown>).extra = 1))).toBe(false);
  });
});
