/** What the reference service is started with; every area reads the settings it needs from here. */
import type { DialectName } from '../target/dialects.ts';
import type { TargetArea } from '../target/target.ts';
import type { RetryBackoff } from './messaging/backoff.ts';

export interface ReferenceOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** Each area's port. @default 0 (a free port) for every area */
  ports?: Partial<Record<TargetArea, number>>;
  /** @default 0 (a free port) */
  adminPort?: number;
  /** Passed to acquireRedis (else REDIS_URL, redis-server on PATH, a container). */
  redisUrl?: string;
  /** Which areas to serve. @default every area of `referenceAreas` */
  areas?: readonly TargetArea[];
  /** Fault switches to turn on (names from `allFaults`). */
  faults?: readonly string[];
  /** Silence switches to turn on (names from `allSilences`): other legal choices where the spec is silent. */
  silences?: readonly string[];
  /** Area A's settings. */
  messaging?: MessagingOptions;
  /** @default 10 * 1024 * 1024 */
  maxRequestBytes?: number;
  /** Commands per UTC day. @default null (off) */
  dailyRequestLimit?: number | null;
  /** How long the commands of one request may wait to be written to Redis. @default 5000 */
  writeDeadlineMs?: number;
  /** How long a request waits for Redis's replies before answering 500. @default 8000 */
  replyDeadlineMs?: number;
  /** Bytes an event stream may hold unsent before its slow client is dropped. @default 32 MiB */
  streamBufferBytes?: number;
  /**
   * Which vendor names the service answers to (`Svc-Encoding` or `Upstash-Encoding`, …), so the
   * suites' dialect handling can be proven against a real server. @default 'svc'
   */
  dialect?: DialectName;
  /** Milliseconds added to every answer of area B (`serve --kv-latency`), a slowdown to detect. @default 0 */
  kvLatencyMs?: number;
  /**
   * Where a fault switch that keeps a record appends it (`publish-write-behind`'s ids,
   * `exec-write-behind`'s increments), for the soak's proofs to hold the soak to.
   */
  faultRecord?: string;
  /**
   * Tokens to start with instead of random ones (`serve` reads them from its environment): a reference
   * the soak kills and starts again answers to the same credentials, as a real service does across a
   * restart. The messaging account needs none: it lives in Redis. @default random
   */
  tokens?: StartTokens;
}

/** The credentials a reference starts with when they are given. */
export interface StartTokens {
  readonly kv?: { readonly token: string; readonly readOnlyToken: string };
  readonly admin?: string;
}

export const defaultMaxRequestBytes = 10 * 1024 * 1024;

export interface MessagingOptions {
  /** The regions served, each on its own base URL. @default ['eu-central-1'] */
  readonly regions?: readonly string[];
  /** Milliseconds added to every answer of a region's server (`--region-latency us-east-1=80ms`). */
  readonly regionLatencyMs?: Readonly<Record<string, number>>;
  /** How long failed attempts wait before their retries. @default the real service's exponential backoff */
  readonly retryBackoff?: RetryBackoff;
}
