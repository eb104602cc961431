/**
 * The JSON command group of the reference (issue 2, "The JSON command group"): passed through where
 * the backing Redis has it (Redis 8, redis-stack), otherwise emulated by one server-side Lua script, so
 * the commands also work inside pipelines and MULTI/EXEC. Documents are JSON text in plain string keys.
 */
import { isAscii } from 'node:buffer';
import type { CommandInfo } from '../../../protocol/kv/command-reply.ts';
import { jsonCommandShapes, jsonScript, keyPositions } from './json-script.ts';

/** The backing Redis runs the JSON commands itself: they pass through unchanged. */
export interface NativeJsonSupport {
  readonly mode: 'native';
  /** Upper-case names of the JSON commands available. */
  readonly commands: readonly string[];
}

/** The JSON commands run as the emulation's script; the read-only policy cannot ask Redis's flags. */
export interface EmulatedJsonSupport {
  readonly mode: 'emulated';
  /** Upper-case names of the JSON commands available. */
  readonly commands: readonly string[];
  /** Upper-case; the read-only token policy uses this (a native module declares its own flags). */
  readonly readOnlyCommands: ReadonlySet<string>;
  /**
   * The EVAL form to send instead of an emulated JSON command (works inside MULTI/pipelines too); else
   * undefined. `name` is the upper-cased command name when the caller has decoded it already.
   */
  translate(args: readonly Buffer[], name?: string): Buffer[] | undefined;
}

export type JsonSupport = NativeJsonSupport | EmulatedJsonSupport;

/**
 * Native or emulated, from the backing Redis's parsed `COMMAND` reply (the one the read-only policy
 * reads too, so start-up asks Redis once): native when a module serves `json.get`.
 */
export function jsonSupportFrom(commands: readonly CommandInfo[]): JsonSupport {
  const names = commands.filter((info) => info.name.startsWith('json.')).map((info) => info.name.toUpperCase());
  if (names.includes('JSON.GET')) return { mode: 'native', commands: names.sort() };
  // EVAL_RO (Redis 7+) lets Redis itself refuse a write from a read-only command's script.
  return emulatedJsonSupport(commands.some((info) => info.name === 'eval_ro'));
}

/** The emulation on its own (tests use it on any Redis); `hasEvalRo`: send read-only commands as EVAL_RO. */
export function emulatedJsonSupport(hasEvalRo: boolean): EmulatedJsonSupport {
  const commands = [...jsonCommandShapes.keys()].sort();
  const readOnly = new Set(commands.filter((name) => jsonCommandShapes.get(name)?.readOnly));
  const evalWrite = Buffer.from('EVAL');
  const evalRead = Buffer.from(hasEvalRo ? 'EVAL_RO' : 'EVAL');
  return {
    mode: 'emulated',
    commands,
    readOnlyCommands: readOnly,
    translate(args, name) {
      const word = args[0];
      // Redis matches command names in ASCII only: a spelling that merely upper-cases to a JSON name
      // in Unicode (`json.ſet`) is no JSON command, and Redis answers it as unknown.
      if (word === undefined || !isAscii(word)) return undefined;
      name ??= word.toString('latin1').toUpperCase();
      const shape = jsonCommandShapes.get(name);
      if (shape === undefined) return undefined;
      const rest = args.slice(1);
      if (rest.length < shape.minArgs || rest.length > shape.maxArgs) return arityError(name);
      const positions = new Set(keyPositions(shape.keys, rest.length));
      const keys = rest.filter((_, i) => positions.has(i));
      const others = rest.filter((_, i) => !positions.has(i));
      return [
        shape.readOnly ? evalRead : evalWrite,
        jsonScript,
        Buffer.from(String(keys.length)),
        ...keys,
        Buffer.from(name),
        ...others,
      ];
    },
  };
}

const errorScript = Buffer.from('return redis.error_reply(ARGV[1])');

/**
 * Redis's own arity text. It arrives when the script runs, so inside MULTI it is an error in place
 * rather than the EXECABORT a native module's arity check gives at queue time.
 */
function arityError(name: string): Buffer[] {
  const message = `ERR wrong number of arguments for '${name.toLowerCase()}' command`;
  return [Buffer.from('EVAL'), errorScript, Buffer.from('0'), Buffer.from(message)];
}
