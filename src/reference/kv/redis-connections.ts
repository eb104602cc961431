/**
 * Connections to the backing Redis: per Redis user one shared client (commands and pipelines are
 * multiplexed on it) and a pool of dedicated connections for MULTI/EXEC; single-use connections for
 * /monitor and /subscribe. Requests with an ACL token run on connections authenticated as that user,
 * so Redis itself enforces the user's permissions.
 */
import { createClientPool, ErrorReply, RESP_TYPES } from '@redis/client';
import { withTimeout } from '../../shared/with-timeout.ts';
import { newRedisClient } from '../redis/redis-client-class.ts';
import type { RedisUser } from './kv-tokens.ts';

type ConnectionOptions = {
  url: string;
  credentialsProvider: {
    type: 'async-credentials-provider';
    credentials: () => Promise<{ username?: string; password?: string }>;
  };
  socket: { connectTimeout: number; reconnectStrategy: (retries: number, cause: Error) => false | number };
};

// RESP2 on every connection: area B answers RESP2 (Svc-Response-Format: resp2), so replies keep its types.
// No offline queue: while Redis is unreachable a command fails at once instead of waiting forever.
// Plain clients come from the reference's one client class (redis-client-class.ts), so the pools have
// @redis/client's one-entry class cache to themselves.
// Each gets copies: @redis/client writes the URL's host and port into the socket object it is given,
// and options that serialize differently make a pool build its classes again (#options below).
const newClient = (options: ConnectionOptions) => newRedisClient(fresh(options));
const newPool = (options: ConnectionOptions) =>
  createClientPool(fresh(options), { minimum: 1, maximum: 8, acquireTimeout: 10_000 });
const fresh = (options: ConnectionOptions) =>
  ({ ...options, socket: { ...options.socket }, RESP: 2, disableOfflineQueue: true }) as const;

export type RedisClient = ReturnType<typeof newClient>;
export type RedisPool = ReturnType<typeof newPool>;

/**
 * Simple strings stay JS strings, bulk strings arrive as Buffers: RESP2 types stay exact. Integers
 * arrive as their digits (JS strings too), since a JS number rounds a 64-bit reply past 2^53;
 * reply-format.ts tells them from simple strings by their form.
 */
export const exactTypes = { [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.NUMBER]: String } as const;

export interface UserLink {
  readonly client: RedisClient;
  readonly pool: RedisPool;
}

const ignore = () => {};
const connectDeadlineMs = 10_000;

/** Redis refused the credentials of an ACL token's user (changed password, deleted user). */
export class UserRejectedError extends Error {
  override readonly name = 'UserRejectedError';
}

function isAuthFailure(cause: unknown): boolean {
  return cause instanceof ErrorReply && /^(WRONGPASS|NOAUTH|NOPERM)/.test(cause.message);
}

/** Connects within a deadline; refused credentials fail at once (the reconnect strategy gives up on them). */
async function connectWithin(connect: () => Promise<unknown>, destroy: () => void): Promise<void> {
  try {
    await withTimeout(connect(), connectDeadlineMs, `Redis did not accept a connection within ${connectDeadlineMs} ms`);
  } catch (error) {
    destroy();
    if (isAuthFailure(error)) throw new UserRejectedError((error as Error).message);
    throw error;
  }
}

export class RedisConnections {
  readonly #url: string;
  readonly #users = new Map<string, Promise<UserLink>>();
  readonly #dedicated = new Set<RedisClient>();
  #closed = false;

  private constructor(url: string) {
    this.#url = url;
  }

  static async open(url: string): Promise<RedisConnections> {
    const connections = new RedisConnections(url);
    await connections.user(undefined);
    return connections;
  }

  /** The shared client and transaction pool of a Redis user (the default user when undefined). */
  async user(user: RedisUser | undefined): Promise<UserLink> {
    const key = user === undefined ? '' : JSON.stringify([user.username, user.password]);
    const cached = this.#users.get(key);
    if (cached) {
      const link = await cached;
      if (link.client.isOpen) return link;
      // Its reconnect strategy gave up (e.g. the user's password changed): start afresh.
      if (this.#users.get(key) === cached) this.#users.delete(key);
      link.client.destroy();
      link.pool.destroy();
    }
    let link = this.#users.get(key);
    if (!link) {
      link = this.#connectUser(user);
      this.#users.set(key, link);
      const created = link;
      link.catch(() => {
        if (this.#users.get(key) === created) this.#users.delete(key);
      });
    }
    return link;
  }

  /**
   * A fresh connection for /monitor or /subscribe; give it back with `release`. It never reconnects:
   * a stream that silently resumed after Redis came back would hide the commands and messages it
   * missed, so a lost connection ends its stream instead (`onLost`), and an unreachable Redis fails
   * at once rather than after the connect deadline.
   */
  async dedicated(user: RedisUser | undefined, onLost: () => void = ignore): Promise<RedisClient> {
    const client = newClient(this.#singleUseOptions(user));
    client.on('error', onLost);
    client.on('end', onLost);
    this.#dedicated.add(client);
    await connectWithin(
      () => client.connect(),
      () => this.release(client),
    );
    return client;
  }

  release(client: RedisClient): void {
    if (this.#dedicated.delete(client)) client.destroy();
  }

  /** Whether the user exists with that password: one throwaway connection, no retries. */
  async verify(user: RedisUser): Promise<boolean> {
    const client = newClient(this.#singleUseOptions(user));
    client.on('error', ignore);
    try {
      await client.connect();
      return true;
    } catch (error) {
      // Redis answers refused credentials with WRONGPASS (an ErrorReply); anything else is no answer.
      if (isAuthFailure(error)) return false;
      throw error;
    } finally {
      if (client.isOpen) client.destroy();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const client of this.#dedicated) client.destroy();
    this.#dedicated.clear();
    const links = await Promise.allSettled(this.#users.values());
    this.#users.clear();
    for (const link of links) {
      if (link.status !== 'fulfilled') continue;
      link.value.client.destroy();
      link.value.pool.destroy();
    }
  }

  async #connectUser(user: RedisUser | undefined): Promise<UserLink> {
    const options = this.#options(user);
    const client = newClient(options);
    client.on('error', ignore);
    const pool = newPool(options);
    pool.on('error', ignore);
    const destroy = () => {
      client.destroy();
      pool.destroy();
    };
    await connectWithin(() => client.connect(), destroy);
    await connectWithin(() => pool.connect(), destroy);
    return { client, pool };
  }

  /**
   * Every connection's options serialize alike (credentials and strategies are functions, which JSON
   * leaves out). @redis/client builds a class of its 500 command methods (and one for pools, and one
   * for transactions) for each options object whose JSON differs from the last one's: with each user's
   * credentials in plain fields, every new user's link and every stream's connection built them again,
   * 0.1 s of CPU and tens of megabytes of garbage each time (issue 25: the kv suite's first cases grew
   * the embedded run by 200 MB).
   */
  #options(user: RedisUser | undefined): ConnectionOptions {
    const socket = {
      connectTimeout: 5_000,
      // Retry a lost connection with backoff, but never refused credentials: those stay refused.
      reconnectStrategy: (retries: number, cause: Error) =>
        isAuthFailure(cause) ? false : Math.min(50 * 2 ** retries, 2_000),
    };
    // An ACL user's connections carry only that user's credentials, never the URL's.
    const url = new URL(this.#url);
    const credentials = user ?? {
      ...(url.username !== '' && { username: decodeURIComponent(url.username) }),
      ...(url.password !== '' && { password: decodeURIComponent(url.password) }),
    };
    url.username = '';
    url.password = '';
    return {
      url: url.toString(),
      credentialsProvider: { type: 'async-credentials-provider', credentials: async () => credentials },
      socket,
    };
  }

  /** A connection that never reconnects: streams end when it is lost, and `verify` asks exactly once. */
  #singleUseOptions(user: RedisUser | undefined): ConnectionOptions {
    const options = this.#options(user);
    return { ...options, socket: { ...options.socket, reconnectStrategy: () => false } };
  }
}
