/**
 * One flag's value read by its kind: a text from the command line, or what a config file holds (a
 * number, an array, an object of `NAME=VALUE` pairs). The one reader both go through, so a duration in
 * the file and on the command line are the same duration; a wrong one throws a `Refusal` that the
 * caller words around the flag (`--timeout`) or the file's key (`config file F: timeout`).
 */
import { isAbsolute, resolve } from 'node:path';
import {
  isModulePath,
  Refusal,
  readCount,
  readDestination,
  readDuration,
  readEnum,
  readList,
  readNameOrPath,
  readRate,
} from '../shared/value-kinds.ts';
import type { OptionSpec } from './option-spec.ts';

/** Where relative paths are resolved from: a config file's folder; undefined for the command line (as given). */
export type PathBase = string | undefined;

export function readOption(option: OptionSpec, value: unknown, base: PathBase): unknown {
  if (option.pairs && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return Object.entries(value).map(([name, item]) => `${name}=${String(item)}`);
  }
  if (!option.multiple) return readOne(option, value, base);
  const items: readonly unknown[] = Array.isArray(value) ? value : [value];
  return items.map((item) => readOne(option, item, base));
}

function readOne(option: OptionSpec, value: unknown, base: PathBase): unknown {
  switch (option.kind) {
    case 'boolean':
      if (typeof value !== 'boolean') throw new Refusal((label) => `${label} is a switch: true or false`);
      return value;
    case 'string':
      return text(value);
    case 'path':
      return fromBase(text(value), base);
    case 'duration':
      return readDuration(option, value);
    case 'count':
      return readCount(option, value);
    case 'rate':
      return readRate(value);
    case 'enum':
      return readEnum(option, value);
    case 'list':
      return readList(option, value);
    case 'destination': {
      const read = readDestination(option, value);
      const file = option.files?.includes(read.kind) === true;
      return file ? { ...read, destination: fromBase(read.destination, base) } : read;
    }
    case 'name-or-path': {
      const read = readNameOrPath(option, value);
      return isModulePath(read) ? fromBase(read, base) : read;
    }
  }
}

/** A path as given on the command line; a config file's resolved from its folder. */
function fromBase(path: string, base: PathBase): string {
  return base === undefined || isAbsolute(path) ? path : resolve(base, path);
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Refusal((label) => `${label} ${JSON.stringify(value)} is not a text`);
  return value;
}
