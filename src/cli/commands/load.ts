/**
 * `svc-harness load <scenario…>`: flags into settings (checked first), then runLoad with the reporters;
 * `--list` prints the scenarios with their parameters instead.
 */
import { parseLoadSettings } from '../../engines/load/load-settings.ts';
import { runLoad } from '../../engines/load/run-load.ts';
import { listScenarios } from '../../engines/load/scenario-list.ts';
import { createReporters, type ReporterName } from '../../reporters/registry.ts';
import { baselineOption } from '../compare-flags.ts';
import { imageFlag, withImageTargets } from '../image-flag.ts';
import { withInterrupts } from '../interrupts.ts';
import { paramTexts, settingValues } from '../load-flags.ts';
import type { ParsedValues } from '../parsed-values.ts';
import { sinkSettings } from '../sink-flags.ts';
import { targetChoice } from '../target-flags.ts';

export async function run(values: ParsedValues): Promise<number> {
  if (values.list === true) {
    process.stdout.write(await listScenarios((values._ as string[] | undefined) ?? []));
    return 0;
  }
  const settings = parseLoadSettings(settingValues(values), paramTexts(values));
  const reporters = createReporters(values.reporter as ReporterName[] | undefined);
  const targets = targetChoice('load', values);
  const sink = sinkSettings(values);
  const baseline = baselineOption(values);
  const image = imageFlag(values);
  const result = await withInterrupts((signal) =>
    withImageTargets(image, targets.files, (files) =>
      runLoad({
        scenarios: (values._ as string[] | undefined) ?? [],
        ...(files[0] !== undefined && { target: files[0] }),
        ...(targets.environment && { environmentTarget: targets.environment }),
        settings,
        thresholds: (values.threshold as string[] | undefined) ?? [],
        ...(sink && { sink }),
        ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
        ...(baseline && { baseline }),
        signal,
        reporters,
        log: (line) => process.stderr.write(`${line}\n`),
      }),
    ),
  );
  return result.exitCode;
}
