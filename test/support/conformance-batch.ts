/**
 * Many conformance runs against the embedded reference in one process: `node test/support/conformance-batch.ts
 * SPEC.json`, where the file holds `{ runs: BatchRun[] }`. Each run is `runConformance` of the programmatic API
 * (the CLI's own engine, minus argv and the console), one after another, each with its own reference and
 * report folder; its cases go to `<out>` as JSON, as the self-validation reads them from report.json.
 *
 * Why a batch: a CLI run per fault switch paid Node's start, the CLI's few hundred modules, the rule catalog
 * and every case file again, about half of a one-rule run's 2.3 s of CPU; the self-validation makes about
 * 250 such runs, and CI's exhaustive step was CPU-bound on them. One process a batch, so a defect in one
 * run's clean-up cannot reach another batch, and no two runs share a process at once (a run owns the
 * process's signal handlers and exit code while it lasts). The runs of a batch share one vitest
 * (`withKeptRunner`): its start is paid once a batch (12 one-rule kv runs: 10.5 CPU s, against 11.9 s
 * with a vitest each), while each run keeps its own reference, case files, target and collector.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { runConformance } from '../../src/cli/api.ts';
import { withKeptRunner } from '../../src/engines/conformance/vitest-runner.ts';
import { verdictRule } from '../../src/results/verdict.ts';
import type { TargetArea } from '../../src/target/target.ts';

/** One conformance run of a batch: what `svc-harness conformance` would be given. */
export interface BatchRun {
  readonly areas: readonly TargetArea[];
  readonly faults?: readonly string[];
  readonly silences?: readonly string[];
  readonly rules?: string;
  /** Its report folder, and where the cases are written (`<reportDir>/cases.json`). */
  readonly reportDir: string;
}

/** What a batch writes for each run: the exit code the CLI would give, its cases, and what went wrong. */
export interface BatchResult {
  readonly exitCode: number;
  readonly cases: readonly {
    readonly id: string;
    readonly rules: readonly string[];
    readonly verdict: { readonly kind: string; readonly reason?: string; readonly rule?: string };
  }[];
  /** The run's problems and each case that did not pass, one line each, as the console would say them. */
  readonly output: string;
}

export const batchResultFile = (run: BatchRun) => `${run.reportDir}/cases.json`;

async function runOne(run: BatchRun): Promise<BatchResult> {
  try {
    const done = await runConformance({
      areas: run.areas,
      faults: run.faults ?? [],
      silences: run.silences ?? [],
      ...(run.rules !== undefined && { rules: run.rules }),
      reportDir: run.reportDir,
      reporters: [],
    });
    const cases = done.results.map((result) => {
      const rule = verdictRule(result.verdict);
      const reason = 'reason' in result.verdict ? result.verdict.reason : undefined;
      return {
        id: result.caseId,
        rules: [...result.rules],
        verdict: { kind: result.verdict.kind, ...(reason !== undefined && { reason }), ...(rule && { rule }) },
      };
    });
    const lines = [
      ...done.problems.map((line) => `problem: ${line}`),
      ...cases
        .filter((item) => item.verdict.kind !== 'pass')
        .map(
          (item) =>
            `${item.verdict.kind.toUpperCase()} ${item.id} [${item.verdict.rule ?? ''}] ${item.verdict.reason ?? ''}`,
        ),
      `exit code ${done.exitCode}`,
    ];
    return { exitCode: done.exitCode, cases, output: lines.join('\n') };
  } catch (error) {
    return {
      exitCode: 2,
      cases: [],
      output: `the run threw: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

async function main(specFile: string): Promise<void> {
  const { runs } = JSON.parse(await readFile(specFile, 'utf8')) as { runs: BatchRun[] };
  // One vitest for the whole batch: each run's case files, target and collector are its own, but vitest's
  // and vite's start (about 1.2 s of CPU) is paid once.
  await withKeptRunner(async () => {
    for (const run of runs) {
      const result = await runOne(run);
      await mkdir(dirname(batchResultFile(run)), { recursive: true });
      await writeFile(batchResultFile(run), JSON.stringify(result));
    }
  });
}

if (import.meta.main) {
  const [specFile] = process.argv.slice(2);
  if (specFile === undefined) {
    process.stderr.write('usage: node test/support/conformance-batch.ts SPEC.json\n');
    process.exit(2);
  }
  await main(specFile);
  // A run's leftovers (a vitest worker winding down) must not keep the batch alive once its files are written.
  process.exit(0);
}
