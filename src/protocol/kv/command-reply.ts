/**
 * The key-value store's `COMMAND` reply, parsed once for everyone who reads it: the reference derives
 * its read-only policy from it, and the suite derives the write commands a target must refuse.
 * Entries are `[name, arity, flags, first key, last key, step, categories, tips, key specs, subcommands]`;
 * values may arrive as strings (JSON over REST) or Buffers (a Redis client), so each is converted.
 */

export interface CommandInfo {
  /** Lower-case; a subcommand is `parent|sub`. */
  readonly name: string;
  /** Negative: at least that many words, command name included. */
  readonly arity: number;
  /** Lower-case flags (`write`, `readonly`, `blocking`, …). */
  readonly flags: ReadonlySet<string>;
  /** Position of the first key (0: no key), the last (negative counts from the end), and the step. */
  readonly firstKey: number;
  readonly lastKey: number;
  readonly step: number;
  readonly subcommands: readonly CommandInfo[];
}

/** Every well-formed entry of a `COMMAND` reply; anything else gives an empty list. */
export function parseCommandReply(reply: unknown): CommandInfo[] {
  return Array.isArray(reply) ? reply.map(parseCommandEntry).filter((entry) => entry !== undefined) : [];
}

export function parseCommandEntry(item: unknown): CommandInfo | undefined {
  if (!Array.isArray(item) || item.length < 6 || !Array.isArray(item[2])) return undefined;
  const [name, arity, flags, firstKey, lastKey, step] = item as [
    unknown,
    unknown,
    unknown[],
    unknown,
    unknown,
    unknown,
  ];
  const numbers = [arity, firstKey, lastKey, step].map(Number);
  if (numbers.some((value) => !Number.isFinite(value))) return undefined;
  const [arityValue = 0, first = 0, last = 0, stepValue = 0] = numbers;
  return {
    name: String(name).toLowerCase(),
    arity: arityValue,
    flags: new Set(flags.map((flag) => String(flag).toLowerCase())),
    firstKey: first,
    lastKey: last,
    step: stepValue,
    subcommands: parseCommandReply(item[9]),
  };
}
