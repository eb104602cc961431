/** `svc-harness conformance`: a thin wrapper over runConformance with console progress and summary. */
import { runConformance } from '../../engines/conformance/run-conformance.ts';
import { createConsoleObserver, renderConsoleSummary } from '../../reporters/console-output.ts';
import { parseAreaList, targetAreas } from '../../target/areas.ts';
import type { ParsedValues } from '../command-table.ts';

export async function run(values: ParsedValues): Promise<number> {
  const areas = parseAreaList('conformance', values.area as string | undefined, targetAreas);
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const observer = createConsoleObserver(process.stderr);
  try {
    const result = await runConformance({
      targets: (values.target as string[] | undefined) ?? [],
      ...(areas && { areas }),
      ...(typeof values.rules === 'string' && { rules: values.rules }),
      ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
      ...(typeof values.expectations === 'string' && { expectations: values.expectations }),
      faults: (values.fault as string[] | undefined) ?? [],
      signal: controller.signal,
      observer,
    });
    observer.end();
    process.stdout.write(renderConsoleSummary(result));
    return result.exitCode;
  } finally {
    observer.end();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
