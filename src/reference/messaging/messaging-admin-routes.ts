/**
 * Area A's operations on the admin endpoint (admin/admin-plugin.ts checks the token):
 *
 *   GET /messaging/stats  → {delivered, failed, retries, due, inflight, deadLetters}: the delivery
 *                           loop's counts in Redis, for accounting tests and benchmarks
 *   GET /messaging/keys   → {current, next}: the signing keys, for receivers that verify signatures
 *   POST /messaging/fail-notify {eventId} → {armed: eventId}: the next notify of that event id fails
 *                           inside the service (a 500, spec "Errors"), which nothing outside can provoke
 */
import type { FastifyInstance } from 'fastify';
import { AdminInputError, objectBody } from '../admin/admin-input.ts';
import type { MessageStore } from './message-store.ts';
import type { NotifyFailures } from './notify-failures.ts';
import type { SigningKeyStore } from './signing-keys.ts';

export interface MessagingAdminParts {
  readonly store: MessageStore;
  readonly keys: SigningKeyStore;
  readonly notifyFailures: NotifyFailures;
}

export function messagingAdminRoutes(parts: MessagingAdminParts): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    app.get('/messaging/stats', async () => parts.store.stats());
    app.get('/messaging/keys', async () => parts.keys.keys);
    app.post('/messaging/fail-notify', async (request) => {
      const { eventId } = objectBody(request.body);
      if (typeof eventId !== 'string' || eventId === '')
        throw new AdminInputError('eventId must be a non-empty string');
      parts.notifyFailures.arm(eventId);
      return { armed: eventId };
    });
  };
}
