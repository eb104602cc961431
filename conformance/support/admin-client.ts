/**
 * The target's admin hook (the reference's own endpoint for what the spec shows no API for): read and
 * set the limits, create an ACL user, reset the database password. Cases that need it declare
 * `needs: ['admin']` and are skipped with a reason on a target without one.
 */
import {
  type CaseContext,
  dispatcherFor,
  type HttpMethod,
  harnessError,
  httpRequest,
} from '../../src/suite-kit/suite-api.ts';

export interface KvLimitsView {
  readonly maxRequestBytes: number;
  /** Commands per day; null when off. */
  readonly dailyRequestLimit: number | null;
  readonly dailyRequestsUsed: number;
}

export interface AdminClient {
  limits(): Promise<KvLimitsView>;
  setLimits(change: {
    readonly dailyRequestLimit?: number | null;
    readonly maxRequestBytes?: number;
  }): Promise<KvLimitsView>;
  /** Creates or replaces an ACL user with these ACL rules (e.g. `~prefix*`, `+get`). */
  createAclUser(username: string, password: string, rules: readonly string[]): Promise<void>;
  /**
   * Resets the database password; returns the new tokens (secrets: never log them). With `next`, the
   * hook issues those tokens instead of random ones: a case restores a target's original tokens so.
   */
  /** The messaging account's limits and plan, without its secrets (the reference's area C hook). */
  account(): Promise<Record<string, unknown>>;
  /** Changes account limits (`max_requests_per_second`, `max_message_size`, …); answers the account. */
  setAccount(patch: Readonly<Record<string, number | string>>): Promise<Record<string, unknown>>;
  /**
   * Arms the next notify of `eventId` to fail inside the service (area A's 500, which nothing outside
   * can provoke); false when the hook has no such operation (404), so the case is skipped.
   */
  failNextNotify(eventId: string): Promise<boolean>;
  resetPassword(next?: {
    readonly token: string;
    readonly readOnlyToken?: string;
  }): Promise<{ readonly token: string; readonly readOnlyToken: string }>;
}

export function adminClient(ctx: CaseContext): AdminClient {
  const admin = ctx.target.admin;
  if (!admin) ctx.skip('the target has no admin hook (admin), so this cannot be arranged.');
  const base = admin.url.replace(/\/+$/, '');
  const send = (method: HttpMethod, path: string, body?: unknown) =>
    httpRequest({
      url: `${base}${path}`,
      method,
      dispatcher: dispatcherFor(ctx.target.tls),
      headers: {
        authorization: `Bearer ${admin.token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const call = async (method: HttpMethod, path: string, body?: unknown): Promise<unknown> => {
    const res = await send(method, path, body);
    const text = res.body.toString('utf8');
    // The admin hook arranges a case, it is not under test: a failure here is an error, not a rule's verdict.
    if (res.status !== 200) {
      throw harnessError('SVC_TARGET_GARBAGE', `the admin hook answered ${method} ${path} with status ${res.status}`);
    }
    return text === '' ? undefined : JSON.parse(text);
  };
  return {
    limits: async () => (await call('GET', '/limits')) as KvLimitsView,
    setLimits: async (change) => (await call('PUT', '/limits', change)) as KvLimitsView,
    createAclUser: async (username, password, rules) => {
      await call('POST', '/acl-users', { username, password, rules });
    },
    account: async () => (await call('GET', '/account')) as Record<string, unknown>,
    setAccount: async (patch) => (await call('PUT', '/account', patch)) as Record<string, unknown>,
    failNextNotify: async (eventId) => {
      const res = await send('POST', '/messaging/fail-notify', { eventId });
      if (res.status === 404) return false;
      if (res.status !== 200) {
        throw harnessError(
          'SVC_TARGET_GARBAGE',
          `the admin hook answered POST /messaging/fail-notify with status ${res.status}`,
        );
      }
      return true;
    },
    resetPassword: async (next) =>
      (await call('POST', '/reset-password', next)) as { token: string; readOnlyToken: string },
  };
}

/**
 * Sets the daily limit (computed from today's count) for the duration of `body`, then restores the
 * previous limit, pass or fail; a cleanup restores it too if the case is cut off by its timeout.
 */
export async function withDailyLimit<T>(
  ctx: CaseContext,
  admin: AdminClient,
  limitFromUsed: (used: number) => number,
  body: () => Promise<T>,
): Promise<T> {
  const before = await admin.limits();
  let restored = false;
  const restore = async () => {
    if (restored) return;
    restored = true;
    await admin.setLimits({ dailyRequestLimit: before.dailyRequestLimit });
  };
  ctx.onCleanup(restore);
  await admin.setLimits({ dailyRequestLimit: limitFromUsed(before.dailyRequestsUsed) });
  try {
    return await body();
  } finally {
    await restore();
  }
}
