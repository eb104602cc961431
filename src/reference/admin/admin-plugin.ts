/**
 * The reference's admin endpoint, for what the spec shows no API for. A separate server on its own
 * port, behind its own Bearer token (`target.admin`); JSON in and out, errors as `{error}`:
 *
 *   POST /reset-password      {token?, readOnlyToken?} → {token, readOnlyToken}: new REST tokens (random,
 *                             or the ones given, so a suite can restore the originals); the old two stop working
 *   POST /acl-users           {username, password, rules?} → {username, rules}; ACL SETUSER … reset on
 *                             >password rules (default rules: every key, channel and command)
 *   GET  /limits              → {maxRequestBytes, dailyRequestLimit, dailyRequestsUsed}
 *   PUT  /limits (or POST)    {dailyRequestLimit?: count | null, maxRequestBytes?: count} → the limits
 *   POST /limits/reset-daily  → the limits, with today's count back at 0
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KvLimits } from '../kv/kv-limits.ts';
import type { KvTokens } from '../kv/kv-tokens.ts';
import type { RedisConnections } from '../kv/redis-connections.ts';

export interface AdminPluginOptions {
  readonly adminToken: string;
  readonly tokens: KvTokens;
  readonly limits: KvLimits;
  readonly connections: RedisConnections;
}

/** Rules given to a new ACL user when the request names none: every key, channel and command. */
export const defaultAclRules: readonly string[] = ['~*', '&*', '+@all'];

class AdminInputError extends Error {}

export async function adminPlugin(app: FastifyInstance, options: AdminPluginOptions): Promise<void> {
  const { tokens, limits, connections } = options;
  const expected = Buffer.from(`Bearer ${options.adminToken}`);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply.code(401).send({ error: 'WRONGPASS invalid or missing admin token' });
    }
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'ERR no such admin operation' }));
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error instanceof AdminInputError || (error.statusCode ?? 500) < 500 ? 400 : 500;
    return reply.code(status).send({ error: `ERR ${error.message}` });
  });

  // Resetting the database password revokes the Standard and Read Only tokens and issues new ones.
  app.post('/reset-password', async (request) => {
    const body = request.body === undefined ? {} : objectBody(request.body);
    const token = body.token === undefined ? undefined : requiredString(body.token, 'token');
    const readOnlyToken =
      body.readOnlyToken === undefined ? undefined : requiredString(body.readOnlyToken, 'readOnlyToken');
    if (token !== undefined && token === readOnlyToken)
      throw new AdminInputError('token and readOnlyToken must differ');
    return tokens.resetPassword({ ...(token && { token }), ...(readOnlyToken && { readOnlyToken }) });
  });

  // Creates (or replaces) an ACL user in the backing Redis; `ACL RESTTOKEN` then gives its REST token.
  app.post('/acl-users', async (request) => {
    const body = objectBody(request.body);
    const username = requiredString(body.username, 'username');
    const password = requiredString(body.password, 'password');
    const rules = body.rules === undefined ? defaultAclRules : stringList(body.rules, 'rules');
    const { client } = await connections.user(undefined);
    try {
      await client.sendCommand(['ACL', 'SETUSER', username, 'reset', 'on', `>${password}`, ...rules]);
    } catch (error) {
      throw new AdminInputError(error instanceof Error ? error.message : String(error));
    }
    return { username, rules };
  });

  app.get('/limits', async () => limits.view());
  const setLimits = async (request: FastifyRequest) => {
    const body = objectBody(request.body);
    if (body.dailyRequestLimit !== undefined) {
      const value = body.dailyRequestLimit;
      if (value !== null && !isCount(value)) throw new AdminInputError('dailyRequestLimit must be a count or null');
      limits.dailyRequestLimit = value;
    }
    if (body.maxRequestBytes !== undefined) {
      if (!isCount(body.maxRequestBytes) || body.maxRequestBytes < 1) {
        throw new AdminInputError('maxRequestBytes must be a positive count');
      }
      limits.maxRequestBytes = body.maxRequestBytes;
    }
    return limits.view();
  };
  app.put('/limits', setLimits);
  app.post('/limits', setLimits);
  app.post('/limits/reset-daily', async () => {
    limits.resetDailyCount();
    return limits.view();
  });
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AdminInputError('the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function requiredString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '' || /\s/.test(value)) {
    throw new AdminInputError(`${name} must be a non-empty string without spaces`);
  }
  return value;
}

function stringList(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) {
    throw new AdminInputError(`${name} must be an array of ACL rule strings`);
  }
  return value;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
