/**
 * The messaging account's operations on the admin endpoint (admin/admin-plugin.ts checks the token),
 * for what the spec shows no API for: changing its plan and limits. Areas A and C both read the
 * account; the routes are registered once, by area C, or by area A when C is not served.
 *
 *   GET /account  → the account without its secrets (password, token)
 *   PUT /account  {<limit field>?: count, type?: free|paid, reserved_type?: string, state?: active|passive,
 *                 active?: boolean} → the patched account, without its secrets
 *
 * Area A reads the same record (account/messaging-account.ts), so a changed limit applies there too.
 */
import type { FastifyInstance } from 'fastify';
import { dialectNames, getDialect } from '../../target/dialects.ts';
import { AdminInputError, isCount, objectBody } from '../admin/admin-input.ts';
import {
  type AccountLimitField,
  type AccountStore,
  accountLimitFields,
  type MessagingAccount,
} from './messaging-account.ts';

/** Every reserved plan name of every dialect, and '' (no reserved plan). */
export function knownReservedTypes(): ReadonlySet<string> {
  return new Set(['', ...dialectNames.flatMap((name) => getDialect(name).reservedTypes)]);
}

type AccountPatch = Parameters<AccountStore['update']>[0];
type PublicAccount = Omit<MessagingAccount, 'password' | 'token'>;

function withoutSecrets(account: MessagingAccount): PublicAccount {
  const { password: _password, token: _token, ...rest } = account;
  return rest;
}

const isLimitField = (field: string): field is AccountLimitField =>
  (accountLimitFields as readonly string[]).includes(field);

function readPatch(body: unknown): AccountPatch {
  const fields = objectBody(body);
  const patch: { -readonly [F in keyof AccountPatch]: AccountPatch[F] } = {};
  for (const [field, value] of Object.entries(fields)) {
    if (isLimitField(field)) {
      if (!isCount(value)) throw new AdminInputError(`${field} must be a count`);
      patch[field] = value;
    } else if (field === 'type') {
      if (value !== 'free' && value !== 'paid') throw new AdminInputError('type must be free or paid');
      patch.type = value;
    } else if (field === 'reserved_type') {
      if (typeof value !== 'string' || !knownReservedTypes().has(value)) {
        throw new AdminInputError(
          `reserved_type must be one of ${[...knownReservedTypes()].map((t) => `"${t}"`).join(', ')}`,
        );
      }
      patch.reserved_type = value;
    } else if (field === 'state') {
      if (value !== 'active' && value !== 'passive') throw new AdminInputError('state must be active or passive');
      patch.state = value;
    } else if (field === 'active') {
      if (typeof value !== 'boolean') throw new AdminInputError('active must be a boolean');
      patch.active = value;
    } else {
      throw new AdminInputError(`${field} is not a field the admin endpoint can change`);
    }
  }
  return patch;
}

export function accountAdminRoutes(accounts: AccountStore): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    app.get('/account', async () => withoutSecrets((await accounts.record()).account));
    app.put('/account', async (request) => withoutSecrets(await accounts.update(readPatch(request.body))));
  };
}
