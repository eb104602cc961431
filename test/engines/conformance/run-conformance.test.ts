import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runConformance } from '../../../src/engines/conformance/run-conformance.ts';
import type { ConformanceRun } from '../../../src/results/conformance-run.ts';
import { isHarnessError } from '../../../src/shared/errors.ts';
import { type FixtureTarget, fileReporters, fixtureSuiteRoot, startFixtureTarget } from './fixture-run.ts';

let fixture: FixtureTarget;

beforeAll(async () => {
  fixture = await startFixtureTarget();
});
afterAll(async () => {
  await fixture.server.close();
  await rm(fixture.dir, { recursive: true, force: true });
});

const verdictOf = (run: ConformanceRun, id: string) => run.results.find((result) => result.caseId === id)?.verdict;

describe('runConformance against the fixture suite', () => {
  let run: ConformanceRun;
  beforeAll(async () => {
    run = await runConformance({
      reporters: fileReporters(),
      targets: [fixture.targetFile],
      reportDir: join(fixture.dir, 'all'),
      suiteRoot: fixtureSuiteRoot,
    });
  });

  test('maps every way a case ends to its verdict', () => {
    expect(verdictOf(run, 'fixture.pass')).toEqual({ kind: 'pass' });
    expect(verdictOf(run, 'fixture.fail')).toMatchObject({ kind: 'fail', rule: 'B.path.command-args' });
    expect(verdictOf(run, 'fixture.observe')).toMatchObject({ kind: 'observation' });
    expect(verdictOf(run, 'fixture.observe-check')).toMatchObject({ kind: 'observation' });
    expect(verdictOf(run, 'fixture.needs-admin')).toMatchObject({
      kind: 'skip',
      reason: expect.stringContaining('admin'),
    });
    expect(verdictOf(run, 'fixture.stall')).toMatchObject({ kind: 'error', reason: expect.stringContaining('300 ms') });
  });

  test('a failure fails the gate with exit code 1', () => {
    expect(run.exitCode).toBe(1);
  });

  test('the key prefix names the run and the case', () => {
    const observe = run.results.find((result) => result.caseId === 'fixture.observe');
    expect(observe?.notes[0]).toMatch(/^key prefix svch:[0-9a-f]{8}:fixture\.observe:$/);
  });

  test('writes the three reports, none holding the token', async () => {
    const dir = join(fixture.dir, 'all');
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'report.json', 'summary.md']);
    for (const name of ['junit.xml', 'report.json', 'summary.md']) {
      const text = await readFile(join(dir, name), 'utf8');
      expect(text).not.toContain(fixture.server.token);
    }
    const secretCase = run.results.find((result) => result.caseId === 'fixture.secret-echo');
    expect(JSON.stringify(secretCase)).toContain('[redacted]');
    expect(JSON.stringify(run)).not.toContain(fixture.server.token);
  });
});

describe('rule filter', () => {
  test('--rules keeps only the cases of matching rules; all passing gives exit code 0', async () => {
    const run = await runConformance({
      reporters: fileReporters(),
      targets: [fixture.targetFile],
      rules: 'B.status.*,B.observe.*',
      reportDir: join(fixture.dir, 'filtered'),
      suiteRoot: fixtureSuiteRoot,
    });
    expect(run.results.map((result) => result.caseId).sort()).toEqual([
      'fixture.observe',
      'fixture.observe-check',
      'fixture.pass',
    ]);
    expect(run.exitCode).toBe(0);
  });

  test('a glob that matches no rule is a usage error', async () => {
    const error = await runConformance({
      reporters: fileReporters(),
      targets: [fixture.targetFile],
      rules: 'Z.*',
      suiteRoot: fixtureSuiteRoot,
    }).catch((caught: unknown) => caught);
    expect(isHarnessError(error) && error.code).toBe('SVC_USAGE');
  });
});

describe('a seeded order', () => {
  /** The cases in the order they ended, and their verdicts. */
  async function ordered(order?: { seed: number }) {
    const ended: string[] = [];
    const run = await runConformance({
      reporters: [{ name: 'order', onResult: (result) => ended.push(result.caseId) }],
      targets: [fixture.targetFile],
      reportDir: join(fixture.dir, `order-${order?.seed ?? 'none'}`),
      suiteRoot: fixtureSuiteRoot,
      ...(order && { order }),
    });
    expect(run.settings.orderSeed).toBe(order?.seed);
    return { ended, verdicts: run.results.map((result) => [result.caseId, result.verdict.kind]) };
  }

  test('reaches the suite file: some seed runs the cases in another order, with the same verdicts', async () => {
    const plain = await ordered();
    const seeded = [];
    for (const seed of [1, 2, 3]) seeded.push(await ordered({ seed }));
    expect(seeded.some((run) => run.ended.join() !== plain.ended.join())).toBe(true);
    for (const run of seeded) expect(run.verdicts).toEqual(plain.verdicts);
  });

  test('a seed that is not a whole number from 0 to 2^32 - 1 is a usage error', async () => {
    const error = await runConformance({
      targets: [fixture.targetFile],
      order: { seed: 1.5 },
      suiteRoot: fixtureSuiteRoot,
    }).catch((caught: unknown) => caught);
    expect(isHarnessError(error) && error.code).toBe('SVC_USAGE');
  });
});

describe('expectations', () => {
  async function runWith(expectations: unknown, rules: string) {
    const file = join(fixture.dir, `expectations-${rules.length}-${Math.random()}.json`);
    await writeFile(file, JSON.stringify(expectations));
    return runConformance({
      reporters: fileReporters(),
      targets: [fixture.targetFile],
      rules,
      expectations: file,
      reportDir: join(fixture.dir, 'expectations'),
      suiteRoot: fixtureSuiteRoot,
    });
  }

  test('an unexpired expectation turns a failure into an expected failure (exit 0)', async () => {
    const run = await runWith(
      { expectations: [{ case: 'fixture.fail', reason: 'known echo bug', expires: '2999-01-01' }] },
      'B.path.*',
    );
    expect(verdictOf(run, 'fixture.fail')).toMatchObject({ kind: 'expected-failure' });
    expect(run.exitCode).toBe(0);
  });

  test('an expired expectation lets the failure count (exit 1)', async () => {
    const run = await runWith(
      { expectations: [{ rule: 'B.path.command-args', reason: 'old', expires: '2000-01-01' }] },
      'B.path.*',
    );
    expect(verdictOf(run, 'fixture.fail')).toMatchObject({ kind: 'fail', reason: expect.stringContaining('expired') });
    expect(run.exitCode).toBe(1);
  });

  test('an expectation on a passing case is stale and fails the gate (exit 1)', async () => {
    const run = await runWith({ expectations: [{ case: 'fixture.pass', reason: 'was broken' }] }, 'B.status.*');
    expect(verdictOf(run, 'fixture.pass')).toMatchObject({ kind: 'stale' });
    expect(run.exitCode).toBe(1);
  });
});

describe('several targets', () => {
  test('one report with a section per target; names made unique', async () => {
    const run = await runConformance({
      reporters: fileReporters(),
      targets: [fixture.targetFile, fixture.targetFile],
      rules: 'B.status.*',
      reportDir: join(fixture.dir, 'two'),
      suiteRoot: fixtureSuiteRoot,
    });
    expect(run.targets.map((target) => target.name)).toEqual(['fixture', 'fixture#2']);
    expect(run.results).toHaveLength(2);
    const report = JSON.parse(await readFile(join(fixture.dir, 'two', 'report.json'), 'utf8')) as {
      targets: { name: string; cases: unknown[] }[];
    };
    expect(report.targets.map((target) => [target.name, target.cases.length])).toEqual([
      ['fixture', 1],
      ['fixture#2', 1],
    ]);
  });
});
