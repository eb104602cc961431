/**
 * The kinds of value a flag or a config key takes, each read by one function: the command line's
 * parser (src/cli/parse-argv.ts), the config file's (src/cli/config-file.ts) and the load settings'
 * string form (src/engines/load/load-settings.ts) all read a duration, a count or a list here, so what
 * one accepts the others accept, with the same words when they refuse it.
 *
 * A refusal is a `Refusal` whose text is built around a label: `--duration` for a typed flag,
 * `config file F: duration` for a config key; the caller adds the command and the error code.
 */
import { durationExamples, parseDurationMs } from './duration.ts';

/** A value of the wrong kind: `text(label)` is the sentence, e.g. `--rate "x" is not a number above zero`. */
export class Refusal extends Error {
  readonly text: (label: string) => string;
  constructor(text: (label: string) => string) {
    super(text('the value'));
    this.text = text;
  }
}

/** `"V"` as the refusals quote it: a string as given, anything else (a config number or array) as JSON. */
const quoted = (value: unknown) => JSON.stringify(value);
const isNot = (value: unknown, want: string) => new Refusal((label) => `${label} ${quoted(value)} is not ${want}`);

/**
 * A duration in the one grammar (src/shared/duration.ts), in milliseconds; a config file's number is
 * seconds, as the grammar's bare number is. `minMs`/`above` bound it from below (`above`: strictly),
 * `maxMs` from above; `takes`, when given, is the whole refusal's wording (`--sink-wait takes …, not "V"`).
 */
export interface DurationKind {
  readonly kind: 'duration';
  readonly minMs?: number;
  /** The least value is excluded: 0 with `above` means "above zero". @default true */
  readonly above?: boolean;
  readonly maxMs?: number;
  /** What the refusal says the flag takes, instead of the grammar's examples. */
  readonly takes?: string;
  /** What the refusal says it is not, when the least value allowed is 0 and included (`--warmup`: `or 0`). */
  readonly orZero?: boolean;
}

export function readDuration(spec: DurationKind, value: unknown): number {
  const ms = typeof value === 'number' ? value * 1000 : typeof value === 'string' ? parseDurationMs(value) : undefined;
  const minMs = spec.minMs ?? 0;
  const above = spec.above ?? !spec.orZero;
  const refuse = (want: string) =>
    spec.takes === undefined
      ? isNot(value, want)
      : new Refusal(
          (label) => `${label} takes ${spec.takes}, not ${typeof value === 'string' ? `"${value}"` : quoted(value)}`,
        );
  if (ms === undefined || !Number.isFinite(ms)) {
    throw refuse(`a duration (${durationExamples})${spec.orZero ? ' or 0' : ''}`);
  }
  if (above ? !(ms > minMs) : !(ms >= minMs)) {
    throw refuse(minMs === 0 ? 'a duration above zero' : `a duration of ${minMs / 1000}s or more`);
  }
  if (spec.maxMs !== undefined && ms > spec.maxMs) throw refuse(`a duration up to ${spec.maxMs / 1000}s`);
  return ms;
}

/**
 * A whole number with a least value (ports, limits, seeds). Without `want` it is refused as the
 * number flags always were (`needs a whole number, got "1.5"`); with it, as the load settings are
 * (`"0" is not a whole number above zero`), and `max`/`tooMany` bound it from above.
 */
export interface CountKind {
  readonly kind: 'count';
  /** @default 0 */
  readonly min?: number;
  readonly max?: number;
  /** The refusal's wording for any value that is not a count of at least `min`. */
  readonly want?: string;
  /** The refusal's wording for a value above `max`. */
  readonly tooMany?: string;
}

export function readCount(spec: CountKind, value: unknown): number {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  const min = spec.min ?? 0;
  const shown = typeof value === 'string' ? `"${value}"` : quoted(value);
  if (spec.want !== undefined) {
    if (!Number.isInteger(number) || number < min) throw isNot(value, spec.want);
  } else {
    if (!Number.isFinite(number) || number < 0) {
      throw new Refusal((label) => `${label} needs a non-negative number, got ${shown}`);
    }
    if (!Number.isInteger(number)) throw new Refusal((label) => `${label} needs a whole number, got ${shown}`);
    if (number < min) throw new Refusal((label) => `${label} must be at least ${min}, got ${shown}`);
  }
  if (spec.max !== undefined && number > spec.max) {
    throw spec.tooMany === undefined
      ? new Refusal((label) => `${label} must be at most ${spec.max}, got ${shown}`)
      : isNot(value, spec.tooMany);
  }
  return number;
}

/** A number above zero, not necessarily whole: requests per second. */
export interface RateKind {
  readonly kind: 'rate';
}

export function readRate(value: unknown): number {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number <= 0) throw isNot(value, 'a number above zero');
  return number;
}

/** One of a closed set of words. */
export interface EnumKind<C extends string = string> {
  readonly kind: 'enum';
  readonly choices: readonly C[];
}

export function readEnum<C extends string>(spec: EnumKind<C>, value: unknown): C {
  const found = spec.choices.find((choice) => choice === value);
  if (found === undefined) throw new Refusal((label) => `${label} must be one of ${spec.choices.join(', ')}`);
  return found;
}

/**
 * Comma-separated items (a config file may give an array): words of a closed set (`of` and the `noun`
 * an unknown one is called), whole numbers (`of: 'count'`, at least `min`), or any words. Items are
 * trimmed; `distinct` refuses one given twice, else repeats are dropped (`kv,kv` is kv).
 */
export interface ListKind<C extends string = string> {
  readonly kind: 'list';
  readonly of?: readonly C[] | 'count';
  /** What one item is called in a refusal (`unknown area "queues" in --area (areas: …)`). */
  readonly noun?: string;
  /** For `of: 'count'`: the least item. @default 1 */
  readonly min?: number;
  /** The refusal's wording for any bad list (the load settings' `--engine`). */
  readonly want?: string;
  /**
   * Whether the flag is named after an unknown item (`unknown region "x" in --regions`). `--area`'s
   * refusal never named it (`unknown area "x" (areas: …)`); a config key is named either way. @default true
   */
  readonly namesFlag?: boolean;
  readonly distinct?: boolean;
}

/** A list's items: a config file's array as it is (strings trimmed), a text split at its commas. */
function itemsOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item.trim() : item));
  return typeof value === 'string' ? value.split(',').map((part) => part.trim()) : [value];
}

/** A list of whole numbers of at least `min` (`--batch 1,10`, `valueSize: [64, 1024]`). */
export function readCounts(min: number, value: unknown): number[] {
  const want = `a comma-separated list of whole numbers${min === 0 ? '' : ' above zero'}`;
  return itemsOf(value).map((item) => {
    const number =
      typeof item === 'number' ? item : typeof item === 'string' && item !== '' ? Number(item) : Number.NaN;
    if (!Number.isInteger(number) || number < min) throw isNot(value, want);
    return number;
  });
}

/** A list of words (of `spec.of` when it names them), each once: `--area kv,messaging`. */
export function readWords<C extends string>(spec: ListKind<C>, value: unknown): C[] {
  const noun = spec.noun ?? 'value';
  const refuse = (fallback: Refusal) => (spec.want === undefined ? fallback : isNot(value, spec.want));
  const words: C[] = [];
  for (const item of itemsOf(value)) {
    if (item === '') continue;
    const known = spec.of === 'count' ? undefined : spec.of;
    const word =
      typeof item !== 'string' ? undefined : known === undefined ? item : known.find((name) => name === item);
    if (word === undefined) {
      const names = `(${noun}s: ${known?.join(', ')})`;
      throw refuse(
        new Refusal((label) =>
          spec.namesFlag === false && label.startsWith('--')
            ? `unknown ${noun} ${JSON.stringify(item)} ${names}`
            : `unknown ${noun} ${JSON.stringify(item)} in ${label} ${names}`,
        ),
      );
    }
    // Without `of`, any word is one: the list is of strings.
    words.push(word as C);
  }
  if (words.length === 0) throw refuse(new Refusal((label) => `${label} needs at least one ${noun}`));
  const twice = spec.distinct ? words.find((word, index) => words.indexOf(word) !== index) : undefined;
  if (twice !== undefined) throw refuse(new Refusal((label) => `${label} names the ${noun} "${twice}" twice`));
  return [...new Set(words)];
}

/** A list of either kind, as its spec says. */
export function readList(spec: ListKind, value: unknown): number[] | string[] {
  return spec.of === 'count' ? readCounts(spec.min ?? 1, value) : readWords(spec, value);
}

/**
 * `KIND=DESTINATION` with KIND one of a closed set (`--out json=run.ndjson`): the kind and the rest of
 * the text. `files` are the kinds whose destination is a path (a config file's is resolved from its
 * folder); `urls` are the kinds whose destination is an http:// or https:// URL, refused here when it
 * is not one; `planned` are kinds to come, named in the refusal of one that is not built yet.
 */
export interface DestinationKind<C extends string = string> {
  readonly kind: 'destination';
  readonly of: readonly C[];
  /** What the kinds are of (`output`): `unknown output kind "csv"`. */
  readonly noun: string;
  readonly files?: readonly C[];
  readonly urls?: readonly C[];
  readonly planned?: readonly string[];
}

export interface Destination<C extends string = string> {
  readonly kind: C;
  readonly destination: string;
}

export function readDestination<C extends string>(spec: DestinationKind<C>, value: unknown): Destination<C> {
  const kinds = `(kinds: ${spec.of.join(', ')}${spec.planned?.length ? `; to come: ${spec.planned.join(', ')}` : ''})`;
  const match = typeof value === 'string' ? /^([^=]*)=(.+)$/s.exec(value.trim()) : null;
  if (match === null) throw new Refusal((label) => `${label} ${quoted(value)} is not KIND=DESTINATION ${kinds}`);
  const name = match[1]?.trim() ?? '';
  const kind = spec.of.find((item) => item === name);
  if (kind === undefined) {
    const soon = spec.planned?.includes(name) ? ', not built yet' : '';
    throw new Refusal((label) => `${label} ${quoted(value)}: unknown ${spec.noun} kind "${name}"${soon} ${kinds}`);
  }
  const destination = match[2]?.trim() ?? '';
  if (spec.urls?.includes(kind) && !isHttpUrl(destination)) {
    // Only the kind is named: a URL that did not parse may still hold a token.
    throw new Refusal((label) => `${label} "${kind}=…": the ${kind} destination is not an http:// or https:// URL`);
  }
  return { kind, destination };
}

function isHttpUrl(text: string): boolean {
  const url = URL.parse(text);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/**
 * A word of a closed set, or a path to a module of the user's own (`--reporter json`, `--reporter
 * ./my-reporter.ts`, as vitest takes a reporter): a text is a path when it has a slash, starts with a
 * dot or ends in a module's extension. A config file's path is resolved from its folder.
 */
export interface NameOrPathKind<C extends string = string> {
  readonly kind: 'name-or-path';
  readonly choices: readonly C[];
  /** What one is (`reporter`), and an example path, for the refusal. */
  readonly noun: string;
  readonly example: string;
}

/** A text that names a file rather than a word of a closed set. */
export function isModulePath(text: string): boolean {
  return /[/\\]/.test(text) || text.startsWith('.') || /\.(?:[cm]?[jt]s)$/.test(text);
}

export function readNameOrPath<C extends string>(spec: NameOrPathKind<C>, value: unknown): string {
  const found = spec.choices.find((choice) => choice === value);
  if (found !== undefined) return found;
  if (typeof value === 'string' && value.trim() !== '' && isModulePath(value.trim())) return value.trim();
  throw new Refusal(
    (label) =>
      `${label} ${quoted(value)} is no ${spec.noun} (${spec.noun}s: ${spec.choices.join(', ')}) and no path to a module of your own (${spec.example})`,
  );
}
