/**
 * `svc-harness soak <scenario…>`: flags into settings and fault specs (each checked first), then
 * runSoak with the reporters; a line per fault as it happened once the load's own summary is out.
 */
import { loadSettingsOf } from '../../engines/load/load-settings.ts';
import { readFaultSpecs, runSoak, type SoakRun } from '../../engines/soak/run-soak.ts';
import { findingLines, trendLines } from '../../engines/soak/soak-report.ts';
import type { CommandValues } from '../command-table.ts';
import { baselineOption } from '../compare-flags.ts';
import { imageFlag } from '../image-flag.ts';
import { withInterrupts } from '../interrupts.ts';
import { reportersOf } from '../reporter-flags.ts';
import { sinkSettings } from '../sink-flags.ts';
import { oneTarget, targetChoice } from '../target-flags.ts';

/** Ten minutes: a soak shorter than a few fault periods says little. */
const defaultDurationMs = 10 * 60_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One line per fault: when it struck, how long until healed (for a kill: ready again), what failed. */
export function faultLines(run: SoakRun, origin: number): string[] {
  if (run.timeline.length === 0) return ['soak: no faults asked for (--fault)'];
  const lines = [
    `soak: ${run.faults.length} of ${run.timeline.length} faults done (seed ${run.seed}), in ${run.reportDir}/soak.json`,
  ];
  for (const fault of run.faults) {
    const at = seconds(fault.startAt - origin);
    const healed = seconds(fault.healedAt - fault.startAt);
    const state =
      fault.error !== undefined
        ? `FAILED: ${fault.error}`
        : `healed after ${healed}${fault.cut ? ' (cut short by the end)' : ''}`;
    lines.push(`  ${fault.id} ${fault.text}: at ${at}, ${state}`);
  }
  for (const problem of run.problems) lines.push(`problem: ${problem}`);
  return lines;
}

export async function run(values: CommandValues<'soak'>): Promise<number> {
  const faults = values.fault ?? [];
  readFaultSpecs(faults);
  const settings = loadSettingsOf(
    { ...values, duration: values.duration ?? defaultDurationMs },
    values.param ?? [],
    'soak',
  );
  const targets = targetChoice('soak', oneTarget(values.target));
  const sink = sinkSettings(values);
  const reporters = await reportersOf('soak', values);
  const image = imageFlag(values);
  const baseline = baselineOption(values);
  const result = await withInterrupts((signal) =>
    runSoak({
      scenarios: values._,
      ...(targets.files[0] !== undefined && { target: targets.files[0] }),
      ...(targets.environment && { environmentTarget: targets.environment }),
      faults,
      settings,
      thresholds: values.threshold ?? [],
      ...(sink && { sink }),
      ...(values['report-dir'] !== undefined && { reportDir: values['report-dir'] }),
      ...(image !== undefined && { image }),
      ...(baseline && { baseline }),
      signal,
      reporters,
      log: (line) => process.stderr.write(`${line}\n`),
    }),
  );
  const lines = [
    ...faultLines(result, result.origin ?? 0),
    ...trendLines(result.trends.series),
    ...findingLines(result.findings),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return result.exitCode;
}
