/** Runs a benchmark's main function; any failure is one line on stderr and exit code 2, never a stack trace. */
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { formatErrorLine, isHarnessError, oneLine } from '../src/shared/errors.ts';

type ParsedResults<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

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

/**
 * A benchmark's command line (node:util's parseArgs, strict): `--help` prints the usage in the file's
 * opening comment and exits 0; an unknown option or a bad value is one line and exit code 2, never the
 * parser's stack trace.
 */
export function benchArgs<const T extends ParseArgsConfig>(file: string, config: T): ParsedResults<T> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    const opening = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
    console.log(
      opening
        .split('\n')
        .map((line) => line.replace(/^ \* ?/, ''))
        .join('\n')
        .trim(),
    );
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (error) {
    console.error(`svc-harness bench: ${oneLine(error)} (--help prints the usage)`);
    process.exit(2);
  }
}
