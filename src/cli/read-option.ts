/**
 * One flag's value read by its kind: a text from the command line, or what a config file holds (a
 * number, an array, an object of `NAME=VALUE` pairs). The one reader both go through, so a duration in
 * the file and on the command line are the same duration; a wrong one throws a `Refusal` that the
 * caller words around the flag (`--timeout`) or the file's key (`config file F: timeout`).
 */
import { isAbsolute, resolve } from 'node:path';
import { Refusal, readCount, readDuration, readEnum, readList, readRate } from '../shared/value-kinds.ts';
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
    case 'path': {
      const path = text(value);
      return base === undefined || isAbsolute(path) ? path : resolve(base, path);
    }
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
  }
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Refusal((label) => `${label} ${JSON.stringify(value)} is not a text`);
  return value;
}
