/**
 * Self-validation of the key-value suite (issue 3): the reference without faults passes every MUST
 * case, and for every area-B fault switch a run with that switch on reports a failing case linked to
 * the rule the switch breaks. The share caught is the suite's mutation score; it must be 100%.
 * Each run is the CLI as a user runs it, filtered to one rule, two at a time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mapLimit } from '../../conformance/support/bounded.ts';
import { allFaults } from '../../src/reference/areas.ts';
import type { FaultSwitch } from '../../src/reference/fault-registry.ts';
import { runCli } from '../support/run-cli.ts';

const runTimeoutMs = 90_000;

interface ReportCase {
  readonly id: string;
  readonly rules: readonly string[];
  readonly verdict: { readonly kind: string; readonly reason?: string; readonly rule?: string };
}

interface RunResult {
  readonly exitCode: number | null;
  readonly output: string;
  readonly cases: readonly ReportCase[];
}

/** Runs `svc-harness conformance --area kv …` against the embedded reference; reads report.json. */
async function runConformance(dir: string, args: readonly string[]): Promise<RunResult> {
  const reportDir = await mkdtemp(join(dir, 'run-'));
  const run = await runCli(['conformance', '--area', 'kv', '--report-dir', reportDir, ...args], {
    reportDir,
    timeoutMs: runTimeoutMs,
  });
  const exitCode = run.exitCode;
  const output = run.stdout + run.stderr;
  // No report: the output says why, and the assertions below show it.
  const report = run.report as { targets: { cases: ReportCase[] }[] } | undefined;
  const cases = report?.targets.flatMap((target) => target.cases) ?? [];
  return { exitCode, output, cases };
}

/** A fault is caught when some case fails on the fault's rule: its verdict blames that rule. */
function caughtBy(run: RunResult, fault: FaultSwitch): ReportCase[] {
  return run.cases.filter((item) => item.verdict.kind === 'fail' && item.verdict.rule === fault.rule);
}

const kvFaults = allFaults.filter((fault) => fault.area === 'kv');
const mustFailKinds = new Set(['fail', 'error', 'stale']);
let dir = '';
let clean: RunResult;
const faultRuns = new Map<string, RunResult>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-self-validation-'));
  clean = await runConformance(dir, []);
  const runs = await mapLimit(kvFaults, 2, (fault) =>
    runConformance(dir, ['--fault', fault.name, '--rules', fault.rule]),
  );
  for (const [index, fault] of kvFaults.entries()) faultRuns.set(fault.name, runs[index] as RunResult);
  const caught = kvFaults.filter((fault) => caughtBy(faultRuns.get(fault.name) as RunResult, fault).length > 0);
  const lines = kvFaults.map((fault) => {
    const cases = caughtBy(faultRuns.get(fault.name) as RunResult, fault).map((item) => item.id);
    return `  ${cases.length > 0 ? 'caught' : 'MISSED'} ${fault.name} [${fault.rule}]${cases.length > 0 ? ` by ${cases.join(', ')}` : ''}`;
  });
  const percent = kvFaults.length === 0 ? 0 : Math.round((caught.length / kvFaults.length) * 1000) / 10;
  process.stdout.write(
    `${lines.join('\n')}\nmutation score: caught ${caught.length}/${kvFaults.length} fault switches (${percent}%)\n`,
  );
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the key-value suite against the reference without faults', () => {
  test('passes: exit code 0 and no MUST case fails', () => {
    const failing = clean.cases.filter((item) => mustFailKinds.has(item.verdict.kind));
    expect(failing.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    expect(clean.cases.length).toBeGreaterThan(50);
    expect(clean.exitCode, clean.output.slice(-2000)).toBe(0);
  });

  test('skips nothing: the reference offers every capability (read-only token, admin hook)', () => {
    const skipped = clean.cases.filter((item) => item.verdict.kind === 'skip');
    expect(skipped.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    const revoke = clean.cases.find((item) => item.id === 'kv.acl.password-reset-revokes');
    expect(revoke?.verdict.kind).toBe('pass');
  });
});

describe('every area-B fault switch is caught (mutation score 100%)', () => {
  test('there are area-B fault switches', () => {
    expect(kvFaults.length).toBeGreaterThan(0);
  });

  test.each(kvFaults.map((fault) => [fault.name, fault] as const))('%s', (_name, fault) => {
    const run = faultRuns.get(fault.name) as RunResult;
    const failing = run.cases.filter((item) => item.verdict.kind === 'fail');
    expect(
      caughtBy(run, fault).map((item) => item.id),
      `no failing case names ${fault.rule}; failing: ${failing.map((item) => item.id).join(', ') || 'none'}\n${run.output.slice(-1500)}`,
    ).not.toEqual([]);
  });
});
