/**
 * `svc-harness run`: the main job. Conformance, then a short load run of every scenario against the
 * same target (the embedded reference stays up between them), rendered as one run into one report.
 */

import { loadSettingsOf } from '../../engines/load/load-settings.ts';
import { checkScenarioParams } from '../../engines/load/scenario-params.ts';
import { runMainJob } from '../../engines/run/main-job.ts';
import type { CommandValues } from '../command-table.ts';
import { baselineOption } from '../compare-flags.ts';
import { imageFlag, withImageTargets } from '../image-flag.ts';
import { withInterrupts } from '../interrupts.ts';
import { reportersOf } from '../reporter-flags.ts';
import { sinkSettings } from '../sink-flags.ts';
import { logLine, oneTarget, targetChoice } from '../target-flags.ts';

export async function run(values: CommandValues<'run'>): Promise<number> {
  const settings = loadSettingsOf(
    { duration: values.duration, timeout: values.timeout, warmup: values.warmup },
    values.param ?? [],
    'run',
  );
  // Before conformance starts: a parameter no scenario declares is a usage line, not a surprise after it.
  await checkScenarioParams(settings.params ?? {}, 'run');
  const sink = sinkSettings(values);
  const baseline = baselineOption(values);
  const targets = targetChoice('run', oneTarget(values.target));
  const image = imageFlag(values);
  // Last of the checks: the outputs' files are made here.
  const reporters = await reportersOf('run', values);
  const result = await withInterrupts((signal) =>
    withImageTargets(image, targets.files, (files) =>
      runMainJob({
        ...(files[0] !== undefined && { target: files[0] }),
        ...(targets.environment && { environmentTarget: targets.environment }),
        log: logLine,
        settings,
        maxDurationS: 3,
        thresholds: values.threshold ?? [],
        ...(values.expectations !== undefined && { expectations: values.expectations }),
        ...(values['report-dir'] !== undefined && { reportDir: values['report-dir'] }),
        ...(sink && { sink }),
        ...(baseline && { baseline }),
        // The same --timeout the load half reads (parse-argv read it once, as a duration above zero).
        caseTimeoutMs: settings.timeoutMs,
        ...(values.concurrency !== undefined && { caseConcurrency: values.concurrency }),
        signal,
        reporters,
      }),
    ),
  );
  return result.exitCode;
}
