/**
 * `svc-harness load <scenario…>`: flags into settings (checked first), then runLoad with the reporters;
 * `--list` prints the scenarios with their parameters instead.
 */
import { loadSettingsOf } from '../../engines/load/load-settings.ts';
import { runLoad } from '../../engines/load/run-load.ts';
import { listScenarios } from '../../engines/load/scenario-list.ts';
import type { CommandValues } from '../command-table.ts';
import { baselineOption } from '../compare-flags.ts';
import { imageFlag, withImageTargets } from '../image-flag.ts';
import { withInterrupts } from '../interrupts.ts';
import { reportersOf } from '../reporter-flags.ts';
import { sinkSettings } from '../sink-flags.ts';
import { oneTarget, targetChoice } from '../target-flags.ts';

export async function run(values: CommandValues<'load'>): Promise<number> {
  if (values.list === true) {
    process.stdout.write(await listScenarios(values._));
    return 0;
  }
  const settings = loadSettingsOf(values, values.param ?? []);
  const targets = targetChoice('load', oneTarget(values.target));
  const sink = sinkSettings(values);
  const baseline = baselineOption(values);
  const image = imageFlag(values);
  // Last of the checks: the outputs' files are made here.
  const reporters = await reportersOf('load', values);
  const result = await withInterrupts((signal) =>
    withImageTargets(image, targets.files, (files) =>
      runLoad({
        scenarios: values._,
        ...(files[0] !== undefined && { target: files[0] }),
        ...(targets.environment && { environmentTarget: targets.environment }),
        settings,
        thresholds: values.threshold ?? [],
        ...(sink && { sink }),
        ...(values['report-dir'] !== undefined && { reportDir: values['report-dir'] }),
        ...(baseline && { baseline }),
        signal,
        reporters,
        log: (line) => process.stderr.write(`${line}\n`),
      }),
    ),
  );
  return result.exitCode;
}
