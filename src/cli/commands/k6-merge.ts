/** `svc-harness k6 merge OUTPUT…`: one report from k6 JSON outputs made elsewhere. */
import { mergeK6Outputs } from '../../engines/load/k6/merge-outputs.ts';
import { createReporters } from '../../reporters/registry.ts';
import type { CommandValues } from '../command-table.ts';

export async function run(values: CommandValues<'k6 merge'>): Promise<number> {
  const result = await mergeK6Outputs({
    files: values._,
    thresholds: values.threshold ?? [],
    ...(values['report-dir'] !== undefined && { reportDir: values['report-dir'] }),
    reporters: createReporters(values.reporter),
  });
  return result.exitCode;
}
