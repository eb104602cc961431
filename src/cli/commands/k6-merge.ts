/** `svc-harness k6 merge OUTPUT…`: one report from k6 JSON outputs made elsewhere. */
import { mergeK6Outputs } from '../../engines/load/k6/merge-outputs.ts';
import { createReporters, type ReporterName } from '../../reporters/registry.ts';
import type { ParsedValues } from '../parsed-values.ts';

export async function run(values: ParsedValues): Promise<number> {
  const result = await mergeK6Outputs({
    files: (values._ as string[] | undefined) ?? [],
    thresholds: (values.threshold as string[] | undefined) ?? [],
    ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
    reporters: createReporters(values.reporter as ReporterName[] | undefined),
  });
  return result.exitCode;
}
