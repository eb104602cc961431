/** The CLI entry: parse, dispatch, and turn every error into one line and an exit code. */
import { ExitCode, exitCodeOf, formatErrorLine } from '../shared/errors.ts';
import { toolVersion } from '../shared/tool-version.ts';
import { type CommandSpec, commandTable } from './command-table.ts';
import { applyConfig, blameConfigFile, findConfigFile, readConfigFile } from './config-file.ts';
import { renderHelp } from './help-text.ts';
import { parseArgv } from './parse-argv.ts';

/**
 * The commands that start themselves again under the allocator setting that lets a process give memory
 * back (src/reference/allocator-settings.ts): `serve`, the reference in a process of its own, and
 * `conformance`, which waits on the network and reads what a target sends whole (10 MB answers, 10 MB
 * requests of the limits cases). Not `load` or `run`: the setting costs the load engine CPU.
 */
const allocatorCommands: ReadonlySet<string> = new Set(['serve', 'conformance']);

/**
 * Called by the bin before runCli, never by code that shares its process. The command is always argv's
 * first word.
 */
export async function prepareProcess(argv: readonly string[]): Promise<void> {
  if (
    !allocatorCommands.has(argv[0] ?? '') ||
    argv.includes('--list-faults') ||
    argv.includes('--help') ||
    argv.includes('-h')
  )
    return;
  const { relaunchUnderAllocatorSettings } = await import('../reference/allocator-settings.ts');
  relaunchUnderAllocatorSettings();
}

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
