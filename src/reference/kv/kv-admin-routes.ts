/**
 * Area B's operations on the admin endpoint (admin/admin-plugin.ts checks the token):
 *
 *   POST /reset-password      {token?, readOnlyToken?} → {token, readOnlyToken}: new REST tokens (random,
 *                             or the ones given, so a suite can restore the originals); the old two stop working
 *   POST /acl-users           {username, password, rules?} → {username, rules}; ACL SETUSER … reset on
 *                             >password rules (default rules: every key, channel and command)
 *   GET  /limits              → {maxRequestBytes, dailyRequestLimit, dailyRequestsUsed}
 *   PUT  /limits (or POST)    {dailyRequestLimit?: count | null, maxRequestBytes?: count} → the limits
 *   POST /limits/reset-daily  → the limits, with today's count back at 0
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AdminInputError, isCount, objectBody, requiredString, stringList } from '../admin/admin-input.ts';
import type { KvLimits } from './kv-limits.ts';
import type { KvTokens } from './kv-tokens.ts';
import type { RedisConnections } from './redis-connections.ts';

export interface KvAdminParts {
  readonly tokens: KvTokens;
  readonly limits: KvLimits;
  readonly connections: RedisConnections;
}

/** Rules given to a new ACL user when the request names none: every key, channel and command. */
export const defaultAclRules: readonly string[] = ['~*', '&*', '+@all'];

export function kvAdminRoutes(parts: KvAdminParts): (app: FastifyInstance) => Promise<void> {
  const { tokens, limits, connections } = parts;
  return async (app) => {
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
  };
}
