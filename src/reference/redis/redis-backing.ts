/** A Redis the reference runs on, whichever way it was found (acquire-redis.ts). */
export interface RedisBacking {
  /** `redis://127.0.0.1:<port>` (or the URL given); may carry credentials, so never print it raw. */
  readonly url: string;
  readonly origin: 'url' | 'redis-server' | 'container';
  /** Stops what `acquireRedis` started (nothing for a given URL); idempotent. */
  stop(): Promise<void>;
}
