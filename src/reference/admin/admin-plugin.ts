/**
 * The reference's admin endpoint, for what the spec shows no API for: a server on its own port,
 * behind its own Bearer token (`target.admin`); JSON in and out, errors as `{error}`. The operations
 * themselves belong to the areas (each area's `adminRoutes`); this plugin gives them the token
 * check, the 404 and the error answers.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaRoutes } from '../reference-area.ts';
import { AdminInputError } from './admin-input.ts';

export interface AdminPluginOptions {
  readonly adminToken: string;
  /** Every area's admin routes, registered without a prefix. */
  readonly routes: readonly AreaRoutes[];
}

export async function adminPlugin(app: FastifyInstance, options: AdminPluginOptions): Promise<void> {
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
  for (const routes of options.routes) await app.register(routes);
}
