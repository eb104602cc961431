/**
 * The reference service: a faithful implementation of the spec on a real Redis, with fault switches.
 * Each area of `referenceAreas` runs as a fastify server on its own port, and the admin endpoint on
 * another; fault names are checked here, at the reference's door, before anything starts.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { harnessError, isHarnessError, oneLine } from '../shared/errors.ts';
import { afterBigAnswer, serving } from '../shared/memory-relief.ts';
import { getDialect } from '../target/dialects.ts';
import type { Target, TargetArea } from '../target/target.ts';
import { adminPlugin } from './admin/admin-plugin.ts';
import { FaultSet } from './fault-registry.ts';
import { acquireRedis } from './redis/acquire-redis.ts';
import type { AreaRoutes, StartedArea } from './reference-area.ts';
import { allFaults, allSilences, referenceAreas } from './reference-areas.ts';
import type { ReferenceOptions } from './reference-options.ts';

/** One area as it runs: where it listens, and what `serve` prints of it. */
export interface RunningArea {
  readonly name: TargetArea;
  readonly title: string;
  readonly url: string;
  describe(): readonly (readonly [string, string])[];
}

export interface RunningReference {
  readonly target: Target;
  readonly areas: readonly RunningArea[];
  readonly redis: { readonly url: string; readonly origin: 'url' | 'redis-server' | 'container' };
  /** Closes the servers, SSE streams, Redis connections, and the Redis it started. */
  stop(): Promise<void>;
}

/** The admin endpoint takes small JSON bodies only. */
const adminBodyLimit = 16 * 1024 * 1024;

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const faults = new FaultSet(options.faults ?? [], allFaults);
  const silences = new FaultSet(options.silences ?? [], allSilences, 'silence');
  const host = options.host ?? '127.0.0.1';
  const dialect = options.dialect ?? 'svc';
  const redis = await acquireRedis(options.redisUrl === undefined ? {} : { redisUrl: options.redisUrl });
  const cleanup: (() => Promise<void>)[] = [() => redis.stop()];
  const stop = async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  };
  try {
    const settings = { redisUrl: redis.url, faults, silences, dialect: getDialect(dialect), options };
    const running: { area: RunningArea; started: StartedArea; extraUrls: Record<string, string> }[] = [];
    const served = referenceAreas.filter((area) => options.areas === undefined || options.areas.includes(area.name));
    for (const area of served) {
      const started = await area.start(settings);
      cleanup.push(() => started.close());
      // One server for the area's routes, and one more for each of its extra servers (area A's regions).
      const serve = async (routes: AreaRoutes, port: number) => {
        const app = server(started.server.bodyLimit, started.server.rawPaths);
        cleanup.push(() => app.close());
        await app.register(routes);
        return urlOf(host, await listen(app, host, port));
      };
      const url = await serve(started.routes, options.ports?.[area.name] ?? 0);
      const extraUrls: Record<string, string> = {};
      for (const extra of started.extraServers ?? []) extraUrls[extra.name] = await serve(extra.routes, 0);
      running.push({
        area: { name: area.name, title: area.title, url, describe: started.describe },
        started,
        extraUrls,
      });
    }

    const adminToken = options.tokens?.admin ?? randomBytes(32).toString('base64url');
    const adminApp = server(adminBodyLimit);
    cleanup.push(() => adminApp.close());
    const routes = running.flatMap(({ started }) => started.adminRoutes ?? []);
    await adminApp.register(adminPlugin, { adminToken, routes });
    const adminUrl = urlOf(host, await listen(adminApp, host, options.adminPort ?? 0));

    const target = { name: 'reference', dialect, admin: { url: adminUrl, token: adminToken } } as Target;
    for (const { area, started, extraUrls } of running) {
      // A getter: an area's credentials change while it runs (a password reset issues new tokens).
      Object.defineProperty(target, area.name, {
        enumerable: true,
        get: () => started.targetEntry(area.url, extraUrls),
      });
    }
    return {
      target,
      areas: running.map(({ area }) => area),
      redis: { url: redis.url, origin: redis.origin },
      stop,
    };
  } catch (error) {
    await stop();
    if (isHarnessError(error)) throw error;
    throw harnessError('SVC_REFERENCE_START', `the reference service could not start: ${oneLine(error)}`, error);
  }
}

function server(bodyLimit: number, rawPaths = false): FastifyInstance {
  const app = Fastify({
    // An area that reads the raw path itself (area B: any byte may be percent-escaped) sees one route.
    ...(rawPaths && { rewriteUrl: () => '/' }),
    logger: false,
    bodyLimit,
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
  // A request or answer of megabytes (a 10 MB value, read back as 13 MB of base64) leaves its copies to
  // the collector: in the conformance run's own process they piled up to 700 MB (issue 25).
  app.addHook('onResponse', (request, reply, done) => {
    afterBigAnswer(Math.max(bytesOf(request.body), Number(reply.getHeader('content-length') ?? 0)), serving);
    done();
  });
  return app;
}

/** The size of a parsed body (areas parse to bytes or text), 0 for anything else. */
function bytesOf(body: unknown): number {
  return Buffer.isBuffer(body) || typeof body === 'string' ? body.length : 0;
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
