/**
 * Messages and dead letters, as the real service has them (the suites' adapter reads them, and the
 * official SDK's `messages.get` and `dlq.listMessages`): records in the SDK's shape
 * (message-record.ts), the dead letter queue filtered and paged by cursor (dlq-query.ts).
 */
import type { FastifyInstance } from 'fastify';
import { byTime, encodeCursor, matches, needsMessages, parseDlqQuery } from './dlq-query.ts';
import { deadLetterRecord, messageRecord } from './message-record.ts';
import type { DeadLetter } from './message-store.ts';
import { MessagingError } from './messaging-error.ts';
import type { RouteContext } from './route-context.ts';
import type { StoredMessage } from './stored-message.ts';

export function recordRoutes(app: FastifyInstance, context: RouteContext): void {
  const { options, v } = context;
  const { store } = options;

  /** The messages of these dead letters, by message id (those no longer kept are left out). */
  async function messagesOf(entries: readonly DeadLetter[]): Promise<Map<string, StoredMessage>> {
    const found = await Promise.all(entries.map((entry) => store.message(entry.messageId)));
    return new Map(found.filter((message) => message !== undefined).map((message) => [message.id, message]));
  }

  app.get<{ Params: { id: string } }>(`${v}/messages/:id`, async (request) => {
    const message = await store.message(request.params.id);
    if (message === undefined) throw new MessagingError(404, `message ${JSON.stringify(request.params.id)} not found`);
    return messageRecord(message);
  });

  app.get(`${v}/dlq`, async (request) => {
    const query = parseDlqQuery(new URLSearchParams(request.url.split('?')[1] ?? ''));
    const all = (await store.deadLetters()).sort(byTime);
    // The message-side filters read every candidate's message; the others only the page's.
    const known = needsMessages(query) ? await messagesOf(all) : new Map<string, StoredMessage>();
    const matching = all.filter((entry) => matches(query, entry, known.get(entry.messageId)));
    const page = matching.slice(0, query.count);
    const messages = needsMessages(query) ? known : await messagesOf(page);
    const last = page.at(-1);
    return {
      messages: page.map((entry) => deadLetterRecord(entry, messages.get(entry.messageId))),
      ...(matching.length > page.length && last !== undefined && { cursor: encodeCursor(last) }),
    };
  });

  app.get<{ Params: { dlqId: string } }>(`${v}/dlq/:dlqId`, async (request) => {
    const entry = await store.deadLetter(request.params.dlqId);
    if (entry === undefined)
      throw new MessagingError(404, `dead letter ${JSON.stringify(request.params.dlqId)} not found`);
    return deadLetterRecord(entry, await store.message(entry.messageId));
  });

  app.delete<{ Params: { dlqId: string } }>(`${v}/dlq/:dlqId`, async (request, reply) => {
    if (!(await store.deleteDeadLetter(request.params.dlqId))) {
      throw new MessagingError(404, `dead letter ${JSON.stringify(request.params.dlqId)} not found`);
    }
    return reply.code(200).send();
  });
}
