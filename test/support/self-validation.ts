/**
 * Self-validation of a suite against the reference: a clean run, then one run per fault switch of
 * the area (`--fault NAME --rules RULE`, a few at a time), each the CLI as a user runs it. A fault is
 * caught when a case fails on the fault's rule; the share caught is the suite's mutation score.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { mapLimit } from '../../conformance/support/bounded.ts';
import type { FaultSwitch } from '../../src/reference/fault-registry.ts';
import { runCli } from './run-cli.ts';

const runTimeoutMs = 90_000;

export interface ReportCase {
  readonly id: string;
  readonly rules: readonly string[];
  readonly verdict: { readonly kind: string; readonly reason?: string; readonly rule?: string };
}

export interface RunResult {
  readonly exitCode: number | null;
  readonly output: string;
  readonly cases: readonly ReportCase[];
}

/** Runs `svc-harness conformance --area AREA …` against the embedded reference; reads report.json. */
export async function runConformance(
  dir: string,
  area: string,
  args: readonly string[],
  timeoutMs = runTimeoutMs,
): Promise<RunResult> {
  const reportDir = await mkdtemp(join(dir, 'run-'));
  const run = await runCli(['conformance', '--area', area, '--report-dir', reportDir, ...args], {
    reportDir,
    timeoutMs,
  });
  // No report: the output says why, and the assertions show it.
  const report = run.report as { targets: { cases: ReportCase[] }[] } | undefined;
  const cases = report?.targets.flatMap((target) => target.cases) ?? [];
  return { exitCode: run.exitCode, output: run.stdout + run.stderr, cases };
}

/** A fault is caught when some case fails on the fault's rule: its verdict blames that rule. */
export function caughtBy(run: RunResult, fault: FaultSwitch): ReportCase[] {
  return run.cases.filter((item) => item.verdict.kind === 'fail' && item.verdict.rule === fault.rule);
}

/** The fault's run has a case failing on its rule; the message lists what failed instead. */
export function expectCaught(run: RunResult, fault: FaultSwitch): void {
  const failing = run.cases.filter((item) => item.verdict.kind === 'fail');
  expect(
    caughtBy(run, fault).map((item) => item.id),
    `no failing case names ${fault.rule}; failing: ${failing.map((item) => item.id).join(', ') || 'none'}\n${run.output.slice(-1500)}`,
  ).not.toEqual([]);
}

/**
 * One run per fault, `concurrency` at a time; prints each fault's catch and the mutation score. The kv
 * suite keeps the CPU busy (two at a time); the messaging suite mostly waits for the sink, so its runs
 * overlap further.
 */
export async function runFaults(
  dir: string,
  area: string,
  faults: readonly FaultSwitch[],
  concurrency = 2,
): Promise<Map<string, RunResult>> {
  const runs = await mapLimit(faults, concurrency, (fault) =>
    runConformance(dir, area, ['--fault', fault.name, '--rules', fault.rule]),
  );
  const byName = new Map<string, RunResult>();
  for (const [index, fault] of faults.entries()) byName.set(fault.name, runs[index] as RunResult);
  const caught = faults.filter((fault) => caughtBy(byName.get(fault.name) as RunResult, fault).length > 0);
  const lines = faults.map((fault) => {
    const cases = caughtBy(byName.get(fault.name) as RunResult, fault).map((item) => item.id);
    return `  ${cases.length > 0 ? 'caught' : 'MISSED'} ${fault.name} [${fault.rule}]${cases.length > 0 ? ` by ${cases.join(', ')}` : ''}`;
  });
  const percent = faults.length === 0 ? 0 : Math.round((caught.length / faults.length) * 1000) / 10;
  process.stdout.write(
    `${lines.join('\n')}\n${area} mutation score: caught ${caught.length}/${faults.length} fault switches (${percent}%)\n`,
  );
  return byName;
}
