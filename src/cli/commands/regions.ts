/** `svc-harness regions`: flags into options (checked first), then runRegions with the reporters. */
import { runRegions } from '../../engines/regions/run-regions.ts';
import type { CommandValues } from '../command-table.ts';
import { withInterrupts } from '../interrupts.ts';
import { reportersOf } from '../reporter-flags.ts';
import { sinkSettings } from '../sink-flags.ts';
import { oneTarget, targetChoice } from '../target-flags.ts';

/** The measuring time when --duration is left out (the command table's default says the same). */
const defaultDurationMs = 10_000;

export async function run(values: CommandValues<'regions'>): Promise<number> {
  // parse-argv took only a duration of 1s or more (the command table's row says so).
  const durationMs = values.duration ?? defaultDurationMs;
  const reporters = await reportersOf('regions', values);
  const targets = targetChoice('regions', oneTarget(values.target));
  const sink = sinkSettings(values);
  const result = await withInterrupts((signal) =>
    runRegions({
      ...(targets.files[0] !== undefined && { target: targets.files[0] }),
      ...(targets.environment && { environmentTarget: targets.environment }),
      durationS: durationMs / 1000,
      ...(values.rounds !== undefined && { rounds: values.rounds }),
      ...(sink && { sink }),
      ...(values['report-dir'] !== undefined && { reportDir: values['report-dir'] }),
      signal,
      reporters,
    }),
  );
  return result.exitCode;
}
