/** Parses argv against the command table with node:util parseArgs; every mistake is one usage line. */
import { parseArgs } from 'node:util';
import { closest, distance } from 'fastest-levenshtein';
import { didYouMean, near } from '../shared/did-you-mean.ts';
import { harnessError } from '../shared/errors.ts';
import { type CommandName, type CommandSpec, commandTable, type OptionSpec } from './command-table.ts';
import type { ParsedValue, ParsedValues } from './parsed-values.ts';

export type ParsedArgv =
  | { readonly kind: 'help'; readonly command?: CommandName }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly command: CommandName; readonly values: ParsedValues };

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
  const isHelp = given[0] === '--help' || given[0] === '-h' || given[0] === 'help';
  const argv = isHelp ? [given[0] as string, ...joinGroup(given.slice(1))] : joinGroup(given);
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
      type: option.type === 'boolean' ? 'boolean' : 'string',
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
    throw harnessError('SVC_USAGE', `${first}: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
  checkRepeats(first, spec, parsed.tokens ?? []);
  const values: Record<string, ParsedValue> = {};
  for (const [name, raw] of Object.entries(parsed.values)) {
    const option = spec.options[name];
    if (!option) continue;
    values[name] = option.type === 'number' ? toNumber(first, name, option, raw) : (raw as ParsedValue);
    const given = Array.isArray(raw) ? raw : [raw];
    if (option.choices && given.some((value) => typeof value === 'string' && !option.choices?.includes(value))) {
      throw harnessError('SVC_USAGE', `${first}: --${name} must be one of ${option.choices.join(', ')}`);
    }
  }
  if (spec.positionals) values._ = [...parsed.positionals];
  return { kind: 'run', command: first, values };
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
  if (!(error instanceof Error) || (error as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
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
    if (token.kind !== 'option' || option === undefined || option.multiple || option.type === 'boolean') continue;
    if (seen.has(token.name)) {
      const several = token.name === 'target' ? ' (conformance takes several targets)' : '';
      throw harnessError('SVC_USAGE', `${command}: --${token.name} given more than once; it takes one value${several}`);
    }
    seen.add(token.name);
  }
}

function toNumber(command: string, name: string, option: OptionSpec, raw: unknown): number | number[] {
  const one = (text: unknown): number => {
    const value = Number(text);
    if (typeof text !== 'string' || text.trim() === '' || !Number.isFinite(value) || value < 0) {
      throw harnessError('SVC_USAGE', `${command}: --${name} needs a non-negative number, got ${JSON.stringify(text)}`);
    }
    if (option.integer && !Number.isInteger(value)) {
      throw harnessError('SVC_USAGE', `${command}: --${name} needs a whole number, got ${JSON.stringify(text)}`);
    }
    if (option.min !== undefined && value < option.min) {
      throw harnessError(
        'SVC_USAGE',
        `${command}: --${name} must be at least ${option.min}, got ${JSON.stringify(text)}`,
      );
    }
    return value;
  };
  return Array.isArray(raw) ? raw.map(one) : one(raw);
}
