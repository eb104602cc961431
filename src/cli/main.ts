/** The CLI entry: parse, dispatch, and turn every error into one line and an exit code. */
import { ExitCode, exitCodeOf, formatErrorLine } from '../shared/errors.ts';
import { toolVersion } from '../shared/tool-version.ts';
import { type CommandSpec, commandTable } from './command-table.ts';
import { applyConfig, blameConfigFile, findConfigFile, readConfigFile } from './config-file.ts';
import { renderHelp } from './help-text.ts';
import { parseArgv } from './parse-argv.ts';

/**
 * An error thrown where no caller can catch it (an 'error' event nobody listens to: vitest's pool emits
 * one when its worker dies, out of memory) would print Node's stack trace. It gets the one line every
 * error gets, and exit 2.
 */
function exitOnStray(error: unknown): void {
  process.stderr.write(`${formatErrorLine(error)}\n`);
  if (process.env.SVC_HARNESS_DEBUG) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
  process.exit(exitCodeOf(error));
}

export async function runCli(argv: readonly string[]): Promise<number> {
  process.on('uncaughtException', exitOnStray);
  try {
    const parsed = parseArgv(argv);
    // No command at all is a usage mistake: the usage goes to stderr and the exit code says so.
    if (argv.length === 0) {
      process.stderr.write(renderHelp());
      return ExitCode.notJudged;
    }
    if (parsed.kind === 'help') {
      process.stdout.write(renderHelp(parsed.command));
      return ExitCode.ok;
    }
    if (parsed.kind === 'version') {
      process.stdout.write(`${toolVersion()}\n`);
      return ExitCode.ok;
    }
    const spec: CommandSpec = commandTable[parsed.command];
    let values = parsed.values;
    const applied = new Map<string, string>();
    const file =
      spec.options.config === undefined
        ? undefined
        : findConfigFile(values.config as string | undefined, process.cwd());
    if (file !== undefined) values = applyConfig(spec, values, await readConfigFile(file), file, applied);
    const handler = await spec.load();
    try {
      return await handler.run(values);
    } catch (error) {
      throw file === undefined ? error : blameConfigFile(error, file, applied);
    }
  } catch (error) {
    process.stderr.write(`${formatErrorLine(error)}\n`);
    if (process.env.SVC_HARNESS_DEBUG) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    return exitCodeOf(error);
  }
}
