/**
 * Steps the messaging cases share: a unique id per case, publishing to the sink, and changing the
 * account's limits for the length of a case through the admin hook (restored pass or fail).
 */
import { randomBytes } from 'node:crypto';
import { Blocked, type CaseContext, CheckFailure, type HttpResponse, jsonBody } from '../../src/suite-kit/suite-api.ts';
import { adminClient } from './admin-client.ts';
import { createManagementClient } from './management-client.ts';
import { describe, type SourceHeaders } from './messaging-checks.ts';
import type { MessagingClient } from './messaging-client.ts';

/** A short id unique to this case and run, safe in a path segment and an event id. */
export function uniqueId(ctx: CaseContext, label: string): string {
  const prefix = ctx.keyPrefix
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(-40);
  return `${prefix}-${label}-${randomBytes(4).toString('hex')}`;
}

/**
 * Publishes `body` to `destination`: a publish the target refuses blocks the case (publishing is
 * the means, the case's own rule is about what follows). Answers the response.
 */
export async function publishTo(
  client: MessagingClient,
  destination: string,
  headers: Readonly<Record<string, string>> = {},
  body: string | Uint8Array = 'svc-harness payload',
): Promise<HttpResponse> {
  const res = await client.call(`/v2/publish/${destination}`, { headers: publishHeaders(headers), body });
  if (res.status < 200 || res.status > 299) {
    throw new Blocked('A.publish.delivers', `the publish it needs was refused: ${describe(res)}`);
  }
  return res;
}

/** The case's headers of a publish as `publishTo` sends them (text/plain unless the case says). */
function publishHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return { 'content-type': 'text/plain', ...headers };
}

/**
 * Every header a `publishTo` with these headers sends, as a callback's sourceHeader ("Headers of the
 * triggering message") may show it, in both readings (`SourceHeaders`): all of them but the credentials
 * (authorization, cookie), which the spec does not say are kept and the reference leaves out
 * (where-the-spec-is-silent); or those the message carries to its destination (the content type, each
 * `<prefix>Forward-<Name>` as `<Name>`), without the vendor-prefixed instructions.
 */
export function sentHeaders(client: MessagingClient, headers: Readonly<Record<string, string>> = {}): SourceHeaders {
  const all = Object.fromEntries(
    Object.entries(client.headersOf({ headers: publishHeaders(headers) })).filter(
      ([name]) => !['authorization', 'cookie'].includes(name.toLowerCase()),
    ),
  );
  const prefix = client.h('').toLowerCase();
  const forward = `${prefix}forward-`;
  const delivered: Record<string, string> = {};
  const instructions: string[] = [];
  for (const [name, value] of Object.entries(all)) {
    const lower = name.toLowerCase();
    if (lower === 'content-type') delivered[name] = value;
    else if (lower.startsWith(forward) && lower.length > forward.length) delivered[name.slice(forward.length)] = value;
    if (lower.startsWith(prefix)) instructions.push(name);
  }
  return { all, delivered, instructions };
}

/** The message id of a publish answer, when it gives one (the shape is not shown by the spec). */
export function messageIdOf(res: HttpResponse): string | undefined {
  try {
    const body = JSON.parse(res.body.toString('utf8')) as { messageId?: unknown };
    return typeof body.messageId === 'string' ? body.messageId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The plan's requests per second, read from the management area's account when the target has one
 * (Basic authentication); undefined otherwise.
 */
export async function planRate(ctx: CaseContext): Promise<number | undefined> {
  if (ctx.target.management === undefined) return undefined;
  const res = await createManagementClient(ctx).account();
  if (res.status !== 200) return undefined;
  const body = jsonBody(res) as { max_requests_per_second?: unknown } | undefined;
  const rate = body?.max_requests_per_second;
  return typeof rate === 'number' && rate > 0 ? rate : undefined;
}

/**
 * How long a target may take to apply a changed account limit (the reference reads its account at
 * most a quarter of a second old).
 */
const limitsApplyMs = 400;

/**
 * Runs `body` with account limits changed through the admin hook (skipped without one), then
 * restores the previous values, pass or fail; a cleanup restores them too if the case is cut off.
 */
export async function withAccountLimits<T>(
  ctx: CaseContext,
  patch: Readonly<Record<string, number>>,
  body: () => Promise<T>,
): Promise<T> {
  const admin = adminClient(ctx);
  const before = await admin.account();
  const previous: Record<string, number> = {};
  for (const field of Object.keys(patch)) {
    if (typeof before[field] !== 'number')
      throw new CheckFailure('A.limits.plan', `no ${field} in the account`, `${field}, a number`);
    previous[field] = before[field] as number;
  }
  let restored = false;
  const restore = async () => {
    if (restored) return;
    restored = true;
    await admin.setAccount(previous);
  };
  ctx.onCleanup(restore);
  await admin.setAccount(patch);
  await new Promise((resolve) => setTimeout(resolve, limitsApplyMs));
  try {
    return await body();
  } finally {
    await restore();
    await new Promise((resolve) => setTimeout(resolve, limitsApplyMs));
  }
}
