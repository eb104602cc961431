/**
 * Self-validation of a suite against the reference: a clean run through the CLI as a user runs it, then
 * one run per fault switch of the area (`faults: [NAME], rules: RULE`), in batches of the programmatic
 * API's runConformance, a few batches at a time (conformance-batch.ts says why). A fault is caught when
 * a case fails on the fault's rule; the share caught is the suite's mutation score.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { mapLimit } from '../../conformance/support/bounded.ts';
import type { FaultSwitch } from '../../src/reference/fault-registry.ts';
import type { TargetArea } from '../../src/target/target.ts';
import { type BatchResult, type BatchRun, batchResultFile } from './conformance-batch.ts';
import { repoRoot, runCli, startProcess } from './run-cli.ts';

// A run that took 30 s on a quiet machine took past 90 s in a CI whose package builds and three other
// exhaustive files filled both cores of a slower machine.
const runTimeoutMs = 240_000;

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

/** A run of a batch, by the name its caller knows it by (a switch's name). */
export interface KeyedRun {
  readonly key: string;
  readonly run: Omit<BatchRun, 'reportDir'>;
}

/** Runs per batch process: its start (about 1.3 s of CPU) is paid once for this many runs. */
const runsPerBatch = 12;
/** A batch's whole budget: its runs one after another, each within a CLI run's budget. */
const batchTimeoutMs = (runs: number) => runs * runTimeoutMs + 30_000;

/**
 * The runs in batches of at most `runsPerBatch`, each batch a process of its own, `concurrency` batches
 * at a time. Runs are dealt to the batches in turn, so a family's slow runs spread over them. A batch
 * that dies leaves its unfinished runs without cases, and their output says how it ended.
 */
export async function runBatched(
  dir: string,
  runs: readonly KeyedRun[],
  concurrency: number,
): Promise<Map<string, RunResult>> {
  // A multiple of `concurrency`, so the last round keeps every lane busy.
  const lanes = Math.max(1, Math.min(concurrency, runs.length));
  const count = lanes * Math.ceil(runs.length / (lanes * runsPerBatch));
  const batches = Array.from({ length: count }, (_, index) => runs.filter((_, at) => at % count === index));
  const results = new Map<string, RunResult>();
  await mapLimit(batches, concurrency, async (batch) => {
    const planned = await Promise.all(
      batch.map(async ({ key, run }) => ({ key, run: { ...run, reportDir: await mkdtemp(join(dir, 'run-')) } })),
    );
    const spec = join(dir, `batch-${planned[0]?.key ?? 'empty'}.json`);
    await writeFile(spec, JSON.stringify({ runs: planned.map((item) => item.run) }));
    const done = await startProcess('node', [join(repoRoot, 'test', 'support', 'conformance-batch.ts'), spec], {
      timeoutMs: batchTimeoutMs(planned.length),
    }).finished;
    for (const { key, run } of planned) {
      const written = await readFile(batchResultFile(run), 'utf8').then(
        (text) => JSON.parse(text) as BatchResult,
        () => undefined,
      );
      results.set(
        key,
        written ?? {
          exitCode: done.exitCode,
          cases: [],
          output: `the batch ended (exit ${done.exitCode}) before this run wrote its cases\n${done.stdout.slice(-1000)}\n${done.stderr.slice(-1500)}`,
        },
      );
    }
  });
  return results;
}

/**
 * One run per fault (its rule's cases only), in batches, `concurrency` batches at a time; prints each
 * fault's catch and the mutation score. The kv suite keeps the CPU busy (two at a time); the messaging
 * suite mostly waits for the sink, so its batches overlap further.
 */
export async function runFaults(
  dir: string,
  area: TargetArea,
  faults: readonly FaultSwitch[],
  concurrency = 2,
): Promise<Map<string, RunResult>> {
  const byName = await runBatched(
    dir,
    faults.map((fault) => ({
      key: fault.name,
      run: { areas: [area], faults: [fault.name], rules: fault.rule },
    })),
    concurrency,
  );
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
