/** Renders --help from the command table, so help and parsing cannot disagree. */
import { type CommandName, commandTable, type OptionSpec } from './command-table.ts';

export function renderHelp(command?: CommandName): string {
  if (command === undefined) {
    const width = Math.max(...Object.keys(commandTable).map((name) => name.length));
    const lines = Object.entries(commandTable).map(([name, spec]) => `  ${name.padEnd(width)}  ${spec.summary}`);
    return [
      'Usage: svc-harness <command> [options]',
      '',
      'Commands:',
      ...lines,
      '',
      'svc-harness <command> --help for its options.',
      '',
    ].join('\n');
  }
  const spec = commandTable[command];
  const rows = Object.entries(spec.options).map(
    ([name, option]) => [flagLabel(name, option), describe(option)] as const,
  );
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    `Usage: svc-harness ${command} [options]`,
    '',
    spec.summary,
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    '',
  ].join('\n');
}

function flagLabel(name: string, option: OptionSpec): string {
  const value = option.type === 'boolean' ? '' : option.type === 'number' ? ' <n>' : ' <value>';
  return `--${name}${value}`;
}

function describe(option: OptionSpec): string {
  const extras = [option.multiple ? 'repeatable' : '', option.default ? `default: ${option.default}` : ''].filter(
    Boolean,
  );
  return extras.length > 0 ? `${option.description} (${extras.join('; ')})` : option.description;
}
