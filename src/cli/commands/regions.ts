/** `svc-harness regions`: flags into options (checked first), then runRegions with the reporters. */
import { runRegions } from '../../engines/regions/run-regions.ts';
import { createReporters, type ReporterName } from '../../reporters/registry.ts';
import { parseDurationMs } from '../../shared/duration.ts';
import { harnessError } from '../../shared/errors.ts';
import { withInterrupts } from '../interrupts.ts';
import type { ParsedValues } from '../parsed-values.ts';
import { sinkSettings } from '../sink-flags.ts';
import { targetChoice } from '../target-flags.ts';

export async function run(values: ParsedValues): Promise<number> {
  const durationText = typeof values.duration === 'string' ? values.duration : '10s';
  const durationMs = parseDurationMs(durationText);
  if (durationMs === undefined || durationMs < 1000) {
    throw harnessError(
      'SVC_USAGE',
      `regions: --duration takes a duration of 1s or more (10s, 1m30s), not "${durationText}"`,
    );
  }
  const reporters = createReporters(values.reporter as ReporterName[] | undefined);
  const targets = targetChoice('regions', values);
  const sink = sinkSettings(values);
  const result = await withInterrupts((signal) =>
    runRegions({
      ...(targets.files[0] !== undefined && { target: targets.files[0] }),
      ...(targets.environment && { environmentTarget: targets.environment }),
      durationS: durationMs / 1000,
      ...(typeof values.rounds === 'number' && { rounds: values.rounds }),
      ...(sink && { sink }),
      ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
      signal,
      reporters,
    }),
  );
  return result.exitCode;
}
