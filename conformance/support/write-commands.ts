/**
 * The write commands a target reports through its own `COMMAND` (flag `write`), each turned into a
 * minimal invocation from its arity and key positions, every key under the case prefix. Commands
 * without a key argument (FLUSHALL, SWAPDB, FUNCTION …) and those that reach outside the database
 * (MIGRATE, MOVE) are never sent: a run against a shared target must stay harmless.
 */
import { type CommandInfo, parseCommandReply } from '../../src/suite-kit/suite-api.ts';

export interface WriteInvocation {
  /** `SET`, or `XGROUP CREATE` for a subcommand. */
  readonly name: string;
  readonly blocking: boolean;
  /** The invocation for a key namer: command name first, keys from `key(i)`, other arguments "1". */
  build(key: (index: number) => string): string[];
}

export interface WriteCatalog {
  readonly invocations: readonly WriteInvocation[];
  /** Write commands not sent, with why. */
  readonly skipped: readonly string[];
}

/** Key-bearing write commands that act outside the database or connection and are never sent. */
const neverSent = new Set(['migrate', 'move', 'restore-asking']);

function invocation(entry: CommandInfo): WriteInvocation {
  const words = entry.name.split('|').map((word) => word.toUpperCase());
  const length = Math.abs(entry.arity);
  return {
    name: words.join(' '),
    blocking: entry.flags.has('blocking'),
    build(key) {
      const args = Array.from({ length }, (_, index) => words[index] ?? '1');
      const last = entry.lastKey < 0 ? length + entry.lastKey : entry.lastKey;
      let count = 0;
      for (let at = entry.firstKey; at >= 1 && at <= last && at < length; at += Math.max(1, entry.step)) {
        args[at] = key(count++);
      }
      return args;
    },
  };
}

/** The write commands of a `COMMAND` reply (a JSON array of command entries). */
export function writeCatalog(reply: unknown): WriteCatalog {
  const invocations: WriteInvocation[] = [];
  const skipped: string[] = [];
  const consider = (entry: CommandInfo) => {
    if (!entry.flags.has('write')) return;
    if (neverSent.has(entry.name)) skipped.push(`${entry.name} (acts outside the database)`);
    // Search modules report index and dictionary names as keys: those objects are not keys, and DEL
    // after the case would not remove them from a shared target.
    else if (entry.name.startsWith('ft.')) skipped.push(`${entry.name} (names a search index, not a key)`);
    else if (entry.firstKey < 1) skipped.push(`${entry.name} (no key argument)`);
    else invocations.push(invocation(entry));
  };
  for (const entry of parseCommandReply(reply)) {
    if (entry.subcommands.length > 0) entry.subcommands.forEach(consider);
    else consider(entry);
  }
  return { invocations, skipped };
}

/** Used when the target does not answer `COMMAND`: writes of every data type, all with a key. */
export const fallbackWrites: readonly string[][] = [
  ['SET', '{k}', '1'],
  ['DEL', '{k}'],
  ['INCR', '{k}'],
  ['APPEND', '{k}', '1'],
  ['LPUSH', '{k}', '1'],
  ['HSET', '{k}', '1', '1'],
  ['SADD', '{k}', '1'],
  ['ZADD', '{k}', '1', '1'],
  ['SETBIT', '{k}', '1', '1'],
  ['EXPIRE', '{k}', '100'],
  ['XADD', '{k}', '*', '1', '1'],
];
