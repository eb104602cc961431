/** `svc-harness conformance`: the options into runConformance, with the reporters chosen by name. */
import { runConformance } from '../../engines/conformance/run-conformance.ts';
import type { CommandValues } from '../command-table.ts';
import { imageFlag, withImageTargets } from '../image-flag.ts';
import { withInterrupts } from '../interrupts.ts';
import { reportersOf } from '../reporter-flags.ts';
import { sinkSettings } from '../sink-flags.ts';
import { logLine, targetChoice } from '../target-flags.ts';

export async function run(values: CommandValues<'conformance'>): Promise<number> {
  const reporters = await reportersOf('conformance', values);
  const sink = sinkSettings(values);
  const targets = targetChoice('conformance', values.target ?? []);
  const image = imageFlag(values);
  const result = await withInterrupts((signal) =>
    withImageTargets(image, targets.files, (files) =>
      runConformance({
        targets: files,
        ...(targets.environment && { environmentTarget: targets.environment }),
        log: logLine,
        ...(values.area && { areas: values.area }),
        ...(values.rules !== undefined && { rules: values.rules }),
        ...(values.concurrency !== undefined && { caseConcurrency: values.concurrency }),
        ...(values.timeout !== undefined && { caseTimeoutMs: values.timeout }),
        ...(values['report-dir'] !== undefined && { reportDir: values['report-dir'] }),
        ...(values.expectations !== undefined && { expectations: values.expectations }),
        faults: values.fault ?? [],
        silences: values.silence ?? [],
        ...(values['order-seed'] !== undefined && { order: { seed: values['order-seed'] } }),
        ...(sink && { sink }),
        signal,
        reporters,
      }),
    ),
  );
  return result.exitCode;
}
