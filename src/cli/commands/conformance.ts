/** `svc-harness conformance`: the options into runConformance, with the reporters chosen by name. */
import { runConformance } from '../../engines/conformance/run-conformance.ts';
import { createReporters, type ReporterName } from '../../reporters/registry.ts';
import { ExitCode } from '../../shared/errors.ts';
import { parseAreaList, targetAreas } from '../../target/areas.ts';
import type { ParsedValues } from '../parsed-values.ts';

export async function run(values: ParsedValues): Promise<number> {
  const areas = parseAreaList('conformance', values.area as string | undefined, targetAreas);
  // parse-argv lets only reporter names through (the command table lists them as choices).
  const reporters = createReporters(values.reporter as ReporterName[] | undefined);
  const controller = new AbortController();
  // Listeners stay for the whole run (never `once`): with none left, signal-exit (pulled in by
  // testcontainers) re-raises the signal and the process dies with no report and its redis-server
  // orphaned. The first signal stops the run, which still writes its report and stops the reference;
  // a second one exits at once (the exit hooks still stop the redis-server it started).
  const interrupt = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.stderr.write(`svc-harness: ${signal} again: exiting now without the report\n`);
      process.exit(ExitCode.interrupted);
    }
    process.stderr.write(
      `svc-harness: ${signal}: stopping the run; the report marks it aborted (${signal} again to exit now)\n`,
    );
    controller.abort(signal);
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    const result = await runConformance({
      targets: (values.target as string[] | undefined) ?? [],
      ...(areas && { areas }),
      ...(typeof values.rules === 'string' && { rules: values.rules }),
      ...(typeof values['report-dir'] === 'string' && { reportDir: values['report-dir'] }),
      ...(typeof values.expectations === 'string' && { expectations: values.expectations }),
      faults: (values.fault as string[] | undefined) ?? [],
      signal: controller.signal,
      reporters,
    });
    return result.exitCode;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
