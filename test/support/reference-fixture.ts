/**
 * Test helpers for the reference service: one redis-server per test file, references started on it
 * (port 0, loopback), and a small HTTP caller for area B and the admin endpoint.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type HttpResponse, httpRequest } from '../../src/http/http-client.ts';
import { openSse, type SseStream } from '../../src/http/sse-client.ts';
import type { HttpMethod } from '../../src/protocol/http-method.ts';
import { acquireRedis } from '../../src/reference/redis/acquire-redis.ts';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import type { ReferenceOptions } from '../../src/reference/reference-options.ts';
import { type RunningReference, startReference } from '../../src/reference/reference-service.ts';

/** A redis-server of its own for one test file (never a REDIS_URL of the environment). */
export function startTestRedis(): Promise<RedisBacking> {
  return acquireRedis({ prefer: 'redis-server', env: { PATH: process.env.PATH ?? '' } });
}

export function startTestReference(redis: RedisBacking, options: ReferenceOptions = {}): Promise<RunningReference> {
  return startReference({ redisUrl: redis.url, ...options });
}

/** The Redis and reference of a test file, set up by `useTestReference`. */
export interface TestReference {
  readonly redis: RedisBacking;
  readonly ref: RunningReference;
}

/**
 * Registers the file's hooks: `beforeAll` starts a test Redis and a reference on it, `afterAll` stops
 * both (whatever did start). Read `env.ref` and `env.redis` inside tests, once the hooks have run.
 */
export function useTestReference(options: ReferenceOptions = {}): TestReference {
  let redis: RedisBacking | undefined;
  let ref: RunningReference | undefined;
  beforeAll(async () => {
    redis = await startTestRedis();
    ref = await startTestReference(redis, options);
  });
  afterAll(async () => {
    await ref?.stop();
    await redis?.stop();
  });
  const started = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`useTestReference: ${name} is read before beforeAll started it`);
    return value;
  };
  return {
    get redis() {
      return started(redis, 'redis');
    },
    get ref() {
      return started(ref, 'ref');
    },
  };
}

/** A key no other test uses. */
export function uniqueKey(label = 'k'): string {
  return `${label}:${randomUUID()}`;
}

export interface CallOptions {
  readonly method?: HttpMethod;
  /** A token for `Authorization: Bearer`; null sends none. @default the Standard token */
  readonly token?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | unknown[];
}

export interface CallResult extends HttpResponse {
  /** The body parsed as JSON, or undefined. */
  readonly json: unknown;
}

/** Calls area B of a running reference: `call(ref, '/set/k/v')`. */
export async function call(ref: RunningReference, path: string, options: CallOptions = {}): Promise<CallResult> {
  const kv = ref.target.kv!;
  const token = options.token === undefined ? kv.token : options.token;
  const body = Array.isArray(options.body) ? JSON.stringify(options.body) : options.body;
  const res = await httpRequest({
    url: `${kv.url}${path}`,
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { ...(token !== null && { authorization: `Bearer ${token}` }), ...options.headers },
    ...(body !== undefined && { body: body as string | Uint8Array }),
    timeoutMs: 10_000,
  });
  return { ...res, json: parseJson(res.body) };
}

/** Calls the admin endpoint with its token. */
export async function admin(
  ref: RunningReference,
  method: HttpMethod,
  path: string,
  body?: unknown,
  token: string | null = ref.target.admin!.token,
): Promise<CallResult> {
  const res = await httpRequest({
    url: `${ref.target.admin!.url}${path}`,
    method,
    headers: {
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { ...res, json: parseJson(res.body) };
}

/**
 * Changes the messaging account's limits through the admin hook, then waits out area A's cache of the
 * account (half a second), so the next request sees them.
 */
export async function setAccountLimits(ref: RunningReference, patch: Record<string, number>): Promise<void> {
  const res = await admin(ref, 'PUT', '/account', patch);
  if (res.status !== 200) throw new Error(`the admin hook refused the account change: ${res.status}`);
  await new Promise((resolve) => setTimeout(resolve, 600));
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Opens an area B event stream (/monitor, /subscribe/…) with a token (default: the Standard token). */
export function openStream(ref: RunningReference, path: string, token = ref.target.kv!.token): Promise<SseStream> {
  return openSse({ url: `${ref.target.kv!.url}${path}`, headers: { authorization: `Bearer ${token}` } });
}

/** The next event matching `test`, skipping others (the service's own connections show up in /monitor). */
export async function nextMatching(stream: SseStream, test: (data: string) => boolean): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const data = await stream.next(5_000);
    if (test(data)) return data;
  }
  throw new Error('no matching event in 200');
}
