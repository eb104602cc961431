/** Runs a benchmark's main function; any failure is one line on stderr and exit code 2, never a stack trace. */
import { formatErrorLine, isHarnessError, oneLine } from '../src/shared/errors.ts';

export async function runBench(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    console.error(
      error instanceof Error && !isHarnessError(error)
        ? `svc-harness bench: ${oneLine(error)}`
        : formatErrorLine(error),
    );
    process.exitCode = 2;
  }
}
