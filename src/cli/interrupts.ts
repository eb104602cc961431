/**
 * Ctrl-C and SIGTERM for a run: the first signal aborts it (it still writes its report and stops
 * what it started), a second exits at once with 130. Listeners stay for the whole run (never
 * `once`): with none left, signal-exit (pulled in by testcontainers) re-raises the signal and the
 * process dies with no report and its redis-server orphaned.
 */
import { ExitCode } from '../shared/errors.ts';

export async function withInterrupts<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
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
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
