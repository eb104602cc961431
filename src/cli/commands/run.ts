/**
 * `svc-harness run`: the main job. Conformance, then a short load run of every scenario against the
 * same target (the embedded reference stays up between them), rendered as one run into one report.
 */

import { parseLoadSettings } from '../../engines/load/load-settings.ts';
import { checkScenarioParams } from '../../engines/load/scenario-params.ts';
import { runMainJob } from '../../engines/run/main-job.ts';
import { createReporters, type ReporterName } from '../../reporters/registry.ts';
import { baselineOption } from '../compare-flags.ts';
import { imageFlag, withImageTargets } from '../image-flag.ts';
import { withInterrupts } from '../interrupts.ts';
import { paramTexts } from '../load-flags.ts';
import type { ParsedValues } from '../parsed-values.ts';
import { sinkSettings } from '../sink-flags.ts';
import { logLine, targetChoice } from '../target-flags.ts';

export async function run(values: ParsedValues): Promise<number> {
  const settings = parseLoadSettings(
    {
      ...(typeof values.duration === 'string' && { duration: values.duration }),
      ...(typeof values.timeout === 'string' && { timeout: values.timeout }),
    },
    paramTexts(values),
    'run',
  );
  // Before conformance starts: a parameter no scenario declares is a usage line, not a surprise after it.
  await checkScenarioParams(settings.params ?? {}, 'run');
  const reporters = createReporters(values.reporter as ReporterName[] | undefined);
  const sink = sinkSettings(values);
  const baseline = baselineOption(values);
  const targets = targetChoice('run', values);
  const image = imageFlag(values);
  const result = await withInterrupts((signal) =>
    withImageTargets(image, targets.files, (files) =>
      runMainJob({
        ...(files[0] !== undefined && { target: files[0] }),
        ...(targets.environment && { environmentTarget: targets.environment }),
        log: logLine,
        settings,
        maxDurationS: 3,
        thresholds: (values.threshold as string[] | undefined) ?? [],
        ...(typeof values.expectations === 'string' && { expectations: values.expectations }),
        ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
        ...(sink && { sink }),
        ...(baseline && { baseline }),
        // The load half checked the same --timeout text above (parseLoadSettings: one usage line if bad).
        caseTimeoutMs: settings.timeoutMs,
        ...(typeof values.concurrency === 'number' && { caseConcurrency: values.concurrency }),
        signal,
        reporters,
      }),
    ),
  );
  return result.exitCode;
}
