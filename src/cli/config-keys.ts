/**
 * The config file's keys, derived from the command table: every flag of a command that reads a config
 * file (it has `--config`) is a key, its name in camelCase (a repeatable flag's in the plural:
 * `--area` is `areas`, `--threshold` `thresholds`), plus `scenarios`, the positional scenarios. The
 * type of each key (`SvcHarnessConfig`) and its schema (config-schema.ts) follow from the flags' kinds,
 * so a new flag is a new key with nothing else to keep in step (issue 37: `concurrency` and `segments`
 * were flags a config file rejected).
 */
import type { CountKind, DurationKind, EnumKind, ListKind, RateKind } from '../shared/value-kinds.ts';
import { type CommandSpec, commandTable, type OptionSpec } from './command-table.ts';

type Table = typeof commandTable;

/** Flags that are no default of a run: which file to read, and listing instead of running. */
export const notConfigFlags = ['config', 'list', 'list-faults', 'list-silences', 'json'] as const;

/** The keys that are not their flag's name in camelCase: a repeatable flag's plural, the positionals. */
const renamed = {
  area: 'areas',
  reporter: 'reporters',
  threshold: 'thresholds',
  param: 'params',
  tolerance: 'tolerances',
  fault: 'faults',
  silence: 'silences',
  _: 'scenarios',
} as const;

/**
 * A flag repeatable on some commands and taking one value on others, whose key is the plural where it
 * repeats: `--out` is load's and run's live outputs (`outs`) and k6 manifest's one file (`out`).
 */
const pluralWhereRepeatable = { out: 'outs' } as const;

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
type KeyOfFlag<Flag extends string> = Flag extends keyof typeof renamed ? (typeof renamed)[Flag] : Camel<Flag>;

/** The commands that read a config file. */
type Reader = { [Name in keyof Table]: 'config' extends keyof Table[Name]['options'] ? Name : never }[keyof Table];
/** Each reader's options: a union of option records, one a command. */
type ReaderOptions = Table[Reader]['options'];
/** A flag of any reader that is a config key. */
type ConfigFlag = Exclude<
  ReaderOptions extends infer Options ? (Options extends unknown ? keyof Options & string : never) : never,
  (typeof notConfigFlags)[number]
>;
/** The rows of `flag` on every reader that has it (`--target`: conformance's repeatable one and the others' single). */
type RowsOf<Flag extends string> = ReaderOptions extends infer Options
  ? Options extends unknown
    ? Flag extends keyof Options
      ? Options[Flag]
      : never
    : never
  : never;

/** One value of a kind as a config file gives it: a number or the flag's text for the numeric kinds. */
type ConfigItem<O> = O extends { readonly kind: 'boolean' }
  ? boolean
  : O extends DurationKind | CountKind | RateKind
    ? number | string
    : O extends EnumKind<infer C>
      ? C
      : O extends { readonly kind: 'list'; readonly of: 'count' }
        ? readonly number[] | string
        : O extends ListKind<infer C>
          ? readonly C[] | string
          : string;

/** A key's value: `NAME=VALUE` pairs as an object, a repeatable flag's one value or several. */
type ConfigValue<O> = O extends { readonly pairs: 'string'; readonly pairNames: readonly (infer Name extends string)[] }
  ? Readonly<Partial<Record<Name, string>>>
  : O extends { readonly pairs: 'number' }
    ? Readonly<Record<string, number>>
    : O extends { readonly pairs: 'string' }
      ? Readonly<Record<string, string>>
      : O extends { readonly multiple: true }
        ? ConfigItem<O> | readonly ConfigItem<O>[]
        : ConfigItem<O>;

/**
 * What a config file holds (schemas/config.schema.json says the same for JSON): each key's type is its
 * flag's kind (a duration: seconds or the grammar's text; a list: an array or the comma-separated text).
 */
type SplitFlag = keyof typeof pluralWhereRepeatable & ConfigFlag;
type Repeated = { readonly multiple: true };

export type SvcHarnessConfig = {
  readonly [Flag in Exclude<ConfigFlag, SplitFlag> as KeyOfFlag<Flag>]?: ConfigValue<RowsOf<Flag>>;
} & {
  readonly [Flag in SplitFlag]?: ConfigValue<Exclude<RowsOf<Flag>, Repeated>>;
} & {
  readonly [Flag in SplitFlag as (typeof pluralWhereRepeatable)[Flag]]?: ConfigValue<Extract<RowsOf<Flag>, Repeated>>;
} & {
  /** Scenario names, paths of your own modules, or globs of them (`perf/*.ts`), for load and k6 manifest. */
  readonly scenarios?: readonly string[];
  /** The schema's address, for editors; no flag. */
  readonly $schema?: string;
};

export type ConfigKey = Exclude<keyof SvcHarnessConfig, '$schema'>;

const camel = (flag: string) => flag.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
const isNotConfig = (flag: string) => notConfigFlags.some((name) => name === flag);

const renamedKeys: Readonly<Record<string, string>> = renamed;

const pluralKeys: Readonly<Record<string, string>> = pluralWhereRepeatable;

/**
 * The key of a flag (`report-dir` → `reportDir`, `area` → `areas`, `_` → `scenarios`), as `KeyOfFlag`
 * says; `option`, the command's row, where the key depends on it (`--out`: `outs` where it repeats).
 */
export function configKeyOf(flag: string, option?: OptionSpec): string {
  const plural = option?.multiple === true ? pluralKeys[flag] : undefined;
  return plural ?? renamedKeys[flag] ?? camel(flag);
}

const commands: Readonly<Record<string, CommandSpec>> = commandTable;

/** The commands that read a config file, by name. */
export const configReaders: readonly (readonly [string, CommandSpec])[] = Object.entries(commands).filter(
  ([, spec]) => spec.options.config !== undefined,
);

/** Every config key with its flag (`_`: the positional scenarios) and that flag's rows, in table order. */
export function configKeyRows(): ReadonlyMap<string, { readonly flag: string; readonly rows: readonly OptionSpec[] }> {
  const keys = new Map<string, { flag: string; rows: OptionSpec[] }>();
  for (const [, spec] of configReaders) {
    for (const [flag, option] of Object.entries(spec.options)) {
      if (isNotConfig(flag)) continue;
      const key = configKeyOf(flag, option);
      const entry = keys.get(key) ?? { flag, rows: [] };
      entry.rows.push(option);
      keys.set(key, entry);
    }
  }
  keys.set('scenarios', { flag: '_', rows: [] });
  return keys;
}

/**
 * Every key of a config file and the flag it fills (`_`: the positional scenarios). The runtime twin of
 * `ConfigKey`; test/cli/config-file.test.ts holds the two to one list.
 */
export const configKeyFlags: Readonly<Record<string, string>> = Object.fromEntries(
  [...configKeyRows()].map(([key, { flag }]) => [key, flag]),
);
