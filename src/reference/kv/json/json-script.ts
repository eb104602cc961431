/**
 * The one Lua script behind every emulated JSON command: a JSON codec that keeps values exact (not
 * Redis's cjson), a JSONPath subset, exact number arithmetic, and the commands. One script for all commands, so Redis compiles
 * and caches it once; the command name travels as ARGV[1].
 */
import { readFileSync } from 'node:fs';

const parts = ['json-codec.lua', 'json-path.lua', 'json-number.lua', 'json-commands.lua'];

export const jsonScript: Buffer = Buffer.from(
  parts.map((file) => readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8')).join('\n'),
);

/**
 * Which arguments (after the command name) are keys: `first` (`key …`), `allButLast` (JSON.MGET's
 * `key [key …] path`), `triplets` (JSON.MSET's `key path value [key path value …]`; a trailing
 * partial triplet's key too, so the script reports its arity error in order), `second` (JSON.DEBUG's
 * `MEMORY key [path]`).
 */
export type JsonKeyLayout = 'first' | 'allButLast' | 'triplets' | 'second';

/** How each emulated command splits its arguments (after the name) into KEYS and ARGV. */
export interface JsonCommandShape {
  /** Fewest arguments after the command name. */
  readonly minArgs: number;
  /** Most arguments after the command name; Infinity when unbounded. */
  readonly maxArgs: number;
  readonly keys: JsonKeyLayout;
  readonly readOnly: boolean;
}

/** The positions (in the arguments after the command name) that are keys. */
export function keyPositions(layout: JsonKeyLayout, count: number): number[] {
  switch (layout) {
    case 'first':
      return count > 0 ? [0] : [];
    case 'allButLast':
      return Array.from({ length: Math.max(count - 1, 0) }, (_, i) => i);
    case 'triplets':
      return Array.from({ length: Math.ceil(count / 3) }, (_, i) => i * 3);
    case 'second':
      return count > 1 ? [1] : [];
  }
}

const shape = (minArgs: number, readOnly: boolean, keys: JsonKeyLayout = 'first'): JsonCommandShape => ({
  minArgs,
  // RedisJSON 2.x ignores arguments past the ones it reads (JSON.ARRINDEX's script checks its own).
  maxArgs: Number.POSITIVE_INFINITY,
  readOnly,
  keys,
});

/**
 * Arities as RedisJSON 2.x checks them at run time (module commands have no declared arity): the
 * arguments it needs before anything else can fail. Arguments it reads later (JSON.ARRINSERT's index
 * and values, JSON.ARRTRIM's start and stop, JSON.MSET's triplets) the script checks in RedisJSON's
 * order, after the argument errors that come first. Read-only flags as the module declares them.
 * JSON.NUMPOWBY is deprecated (undocumented) but still served by RedisJSON 2.x, so it is here too.
 */
export const jsonCommandShapes: ReadonlyMap<string, JsonCommandShape> = new Map([
  ['JSON.SET', shape(3, false)],
  ['JSON.GET', shape(1, true)],
  ['JSON.MGET', shape(2, true, 'allButLast')],
  ['JSON.MSET', shape(3, false, 'triplets')],
  ['JSON.MERGE', shape(3, false)],
  ['JSON.DEL', shape(1, false)],
  ['JSON.FORGET', shape(1, false)],
  ['JSON.TYPE', shape(1, true)],
  ['JSON.CLEAR', shape(1, false)],
  ['JSON.TOGGLE', shape(2, false)],
  ['JSON.NUMINCRBY', shape(3, false)],
  ['JSON.NUMMULTBY', shape(3, false)],
  ['JSON.NUMPOWBY', shape(3, false)],
  ['JSON.STRAPPEND', shape(2, false)],
  ['JSON.STRLEN', shape(1, true)],
  ['JSON.ARRAPPEND', shape(3, false)],
  ['JSON.ARRINDEX', shape(3, true)],
  ['JSON.ARRINSERT', shape(2, false)],
  ['JSON.ARRLEN', shape(1, true)],
  ['JSON.ARRPOP', shape(1, false)],
  ['JSON.ARRTRIM', shape(2, false)],
  ['JSON.OBJKEYS', shape(1, true)],
  ['JSON.OBJLEN', shape(1, true)],
  ['JSON.RESP', shape(1, true)],
  ['JSON.DEBUG', shape(1, true, 'second')],
]);
