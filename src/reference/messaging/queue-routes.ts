/**
 * Queues (spec "States and transitions > Queue", and the real service's upsert, get, delete, resume).
 * A new queue, by upsert here or by a first enqueue, is counted against the plan's max_queues (spec
 * "Limits") in the same atomic step that creates it: past it, a 400 naming the limit.
 */
import type { FastifyInstance } from 'fastify';
import { queueLimitText } from './message-store.ts';
import { MessagingError } from './messaging-error.ts';
import type { RouteContext } from './route-context.ts';
import { jsonBody, queueNamePattern } from './route-input.ts';

export function queueRoutes(app: FastifyInstance, context: RouteContext): void {
  const { options, v } = context;
  const { store, dispatcher, fault, silence, account } = options;
  // The real service's queue operations are not in the spec: the silence answers them otherwise.
  const own = silence('queue-operations-own-statuses');
  // Queues

  app.post(`${v}/queues`, async (request, reply) => {
    const body = jsonBody(request.body);
    const name = body.queueName;
    if (typeof name !== 'string' || !queueNamePattern.test(name)) {
      throw new MessagingError(400, 'queueName must be 1 to 100 letters, digits, -, . or _');
    }
    const parallelism = body.parallelism ?? 1;
    if (typeof parallelism !== 'number' || !Number.isInteger(parallelism) || parallelism < 1) {
      throw new MessagingError(400, 'parallelism must be a positive integer');
    }
    if (body.paused !== undefined && typeof body.paused !== 'boolean')
      throw new MessagingError(400, 'paused must be a boolean');
    // The fault lifts the plan's max_queues; an existing queue is updated whatever the count.
    const maxQueues = fault('queue-limit-unchecked') ? -1 : (await account.record()).account.max_queues;
    if (!(await store.upsertQueue(name, parallelism, body.paused as boolean | undefined, maxQueues))) {
      throw new MessagingError(400, queueLimitText(name, maxQueues));
    }
    dispatcher.poke(true);
    return reply.code(own ? 201 : 200).send();
  });

  app.get(`${v}/queues`, async () => {
    const names = await store.queueNames();
    return (await Promise.all(names.map((name) => store.queue(name)))).filter((queue) => queue !== undefined);
  });

  app.get<{ Params: { name: string } }>(`${v}/queues/:name`, async (request) => {
    const queue = await store.queue(request.params.name);
    if (queue === undefined) throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    return queue;
  });

  app.delete<{ Params: { name: string } }>(`${v}/queues/:name`, async (request, reply) => {
    if (!(await store.deleteQueue(request.params.name))) {
      throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    }
    return reply.code(200).send();
  });

  app.post<{ Params: { name: string } }>(`${v}/queues/:name/pause`, async (request, reply) => {
    const queue = await store.queue(request.params.name);
    if (queue === undefined) throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    await store.setPaused(queue.name, !(queue.paused && fault('pause-twice-resumes')));
    dispatcher.poke(true);
    return reply.code(fault('pause-status-204') ? 204 : 200).send();
  });

  app.post<{ Params: { name: string } }>(`${v}/queues/:name/resume`, async (request, reply) => {
    if (!(await store.setPaused(request.params.name, false))) {
      throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    }
    dispatcher.poke(true);
    return reply.code(own ? 204 : 200).send();
  });
}
