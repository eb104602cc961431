/**
 * What one row of the command table says about a flag: its kind (how its value is read, once, by
 * parse-argv and by the config file: read-option.ts) and what --help shows. The handlers' value types
 * are inferred from these rows (`SpecValues`), as vitest infers its CLI options from its table, so a
 * handler reads `values.timeout` as milliseconds with no cast.
 */
import type {
  CountKind,
  DestinationKind,
  DurationKind,
  EnumKind,
  ListKind,
  NameOrPathKind,
  RateKind,
} from '../shared/value-kinds.ts';

/** Kinds with no bounds of their own: any text, a path (a config file's is resolved from its folder), a switch. */
export type PlainKind = { readonly kind: 'string' } | { readonly kind: 'path' } | { readonly kind: 'boolean' };

export type OptionKind =
  | PlainKind
  | DurationKind
  | CountKind
  | RateKind
  | EnumKind
  | ListKind
  | DestinationKind
  | NameOrPathKind;

export type OptionSpec = OptionKind & {
  readonly description: string;
  /** Repeatable: the value is an array of the kind's values. */
  readonly multiple?: boolean;
  /**
   * Repeatable `NAME=VALUE` texts (`--param`, `--tolerance`), which a config file gives as an object
   * (`params: { endpoints: 4 }`): each entry becomes one text.
   */
  readonly pairs?: 'number' | 'string';
  /** The names a pair may have, when they are a closed set (`--tolerance`'s metrics): the schema lists them. */
  readonly pairNames?: readonly string[];
  readonly short?: string;
  /** Shown in --help; the handler applies it. */
  readonly default?: string;
};

/** One value of a kind, as parse-argv hands it over. */
export type KindValue<O> = O extends { readonly kind: 'boolean' }
  ? boolean
  : O extends { readonly kind: 'duration' | 'count' | 'rate' }
    ? number
    : O extends { readonly kind: 'enum'; readonly choices: readonly (infer C)[] }
      ? C
      : O extends { readonly kind: 'destination'; readonly of: readonly (infer C extends string)[] }
        ? { readonly kind: C; readonly destination: string }
        : O extends { readonly kind: 'list'; readonly of: 'count' }
          ? number[]
          : O extends { readonly kind: 'list'; readonly of: readonly (infer C)[] }
            ? C[]
            : O extends { readonly kind: 'list' }
              ? string[]
              : string;

/** A flag's value: its kind's, or an array of them when it is repeatable. */
export type OptionValue<O> = O extends { readonly multiple: true } ? KindValue<O>[] : KindValue<O>;

/** The values a command's handler receives: every flag optional (left out when not given), `_` the positionals. */
export type SpecValues<S> = S extends { readonly options: infer O }
  ? { readonly [K in keyof O]?: OptionValue<O[K]> } & (S extends { readonly positionals: object }
      ? { readonly _: string[] }
      : unknown)
  : never;

/** The placeholder of an option's value in --help and docs/cli.md, or '' for a boolean flag. */
export function valuePlaceholder(option: OptionSpec): string {
  switch (option.kind) {
    case 'boolean':
      return '';
    case 'count':
    case 'rate':
      return '<n>';
    case 'duration':
      return '<duration>';
    case 'list':
      return '<list>';
    case 'path':
      return '<path>';
    case 'destination':
      return '<kind=destination>';
    case 'name-or-path':
      return '<name-or-path>';
    default:
      return '<value>';
  }
}
