/** Messages and dead letters, as the real service has them (the suites' adapter reads them). */
import type { FastifyInstance } from 'fastify';
import { MessagingError } from './messaging-error.ts';
import type { RouteContext } from './route-context.ts';

export function recordRoutes(app: FastifyInstance, context: RouteContext): void {
  const { options, v } = context;
  const { store } = options;
  // Messages and dead letters (the real service's; the suites' adapter reads them)

  app.get<{ Params: { id: string } }>(`${v}/messages/:id`, async (request) => {
    const message = await store.message(request.params.id);
    if (message === undefined) throw new MessagingError(404, `message ${JSON.stringify(request.params.id)} not found`);
    return {
      messageId: message.id,
      url: message.url,
      method: message.method,
      header: message.headers,
      body: message.body,
      createdAt: message.createdAt,
      notBefore: message.notBefore,
      maxRetries: message.maxRetries,
      retried: message.retried,
      ...(message.queue !== undefined && { queueName: message.queue }),
      ...(message.state !== undefined && { state: message.state }),
      ...(message.dlqId !== undefined && { dlqId: message.dlqId }),
    };
  });

  app.get(`${v}/dlq`, async () => ({ messages: await store.deadLetters() }));
  app.get<{ Params: { dlqId: string } }>(`${v}/dlq/:dlqId`, async (request) => {
    const entry = await store.deadLetter(request.params.dlqId);
    if (entry === undefined)
      throw new MessagingError(404, `dead letter ${JSON.stringify(request.params.dlqId)} not found`);
    return entry;
  });
  app.delete<{ Params: { dlqId: string } }>(`${v}/dlq/:dlqId`, async (request, reply) => {
    if (!(await store.deleteDeadLetter(request.params.dlqId))) {
      throw new MessagingError(404, `dead letter ${JSON.stringify(request.params.dlqId)} not found`);
    }
    return reply.code(200).send();
  });
}
