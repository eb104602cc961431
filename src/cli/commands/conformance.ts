/** `svc-harness conformance`: the options into runConformance, with the reporters chosen by name. */
import { runConformance } from '../../engines/conformance/run-conformance.ts';
import { createReporters, type ReporterName } from '../../reporters/registry.ts';
import { parseDurationMs } from '../../shared/duration.ts';
import { harnessError } from '../../shared/errors.ts';
import { parseAreaList, targetAreas } from '../../target/areas.ts';
import { imageFlag, withImageTargets } from '../image-flag.ts';
import { withInterrupts } from '../interrupts.ts';
import type { ParsedValues } from '../parsed-values.ts';
import { sinkSettings } from '../sink-flags.ts';
import { logLine, targetChoice } from '../target-flags.ts';

export async function run(values: ParsedValues): Promise<number> {
  const areas = parseAreaList('conformance', values.area as string | undefined, targetAreas);
  // parse-argv lets only reporter names through (the command table lists them as choices).
  const reporters = createReporters(values.reporter as ReporterName[] | undefined);
  const sink = sinkSettings(values);
  const targets = targetChoice('conformance', values);
  const image = imageFlag(values);
  const timeoutText = values.timeout as string | undefined;
  const timeoutMs = timeoutText === undefined ? undefined : parseDurationMs(timeoutText);
  if (timeoutText !== undefined && (timeoutMs === undefined || timeoutMs <= 0)) {
    throw harnessError('SVC_USAGE', `conformance: --timeout takes a duration (2s), not "${timeoutText}"`);
  }
  const result = await withInterrupts((signal) =>
    withImageTargets(image, targets.files, (files) =>
      runConformance({
        targets: files,
        ...(targets.environment && { environmentTarget: targets.environment }),
        log: logLine,
        ...(areas && { areas }),
        ...(typeof values.rules === 'string' && { rules: values.rules }),
        // Whole numbers of at least 1 are checked by parse-argv (the command table marks the flag).
        ...(typeof values.concurrency === 'number' && { caseConcurrency: values.concurrency }),
        ...(timeoutMs !== undefined && { caseTimeoutMs: timeoutMs }),
        ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
        ...(typeof values.expectations === 'string' && { expectations: values.expectations }),
        faults: (values.fault as string[] | undefined) ?? [],
        silences: (values.silence as string[] | undefined) ?? [],
        ...(typeof values['order-seed'] === 'number' && { order: { seed: values['order-seed'] } }),
        ...(sink && { sink }),
        signal,
        reporters,
      }),
    ),
  );
  return result.exitCode;
}
