/** Parses argv against the command table with node:util parseArgs; every mistake is one usage line. */
import { parseArgs } from 'node:util';
import { closest, distance } from 'fastest-levenshtein';
import { didYouMean, near } from '../shared/did-you-mean.ts';
import { harnessError } from '../shared/errors.ts';
import { Refusal } from '../shared/value-kinds.ts';
import { type CommandName, type CommandSpec, type CommandValues, commandTable } from './command-table.ts';
import { readOption } from './read-option.ts';

/** A command to run with its values, one member per command, so `values` is typed by `command`. */
export type CommandRun = {
  readonly [Name in CommandName]: {
    readonly kind: 'run';
    readonly command: Name;
    readonly values: CommandValues<Name>;
  };
}[CommandName];

export type ParsedArgv =
  | { readonly kind: 'help'; readonly command?: CommandName }
  | { readonly kind: 'version' }
  | CommandRun;

function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commandTable, name);
}

/** Commands of two words (`k6 merge`): the group's name, then the command's. */
const groups = new Set(Object.keys(commandTable).flatMap((name) => (name.includes(' ') ? [name.split(' ')[0]] : [])));

/** `k6 merge a.json` → [`k6 merge`, `a.json`]; other argv as it is. */
function joinGroup(argv: readonly string[]): readonly string[] {
  const [first, second, ...rest] = argv;
  if (first === undefined || !groups.has(first)) return argv;
  const members = Object.keys(commandTable).filter((name) => name.startsWith(`${first} `));
  if (second === undefined || second.startsWith('-')) {
    throw harnessError('SVC_USAGE', `${first}: which one? (${members.join(', ')})`);
  }
  if (!isCommandName(`${first} ${second}`)) {
    throw harnessError('SVC_USAGE', `unknown command "${first} ${second}" (commands: ${members.join(', ')})`);
  }
  return [`${first} ${second}`, ...rest];
}

export function parseArgv(given: readonly string[]): ParsedArgv {
  const head = given[0];
  const isHelp = head === '--help' || head === '-h' || head === 'help';
  const argv = isHelp ? [head, ...joinGroup(given.slice(1))] : joinGroup(given);
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const named = rest[0];
    return named !== undefined && isCommandName(named) ? { kind: 'help', command: named } : { kind: 'help' };
  }
  if (first === '--version' || first === '-v') return { kind: 'version' };
  if (!isCommandName(first)) {
    const names = Object.keys(commandTable);
    throw harnessError(
      'SVC_USAGE',
      `unknown command "${first}"${didYouMean(first, names)} (commands: ${names.join(', ')})`,
    );
  }
  if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help', command: first };
  const spec: CommandSpec = commandTable[first];
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = {
      type: option.kind === 'boolean' ? 'boolean' : 'string',
      ...(option.multiple && { multiple: true }),
      ...(option.short && { short: option.short }),
    };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...rest],
      options,
      allowPositionals: spec.positionals !== undefined,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    const unknown = unknownFlag(error);
    if (unknown !== undefined) throw harnessError('SVC_USAGE', unknownFlagLine(first, spec, unknown));
    const dashed = dashedValue(error, rest);
    if (dashed !== undefined) {
      // node:util's own text tells how to force it; the harness's values (durations, counts, rates) are never negative.
      throw harnessError(
        'SVC_USAGE',
        `${first}: --${dashed.flag} "${dashed.value}": a value cannot start with a dash (no value of these flags is negative)`,
      );
    }
    // node:util's messages may span lines ("ambiguous … use '--x=-1'"); the hint is worth keeping, on one line.
    const message = error instanceof Error ? error.message : String(error);
    throw harnessError('SVC_USAGE', `${first}: ${message.replace(/\s*\n\s*/g, ' ')}`);
  }
  checkRepeats(first, spec, parsed.tokens ?? []);
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(parsed.values)) {
    const option = spec.options[name];
    if (!option) continue;
    try {
      values[name] = readOption(option, raw, undefined);
    } catch (error) {
      if (error instanceof Refusal) throw harnessError('SVC_USAGE', `${first}: ${error.text(`--${name}`)}`);
      throw error;
    }
  }
  if (spec.positionals) values._ = [...parsed.positionals];
  return commandRun(first, values);
}

/**
 * The run of `command` with `values` read flag by flag by their rows' kinds (readOption), which is
 * what `CommandValues` states of each row: the compiler cannot follow a loop over the table's keys,
 * so this is the one place the values are given their command's type.
 */
export function commandRun(command: CommandName, values: Readonly<Record<string, unknown>>): CommandRun {
  return { kind: 'run', command, values } as CommandRun;
}

/** The flag node:util found ambiguous (`--duration -5s`) and the value after it; undefined for any other error. */
function dashedValue(error: unknown, args: readonly string[]): { flag: string; value: string } | undefined {
  if (!(error instanceof Error) || !/argument is ambiguous/.test(error.message)) return undefined;
  const flag = /Option '--([^']+)'/.exec(error.message)?.[1];
  if (flag === undefined) return undefined;
  const at = args.indexOf(`--${flag}`);
  const value = at === -1 ? undefined : args[at + 1];
  return value === undefined ? undefined : { flag, value };
}

/** The flag node:util refused as unknown (`--duraton`, `-x`), from its error; undefined for any other error. */
function unknownFlag(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error) || error.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return undefined;
  // Node 22 adds a hint about '--' after the name, with quotes that do not pair up; only the name is kept.
  return /Unknown option '([^']+)'/.exec(error.message)?.[1];
}

export { didYouMean } from '../shared/did-you-mean.ts';

/**
 * One line for a flag the command does not take: the closest of its own flags, or the closest flag of
 * another command when that one is closer (`--sink-wiat` on load is conformance's `--sink-wait`), and
 * where the list is.
 */
function unknownFlagLine(command: CommandName, spec: CommandSpec, flag: string): string {
  const given = flag.replace(/^-+/, '').split('=')[0] ?? '';
  const tail = ` (svc-harness ${command} --help lists its flags)`;
  if (!flag.startsWith('--')) return `${command}: unknown flag ${flag}${tail}`;
  const own = Object.keys(spec.options);
  const all = [...new Set(Object.values(commandTable).flatMap((other) => Object.keys(other.options)))];
  const mine = own.length > 0 ? closest(given, own) : undefined;
  const anywhere = closest(given, all);
  const best = mine !== undefined && distance(given, mine) <= distance(given, anywhere) ? mine : anywhere;
  let hint = '';
  if (near(given, best)) {
    const owners = Object.entries(commandTable)
      .filter(([, other]) => Object.hasOwn(other.options, best))
      .map(([other]) => other);
    const elsewhere = own.includes(best) ? '' : `, a flag of ${owners.join(', ')}, not of ${command}`;
    hint = best === given ? `; --${given} is a flag of ${owners.join(', ')}` : `; did you mean --${best}${elsewhere}?`;
  }
  return `${command}: unknown flag ${flag}${hint}${tail}`;
}

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/**
 * A flag that takes one value, given twice: node:util keeps the last one silently, so `load --target a
 * --target b` would load b without a word. Either one may be the mistake, so neither is guessed.
 */
function checkRepeats(command: string, spec: CommandSpec, tokens: readonly Token[]): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    const option = token.kind === 'option' ? spec.options[token.name] : undefined;
    // A boolean given twice says the same thing twice: harmless.
    if (token.kind !== 'option' || option === undefined || option.multiple || option.kind === 'boolean') continue;
    if (seen.has(token.name)) {
      const several = token.name === 'target' ? ' (conformance takes several targets)' : '';
      throw harnessError('SVC_USAGE', `${command}: --${token.name} given more than once; it takes one value${several}`);
    }
    seen.add(token.name);
  }
}
