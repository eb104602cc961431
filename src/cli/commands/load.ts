/** `svc-harness load <scenario…>`: flags into settings (checked first), then runLoad with the reporters. */
import { parseLoadSettings } from '../../engines/load/load-settings.ts';
import { runLoad } from '../../engines/load/run-load.ts';
import { createReporters, type ReporterName } from '../../reporters/registry.ts';
import { withInterrupts } from '../interrupts.ts';
import { settingValues } from '../load-flags.ts';
import type { ParsedValues } from '../parsed-values.ts';
import { sinkSettings } from '../sink-flags.ts';
import { targetChoice } from '../target-flags.ts';

export async function run(values: ParsedValues): Promise<number> {
  const settings = parseLoadSettings(settingValues(values));
  const reporters = createReporters(values.reporter as ReporterName[] | undefined);
  const targets = targetChoice('load', values);
  const sink = sinkSettings(values);
  const result = await withInterrupts((signal) =>
    runLoad({
      scenarios: (values._ as string[] | undefined) ?? [],
      ...(targets.files[0] !== undefined && { target: targets.files[0] }),
      ...(targets.environment && { environmentTarget: targets.environment }),
      settings,
      thresholds: (values.threshold as string[] | undefined) ?? [],
      ...(sink && { sink }),
      ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
      signal,
      reporters,
      log: (line) => process.stderr.write(`${line}\n`),
    }),
  );
  return result.exitCode;
}
