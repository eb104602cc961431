/** `svc-harness k6 merge OUTPUT…`: one report from k6 JSON outputs made elsewhere. */
import { mergeK6Outputs } from '../../engines/load/k6/merge-outputs.ts';
import type { CommandValues } from '../command-table.ts';
import { reportersOf } from '../reporter-flags.ts';

export async function run(values: CommandValues<'k6 merge'>): Promise<number> {
  const result = await mergeK6Outputs({
    files: values._,
    thresholds: values.threshold ?? [],
    ...(values['report-dir'] !== undefined && { reportDir: values['report-dir'] }),
    reporters: await reportersOf('k6 merge', values),
  });
  return result.exitCode;
}
