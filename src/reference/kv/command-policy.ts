/**
 * Which commands area B runs, refuses, and lets the Read Only token run. The read-only policy is
 * derived from the backing Redis's own `COMMAND` metadata, never from a hand-written list.
 */
import type { CommandInfo } from '../../protocol/kv/command-reply.ts';
import type { JsonSupport } from './json/json-emulation.ts';
import type { KvFaultCheck } from './kv-fault-check.ts';

/** The transaction commands: refused as commands; only a fault lets /multi-exec take them in place. */
export const transactionCommands: ReadonlySet<string> = new Set(['MULTI', 'EXEC', 'DISCARD', 'WATCH', 'UNWATCH']);

/** Commands that run a script Redis flags read-only: it may still call what the Read Only token is refused. */
const readOnlyScripts: ReadonlySet<string> = new Set(['EVAL_RO', 'EVALSHA_RO', 'FCALL_RO']);

/** Commands refused on every path; `allowedBy` names the fault switch that lets them through. */
const refusedGroups: readonly {
  readonly names: readonly string[];
  readonly allowedBy?: Parameters<KvFaultCheck>[0];
}[] = [
  // Spec "Endpoints > Area B" rule 5: blocking list commands are not supported.
  { names: ['BLPOP', 'BRPOP', 'BRPOPLPUSH', 'BLMOVE', 'BLMPOP'], allowedBy: 'blpop-allowed' },
  // Spec rule 5: blocking sorted-set commands are not supported.
  { names: ['BZPOPMIN', 'BZPOPMAX', 'BZMPOP'], allowedBy: 'bzpop-allowed' },
  // Spec rule 5: of the connection group only PING and ECHO are supported.
  { names: ['AUTH', 'SELECT', 'CLIENT'], allowedBy: 'connection-commands-allowed' },
  { names: ['HELLO', 'QUIT', 'RESET'] },
  // Spec rule 5: cluster commands are not supported.
  { names: ['CLUSTER', 'READONLY', 'READWRITE', 'ASKING'] },
  // Spec rule 5: WATCH, UNWATCH, DISCARD are not supported in transactions; /multi-exec is the
  // transaction form, so MULTI and EXEC are refused as commands too (they would break a shared connection).
  { names: [...transactionCommands] },
  // Commands that take over a connection: served by /subscribe and /monitor, refused as commands.
  {
    names: ['SUBSCRIBE', 'PSUBSCRIBE', 'SSUBSCRIBE', 'UNSUBSCRIBE', 'PUNSUBSCRIBE', 'SUNSUBSCRIBE', 'MONITOR'],
  },
  { names: ['SYNC', 'PSYNC', 'REPLCONF', 'WAIT', 'WAITAOF'] },
];

/** Each refused name → its group: looked up for every command, pipelines included. */
const refusedGroupOf: ReadonlyMap<string, (typeof refusedGroups)[number]> = new Map(
  refusedGroups.flatMap((group) => group.names.map((name) => [name, group] as const)),
);

/** Flags of one command or subcommand, as `COMMAND` reports them (lower-case names). */
interface CommandEntry {
  readonly flags: ReadonlySet<string>;
  /** Subcommand name (lower-case, without the parent) → its entry. */
  readonly subcommands: ReadonlyMap<string, CommandEntry>;
}

export class CommandPolicy {
  readonly #commands: ReadonlyMap<string, CommandEntry>;
  readonly #json: JsonSupport;
  readonly #fault: KvFaultCheck;

  /** `commands`: the backing Redis's `COMMAND` reply, parsed (`parseCommandReply`). */
  constructor(commands: readonly CommandInfo[], json: JsonSupport, fault: KvFaultCheck) {
    this.#commands = commandTable(commands);
    this.#json = json;
    this.#fault = fault;
  }

  /**
   * Why area B refuses the command, or undefined when it exists and is supported. `name` is
   * `commandName(args)`, passed by callers that have it already (the engine decodes it once).
   */
  refusal(args: readonly Buffer[], name = commandName(args)): string | undefined {
    const notAvailable = `ERR Command is not available: '${name}'`;
    if (this.#isJson(name)) return this.#fault('json-commands-refused') ? notAvailable : undefined;
    // Spec rule 5: an unknown command is an invalid command (400).
    if (!this.#commands.has(name.toLowerCase())) return notAvailable;
    if (this.#fault('stream-commands-refused') && /^X[A-Z]+$/.test(name)) return notAvailable;
    const group = refusedGroupOf.get(name);
    if (group && !(group.allowedBy && this.#fault(group.allowedBy))) return notAvailable;
    // Spec rule 5: streams are supported except blocking XREAD and XREADGROUP.
    if ((name === 'XREAD' || name === 'XREADGROUP') && hasBlockOption(args) && !this.#fault('xread-block-allowed')) {
      return notAvailable;
    }
    return undefined;
  }

  /**
   * Whether the Read Only token may run the command (spec "Authentication" 1): Redis's `readonly`
   * flag, minus KEYS and SCAN, plus PING and ECHO (notes, area B). `name` as for `refusal`.
   */
  allowsReadOnly(args: readonly Buffer[], name = commandName(args)): boolean {
    if (name === 'PING' || name === 'ECHO') return true;
    if (name === 'PUBLISH' && this.#fault('readonly-publish-allowed')) return true;
    if (this.#fault('readonly-refuses-reads')) return false;
    if (name === 'KEYS' || name === 'SCAN') return this.#fault('readonly-runs-keys');
    // Read-only scripts may call KEYS, SCAN and INFO, which the token is refused directly: refused too.
    if (readOnlyScripts.has(name)) return this.#fault('readonly-scripts-allowed');
    if (this.#fault('readonly-runs-writes')) return true;
    if (this.#isJson(name) && this.#json.mode === 'emulated') return this.#json.readOnlyCommands.has(name);
    const entry = this.#commands.get(name.toLowerCase());
    if (!entry) return false;
    if (entry.subcommands.size > 0) {
      const sub = args[1]?.toString('utf8').toLowerCase();
      const subEntry = sub === undefined ? undefined : entry.subcommands.get(sub);
      return subEntry?.flags.has('readonly') ?? false;
    }
    return entry.flags.has('readonly');
  }

  #isJson(name: string): boolean {
    return name.startsWith('JSON.') && this.#json.commands.includes(name);
  }
}

export function commandName(args: readonly Buffer[]): string {
  return (args[0]?.toString('utf8') ?? '').toUpperCase();
}

function hasBlockOption(args: readonly Buffer[]): boolean {
  for (const arg of args.slice(1)) {
    const word = arg.toString('utf8').toUpperCase();
    if (word === 'STREAMS') return false;
    if (word === 'BLOCK') return true;
  }
  return false;
}

/** Name → flags and subcommands, for the policy's lookups on every command. */
function commandTable(commands: readonly CommandInfo[]): Map<string, CommandEntry> {
  const entry = (info: CommandInfo): CommandEntry => ({
    flags: info.flags,
    subcommands: new Map(info.subcommands.map((sub) => [sub.name.slice(sub.name.indexOf('|') + 1), entry(sub)])),
  });
  return new Map(commands.map((info) => [info.name, entry(info)]));
}
