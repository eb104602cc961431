/** Renders --help from the command table, so help and parsing cannot disagree. */
import { type CommandName, type CommandSpec, commandTable, type OptionSpec } from './command-table.ts';
import { valuePlaceholder } from './option-spec.ts';

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
  const spec: CommandSpec = commandTable[command];
  const rows = Object.entries(spec.options).map(
    ([name, option]) => [flagLabel(name, option), describeOption(option)] as const,
  );
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    `Usage: svc-harness ${command}${spec.positionals ? ` [<${spec.positionals.name}>…]` : ''} [options]`,
    '',
    spec.summary,
    '',
    ...(spec.positionals ? [`<${spec.positionals.name}>…: ${spec.positionals.description}`, ''] : []),
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    '',
  ].join('\n');
}

function flagLabel(name: string, option: OptionSpec): string {
  const value = valuePlaceholder(option);
  return value ? `--${name} ${value}` : `--${name}`;
}

/** An option's description with its extras (repeatable, default), as --help and docs/cli.md show it. */
export function describeOption(option: OptionSpec): string {
  const extras = [option.multiple ? 'repeatable' : '', option.default ? `default: ${option.default}` : ''].filter(
    Boolean,
  );
  return extras.length > 0 ? `${option.description} (${extras.join('; ')})` : option.description;
}
