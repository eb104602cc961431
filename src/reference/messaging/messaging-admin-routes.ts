/**
 * Area A's operations on the admin endpoint (admin/admin-plugin.ts checks the token):
 *
 *   GET /messaging/stats  → {delivered, failed, retries, due, inflight, deadLetters}: the delivery
 *                           loop's counts in Redis, for accounting tests and benchmarks
 *   GET /messaging/keys   → {current, next}: the signing keys, for receivers that verify signatures
 */
import type { FastifyInstance } from 'fastify';
import type { MessageStore } from './message-store.ts';
import type { SigningKeyStore } from './signing-keys.ts';

export interface MessagingAdminParts {
  readonly store: MessageStore;
  readonly keys: SigningKeyStore;
}

export function messagingAdminRoutes(parts: MessagingAdminParts): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    app.get('/messaging/stats', async () => parts.store.stats());
    app.get('/messaging/keys', async () => parts.keys.keys);
  };
}
