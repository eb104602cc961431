/** Parses argv against the command table with node:util parseArgs; every mistake is one usage line. */
import { parseArgs } from 'node:util';
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
    throw harnessError('SVC_USAGE', `unknown command "${first}" (commands: ${Object.keys(commandTable).join(', ')})`);
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
