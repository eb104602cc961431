/**
 * A Lua script run on the reference's Redis by its SHA-1 (EVALSHA), loaded on first use or after a
 * Redis restart (NOSCRIPT). Area A's state changes that must not be torn apart by a crash (claiming a
 * due message, taking a waiter, moving a queue's head) are each one script.
 */
import { createHash } from 'node:crypto';
import type { AreaRedis } from '../account/area-redis.ts';

export type MessagingRedis = AreaRedis;

export type LuaReply = string | number | null | LuaReply[];

export class LuaScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: MessagingRedis, keys: readonly string[], args: readonly (string | number)[]): Promise<LuaReply> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return (await redis.sendCommand(['EVALSHA', this.#sha, ...tail])) as LuaReply;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await redis.sendCommand(['EVAL', this.#source, ...tail])) as LuaReply;
    }
  }
}
