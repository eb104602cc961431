/**
 * The reference service: a faithful implementation of the spec on a real Redis, with fault switches.
 * Area B (key-value REST) and the admin endpoint run as fastify servers on their own ports.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { harnessError, isHarnessError, oneLine } from '../shared/errors.ts';
import { type DialectName, getDialect } from '../target/dialects.ts';
import type { Target } from '../target/target.ts';
import { adminPlugin } from './admin/admin-plugin.ts';
import { FaultSet } from './fault-registry.ts';
import { allFaults } from './faults.ts';
import { startKvArea } from './kv/kv-area.ts';
import { kvFaultCheck } from './kv/kv-fault-check.ts';
import { kvPlugin } from './kv/kv-plugin.ts';
import { acquireRedis } from './redis/acquire-redis.ts';

export interface ReferenceOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (a free port) */
  kvPort?: number;
  /** @default 0 (a free port) */
  adminPort?: number;
  /** Passed to acquireRedis (else REDIS_URL, redis-server on PATH, a container). */
  redisUrl?: string;
  /** Fault switches to turn on (names from `allFaults`). */
  faults?: readonly string[];
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
}

export interface RunningReference {
  readonly target: Target;
  readonly redis: { readonly url: string; readonly origin: 'url' | 'redis-server' | 'container' };
  /** Closes the servers, SSE streams, Redis connections, and the Redis it started. */
  stop(): Promise<void>;
}

export const defaultMaxRequestBytes = 10 * 1024 * 1024;

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const faults = new FaultSet(options.faults ?? [], allFaults);
  const fault = kvFaultCheck(faults);
  const host = options.host ?? '127.0.0.1';
  const maxRequestBytes = options.maxRequestBytes ?? defaultMaxRequestBytes;
  const dialect = options.dialect ?? 'svc';
  const redis = await acquireRedis(options.redisUrl === undefined ? {} : { redisUrl: options.redisUrl });
  const cleanup: (() => Promise<void>)[] = [() => redis.stop()];
  const stop = async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  };
  try {
    const kv = await startKvArea({
      redisUrl: redis.url,
      fault,
      maxRequestBytes,
      dailyRequestLimit: options.dailyRequestLimit ?? null,
      writeDeadlineMs: options.writeDeadlineMs,
      replyDeadlineMs: options.replyDeadlineMs,
      streamBufferBytes: options.streamBufferBytes,
      dialect: getDialect(dialect),
    });
    cleanup.push(() => kv.close());
    const { tokens, limits, connections } = kv;

    const kvApp = server(maxRequestBytes, true);
    cleanup.push(() => kvApp.close());
    await kvApp.register(kvPlugin, kv.plugin);
    const kvUrl = urlOf(host, await listen(kvApp, host, options.kvPort ?? 0));

    const adminToken = randomBytes(32).toString('base64url');
    const adminApp = server(1024 * 1024);
    cleanup.push(() => adminApp.close());
    await adminApp.register(adminPlugin, { adminToken, tokens, limits, connections });
    const adminUrl = urlOf(host, await listen(adminApp, host, options.adminPort ?? 0));

    const target: Target = {
      name: 'reference',
      dialect,
      get kv() {
        const current = tokens.database;
        return { url: kvUrl, token: current.token, readOnlyToken: current.readOnlyToken };
      },
      admin: { url: adminUrl, token: adminToken },
    };
    return { target, redis: { url: redis.url, origin: redis.origin }, stop };
  } catch (error) {
    await stop();
    if (isHarnessError(error)) throw error;
    throw harnessError('SVC_REFERENCE_START', `the reference service could not start: ${oneLine(error)}`, error);
  }
}

function server(maxRequestBytes: number, rawPaths = false): FastifyInstance {
  return Fastify({
    // Area B reads the raw path itself (any byte may be percent-escaped), so the router sees one path.
    ...(rawPaths && { rewriteUrl: () => '/' }),
    logger: false,
    // Above the limit, so an oversize command gets the spec's error from the service, not fastify's.
    bodyLimit: Math.max(2 * maxRequestBytes + 1024 * 1024, 16 * 1024 * 1024),
    forceCloseConnections: true,
    // Receiving a request (headers and body) has a deadline; answers and event streams do not.
    requestTimeout: 30_000,
    exposeHeadRoutes: false,
    routerOptions: { maxParamLength: 1024 * 1024 },
    // A URL that cannot be decoded is a syntax error: 400 with an {error} body (spec "Errors").
    frameworkErrors: (_error, _request, reply) => {
      (reply as FastifyReply)
        .code(400)
        .header('content-type', 'application/json')
        .send({ error: 'ERR invalid percent-escape in the request path' });
    },
  });
}

async function listen(app: FastifyInstance, host: string, port: number): Promise<number> {
  await app.listen({ host, port });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the server has no TCP address');
  return address.port;
}

function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}
