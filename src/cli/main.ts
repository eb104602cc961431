/** The CLI entry: parse, dispatch, and turn every error into one line and an exit code. */
import { ExitCode, exitCodeOf, formatErrorLine } from '../shared/errors.ts';
import { toolVersion } from '../shared/tool-version.ts';
import { runCommand } from './command-handlers.ts';
import { type CommandSpec, commandTable } from './command-table.ts';
import { applyConfig, blameConfigFile, findConfigFile, readConfigFile } from './config-file.ts';
import { renderHelp } from './help-text.ts';
import { commandRun, parseArgv } from './parse-argv.ts';

/**
 * An error thrown where no caller can catch it (an 'error' event nobody listens to: vitest's pool emits
 * one when its worker dies, out of memory) would print Node's stack trace. It gets the one line every
 * error gets, and exit 2.
 */
function exitOnStray(error: unknown): void {
  process.stderr.write(`${formatErrorLine(error)}\n`);
  writeStack(error);
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
    let run = parsed;
    const applied = new Map<string, string>();
    const given = 'config' in run.values ? run.values.config : undefined;
    const file = spec.options.config === undefined ? undefined : findConfigFile(given, process.cwd());
    if (file !== undefined) {
      run = commandRun(run.command, applyConfig(spec, run.values, await readConfigFile(file), file, applied));
    }
    try {
      return await runCommand(run.command, run.values);
    } catch (error) {
      throw file === undefined ? error : blameConfigFile(error, file, applied);
    }
  } catch (error) {
    process.stderr.write(`${formatErrorLine(error)}\n`);
    writeStack(error);
    return exitCodeOf(error);
  }
}

/** With SVC_HARNESS_DEBUG set, the error's stack after its one line. */
function writeStack(error: unknown): void {
  if (process.env.SVC_HARNESS_DEBUG) process.stderr.write(`${error instanceof Error ? (error.stack ?? '') : ''}\n`);
}
