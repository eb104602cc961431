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

/** How each emulated command splits its arguments (after the name) into KEYS and ARGV. */
export interface JsonCommandShape {
  /** Fewest arguments after the command name. */
  readonly minArgs: number;
  /** Most arguments after the command name; Infinity when unbounded. */
  readonly maxArgs: number;
  /** Whether every argument but the last is a key (JSON.MGET); otherwise only the first is. */
  readonly keysUntilLast: boolean;
  readonly readOnly: boolean;
}

const shape = (minArgs: number, maxArgs: number, readOnly: boolean, keysUntilLast = false): JsonCommandShape => ({
  minArgs,
  maxArgs,
  readOnly,
  keysUntilLast,
});

/** Arities as RedisJSON declares them (e.g. JSON.SET is -4: key, path, value, then options). */
export const jsonCommandShapes: ReadonlyMap<string, JsonCommandShape> = new Map([
  ['JSON.SET', shape(3, 4, false)],
  ['JSON.GET', shape(1, Number.POSITIVE_INFINITY, true)],
  ['JSON.MGET', shape(2, Number.POSITIVE_INFINITY, true, true)],
  ['JSON.DEL', shape(1, 2, false)],
  ['JSON.FORGET', shape(1, 2, false)],
  ['JSON.TYPE', shape(1, 2, true)],
  ['JSON.NUMINCRBY', shape(3, 3, false)],
  ['JSON.STRLEN', shape(1, 2, true)],
  ['JSON.ARRAPPEND', shape(3, Number.POSITIVE_INFINITY, false)],
  ['JSON.ARRLEN', shape(1, 2, true)],
  ['JSON.OBJKEYS', shape(1, 2, true)],
  ['JSON.OBJLEN', shape(1, 2, true)],
]);
