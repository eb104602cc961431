/**
 * The messaging account as area C answers it on the dialect's account path: the shared record's
 * account (every field of the spec, secrets included, as the real service answers them), its
 * reserved plan in the dialect's names, and the fault switches that break one rule of it each.
 */

import { type Dialect, dialectNames, getDialect } from '../../target/dialects.ts';
import type { MessagingAccount } from '../account/messaging-account.ts';
import type { WireObject } from './index-answer.ts';
import type { ManagementFaultCheck } from './management-fault-check.ts';

/**
 * The reserved plan in this dialect's names. The record may hold another dialect's name (a reference
 * restarted on the same Redis with the other dialect), so the position in the enum is what counts.
 */
export function reservedTypeIn(dialect: Dialect, stored: string): string {
  for (const name of dialectNames) {
    const at = getDialect(name).reservedTypes.indexOf(stored);
    if (at >= 0) return dialect.reservedTypes[at] ?? stored;
  }
  return stored;
}

export function renderAccount(account: MessagingAccount, dialect: Dialect, fault: ManagementFaultCheck): WireObject {
  const wire: WireObject = { ...account, reserved_type: reservedTypeIn(dialect, account.reserved_type) };
  if (fault('account-lacks-limit')) delete wire.max_queues;
  if (fault('account-field-wrong-type')) wire.max_message_size = String(account.max_message_size);
  if (fault('account-state-unknown') && account.state === 'active') wire.state = 'enabled';
  if (fault('account-type-unknown') && account.type === 'paid') wire.type = 'pay_as_you_go';
  if (fault('reserved-type-null') && wire.reserved_type === '') wire.reserved_type = null;
  return wire;
}
