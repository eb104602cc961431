/**
 * Command arguments in the form the Redis client writes cheapest, with the same bytes on the wire.
 *
 * @redis/client encodes a command of strings as one string, but gives every Buffer argument two
 * chunks of its own (header and bytes), each a separate socket write: a SET of three Buffers is
 * seven writes. Under pipelines of 100 that was ~5,000 chunks per writev and about a fifth of the
 * reference's CPU (bench/kv-engine-stages.ts counts socket writes per command). A short argument
 * that is all ASCII is the same bytes as a string, so it goes as one; any other argument stays a
 * Buffer, so every byte value still passes.
 */
import { isAscii } from 'node:buffer';

export type WireArg = string | Buffer;

/** Past this size a Buffer's own chunk costs less than copying its bytes into a string and back. */
const maxStringBytes = 1024;

export function toWireArgs(args: readonly Buffer[]): WireArg[] {
  return args.map((arg) => (arg.length <= maxStringBytes && isAscii(arg) ? arg.toString('latin1') : arg));
}
