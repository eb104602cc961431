/**
 * `svc-harness k6 merge`: one report from k6 JSON outputs made elsewhere, such as the runner pods of a
 * k6-operator run collected from their shared volume. Each k6 scenario in the files becomes one
 * scenario result: every file's samples in one HDR histogram (global percentiles), thresholds from
 * the files' metric lines and the command line judged over all of them. What only the harness's
 * own process knows (the scenario's settings, finish's accounting) is not in the files, so the
 * result says what it can: the load's span, the segments, the samples. Nor is a messaging scenario's
 * accounting: only the harness's sink, during a `load` run, sees what the target delivered, so its
 * `messages_lost` and per-message latency thresholds have no data here and fail (docs/load.md, k6-operator).
 */
import { existsSync } from 'node:fs';
import type { LoadRun, ScenarioResult } from '../../../results/load-run.ts';
import { parseThresholds, type Threshold } from '../../../results/threshold.ts';
import { harnessError } from '../../../shared/errors.ts';
import { openRunContext, type RunCommonOptions } from '../../context/run-context.ts';
import { loadExitCode, renderLoadRun } from '../load-run-end.ts';
import { mergeParts } from '../recorder.ts';
import { loadScenario, scenarioFile, scenarioNames, scenariosDir } from '../scenario-registry.ts';
import { scenarioResult } from '../scenario-result.ts';
import { readK6Outputs } from './k6-output.ts';

export interface MergeOptions extends RunCommonOptions {
  readonly files: readonly string[];
  /** k6-syntax thresholds applied to every scenario, on top of those the files carry. */
  readonly thresholds?: readonly string[];
}

/** The harness scenario's title when the name is one of ours, else the k6 scenario's name. */
async function titleOf(name: string): Promise<string> {
  if (!scenarioNames(scenariosDir).includes(name)) return name;
  return (await loadScenario(scenarioFile(name))).title;
}

export async function mergeK6Outputs(options: MergeOptions): Promise<LoadRun> {
  if (options.files.length === 0) throw harnessError('SVC_USAGE', 'k6 merge: name the k6 JSON output files to merge');
  for (const file of options.files) {
    if (!existsSync(file)) throw harnessError('SVC_USAGE', `k6 merge: no file ${file}`);
  }
  const cli = parseThresholds(options.thresholds ?? [], 'cli');
  const output = await readK6Outputs(options.files);
  if (output.scenarios.size === 0) {
    throw harnessError(
      'SVC_CONFIG',
      `k6 merge: no request of a k6 scenario in ${options.files.length} file(s) (${output.samples} samples): are they \`--out json\` outputs of a load run?`,
    );
  }
  // Opened once the files proved readable: bad input leaves no empty report folder behind. No target:
  // the files are the run's only input, and nothing is started.
  const context = await openRunContext('k6 merge', { targets: [] }, options);
  const { now, started } = context;
  const results: ScenarioResult[] = [];
  for (const [name, entry] of output.scenarios) {
    const own = new Set(entry.thresholds.map((threshold) => threshold.text));
    const thresholds: Threshold[] = [...entry.thresholds, ...cli.filter((threshold) => !own.has(threshold.text))];
    const spanS = Math.max(0.001, (entry.lastMs - entry.firstMs) / 1000);
    results.push(
      scenarioResult({
        base: {
          name,
          title: await titleOf(name),
          engine: 'k6',
          // The files do not say which executor ran; the harness's manifests use arrival rates.
          model: 'open',
          settings: {
            durationS: Math.round(spanS * 1000) / 1000,
            connections: 0,
            workers: 1,
            segments: entry.parts.length,
            seed: 0,
          },
          startedAt: entry.firstMs > 0 ? new Date(entry.firstMs).toISOString() : started.toISOString(),
        },
        merged: mergeParts(entry.parts),
        finish: {},
        problems: [],
        loadSeconds: spanS,
        durationMs: Math.max(1, entry.lastMs - entry.firstMs),
        thresholds,
      }),
    );
  }
  const finished = now();
  const run: LoadRun = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    target: `k6 outputs (${options.files.length} file${options.files.length === 1 ? '' : 's'})`,
    embedded: false,
    scenarios: results,
    problems: [],
    exitCode: loadExitCode(results, []),
  };
  await renderLoadRun(run, context.reportDir, context.events, context.redact);
  return run;
}
