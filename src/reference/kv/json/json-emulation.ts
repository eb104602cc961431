/**
 * The JSON command group of the reference (issue 2, "The JSON command group"): passed through where
 * the backing Redis has it (Redis 8, redis-stack), otherwise emulated by one server-side Lua script, so
 * the commands also work inside pipelines and MULTI/EXEC. Documents are JSON text in plain string keys.
 */
import { jsonCommandShapes, jsonScript } from './json-script.ts';

export interface JsonSupport {
  readonly mode: 'native' | 'emulated';
  /** Upper-case names of the JSON commands available. */
  readonly commands: readonly string[];
  /** Upper-case; the read-only token policy uses this when emulated. */
  readonly readOnlyCommands: ReadonlySet<string>;
  /** For an emulated JSON command: the EVAL form to send instead (works inside MULTI/pipelines too); else undefined. */
  translate(args: readonly Buffer[]): Buffer[] | undefined;
}

/** The part of a connected @redis/client v6 client this module uses. */
export interface CommandSender {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

export async function detectJsonSupport(client: CommandSender): Promise<JsonSupport> {
  const names = await nativeJsonCommands(client);
  if (names.length > 0) return nativeSupport(client, names);
  // EVAL_RO (Redis 7+) lets Redis itself refuse a write from a read-only command's script.
  const hasEvalRo = Array.isArray(await client.sendCommand(['COMMAND', 'INFO', 'EVAL_RO']).then(first));
  return emulatedJsonSupport(hasEvalRo);
}

async function nativeJsonCommands(client: CommandSender): Promise<string[]> {
  const info = await client.sendCommand(['COMMAND', 'INFO', 'JSON.GET']);
  if (!Array.isArray(first(info))) return [];
  const listed = await client.sendCommand(['COMMAND', 'LIST', 'FILTERBY', 'PATTERN', 'json.*']);
  return Array.isArray(listed) ? listed.map((name) => String(name).toUpperCase()).sort() : ['JSON.GET'];
}

async function nativeSupport(client: CommandSender, names: string[]): Promise<JsonSupport> {
  // COMMAND INFO rows are [name, arity, flags, ...]; the module declares which are read-only.
  const rows = await client.sendCommand(['COMMAND', 'INFO', ...names]);
  const readOnly = new Set<string>();
  for (const row of Array.isArray(rows) ? rows : []) {
    if (!Array.isArray(row) || !Array.isArray(row[2])) continue;
    if (row[2].map(String).includes('readonly')) readOnly.add(String(row[0]).toUpperCase());
  }
  return { mode: 'native', commands: names, readOnlyCommands: readOnly, translate: () => undefined };
}

/** The emulation on its own (tests use it on any Redis); `hasEvalRo`: send read-only commands as EVAL_RO. */
export function emulatedJsonSupport(hasEvalRo: boolean): JsonSupport {
  const commands = [...jsonCommandShapes.keys()].sort();
  const readOnly = new Set(commands.filter((name) => jsonCommandShapes.get(name)?.readOnly));
  const evalWrite = Buffer.from('EVAL');
  const evalRead = Buffer.from(hasEvalRo ? 'EVAL_RO' : 'EVAL');
  return {
    mode: 'emulated',
    commands,
    readOnlyCommands: readOnly,
    translate(args) {
      if (args.length === 0) return undefined;
      const name = args[0]!.toString('latin1').toUpperCase();
      const shape = jsonCommandShapes.get(name);
      if (shape === undefined) return undefined;
      const rest = args.slice(1);
      if (rest.length < shape.minArgs || rest.length > shape.maxArgs) return arityError(name);
      const keyCount = shape.keysUntilLast ? rest.length - 1 : 1;
      return [
        shape.readOnly ? evalRead : evalWrite,
        jsonScript,
        Buffer.from(String(keyCount)),
        ...rest.slice(0, keyCount),
        Buffer.from(name),
        ...rest.slice(keyCount),
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

function first(reply: unknown): unknown {
  return Array.isArray(reply) ? reply[0] : undefined;
}
