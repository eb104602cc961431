/**
 * A publish or enqueue request turned into a stored message: the destination from the raw path, the
 * common publish headers and the callback headers read in the target's dialect, each checked against
 * the account's limits. Every refusal is a MessagingError with the real service's status.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Dialect } from '../../target/dialects.ts';
import type { MessagingAccount } from '../account/messaging-account.ts';
import { parseServiceDurationMs } from './durations.ts';
import { MessagingError } from './messaging-error.ts';
import type { MessagingFaultCheck } from './messaging-faults.ts';
import type { MessagingSilenceCheck } from './messaging-silences.ts';
import type { CallbackConfig, StoredMessage } from './stored-message.ts';

export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface PublishInput {
  /** The destination as it follows `/v2/publish/` (or the queue segment) in the raw URL. */
  readonly destination: string;
  readonly headers: RequestHeaders;
  readonly body: Buffer;
  readonly callerIP: string;
  readonly queue?: string;
  /** The URL group the destination came from, and the endpoint's name within it. */
  readonly topic?: { readonly name: string; readonly endpointName?: string };
}

/** The real service's default retries: 3 (four attempts in all). */
export const defaultRetries = 3;

/**
 * A random prefix drawn once per process (96 bits: another start, or another reference on the same
 * Redis, never draws it again in practice) and a counter: unique ids at the cost of an increment; a
 * randomBytes call per message was 2.7% of the reference's CPU at saturation.
 */
const idPrefix = `msg_${randomBytes(12).toString('base64url')}`;
let idCounter = 0;

export function newMessageId(): string {
  idCounter += 1;
  return `${idPrefix}${idCounter.toString(36).padStart(8, '0')}`;
}

export function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `<prefix>Forward-<Name>` headers as `<name>` → value. */
function forwarded(headers: RequestHeaders, prefix: string): Record<string, string> {
  const lower = prefix.toLowerCase();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !name.startsWith(lower) || name.length === lower.length) continue;
    out[name.slice(lower.length)] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function httpUrl(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text.slice(0, 200))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MessagingError(400, `invalid ${what}: it must start with http:// or https://`);
  }
  return url.href;
}

function method(text: string | undefined, what: string): string | undefined {
  if (text === undefined) return undefined;
  const upper = text.trim().toUpperCase();
  if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'].includes(upper)) {
    throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text)}`);
  }
  return upper;
}

/** A count past `max` is refused, or capped to it (`cap`: the silence; the spec does not say which). */
function count(text: string | undefined, what: string, max: number, cap = false): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(text)) throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text)}`);
  const value = Number(text);
  if (value > max && cap) return max;
  if (value > max) throw new MessagingError(400, `${what} ${value} exceeds the plan's maximum of ${max}`);
  return value;
}

/** A duration past `maxMs` is refused, or capped to it (`cap`: the silence). */
function duration(text: string | undefined, what: string, maxMs: number, cap = false): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseServiceDurationMs(text);
  if (ms === undefined) throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text)} (use 10s, 5m, 1h, 1d)`);
  if (ms > maxMs && cap) return maxMs;
  if (ms > maxMs) throw new MessagingError(400, `${what} ${text} exceeds the plan's maximum of ${maxMs / 1000}s`);
  return ms;
}

/**
 * A timeout header: a duration as its siblings take it, and above zero (a zero timeout would end every
 * attempt before it began; the real service refuses it as it refuses any other timeout it cannot use).
 */
function timeout(text: string | undefined, what: string, maxMs: number): number | undefined {
  const ms = duration(text, what, maxMs);
  if (ms === 0) throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text)} (a timeout must be above 0)`);
  return ms;
}

/**
 * `…-Not-Before`, unix seconds, held to its sibling `…-Delay`'s rule: a time that is a number (400
 * digits are not: they make Infinity) and no further away than the plan's maximum delay. A time already
 * past is now. Returns the epoch milliseconds of the first delivery.
 */
function notBefore(
  text: string | undefined,
  what: string,
  now: number,
  maxDelayMs: number,
  cap = false,
): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(text)) throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text)}`);
  const seconds = Number(text);
  if (!Number.isSafeInteger(seconds)) {
    throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text.trim().slice(0, 40))} is not a unix time`);
  }
  const at = seconds * 1000;
  if (at - now > maxDelayMs && cap) return now + maxDelayMs;
  if (at - now > maxDelayMs) {
    throw new MessagingError(
      400,
      `${what} ${seconds} is ${Math.ceil((at - now) / 1000)}s away, beyond the plan's maximum delay of ${maxDelayMs / 1000}s`,
    );
  }
  return Math.max(now, at);
}

/** What the fault switches take away from one callback kind's headers. */
interface CallbackDrops {
  /** The `…-Forward-*` headers. */
  readonly forward: boolean;
  /** The `…-Retries` header. */
  readonly retries: boolean;
  /** Everything but the URL: timeout, retries, delay, method and forwarded headers. */
  readonly config: boolean;
}

/** The `…-Timeout`, `…-Retries`, `…-Delay`, `…-Method` and `…-Forward-*` headers of one callback kind. */
function callbackConfig(
  given: RequestHeaders,
  prefix: string,
  account: MessagingAccount,
  drops: CallbackDrops,
): CallbackConfig | undefined {
  const url = header(given, prefix);
  if (url === undefined) return undefined;
  const headers = drops.config ? { [prefix.toLowerCase()]: url } : given;
  const retries = drops.retries
    ? undefined
    : count(header(headers, `${prefix}-Retries`), `${prefix}-Retries`, account.max_retries);
  const timeoutMs = timeout(header(headers, `${prefix}-Timeout`), `${prefix}-Timeout`, account.timeout * 1000);
  const delayMs = duration(header(headers, `${prefix}-Delay`), `${prefix}-Delay`, account.max_delay * 1000);
  const callbackMethod = method(header(headers, `${prefix}-Method`), `${prefix}-Method`);
  return {
    url: httpUrl(url, prefix),
    ...(callbackMethod !== undefined && { method: callbackMethod }),
    ...(retries !== undefined && { retries }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(delayMs !== undefined && { delayMs }),
    forward: drops.forward ? {} : forwarded(headers, `${prefix}-Forward-`),
  };
}

/**
 * The publish request's headers for callback bodies: name → string, never its credentials. Faults:
 * the callback headers left out, or forward headers kept under the name they are forwarded as.
 */
const forwardHeader = /^[a-z]+-(?:(?:failure-)?callback-)?forward-(.+)$/i;
/** The callback headers' pattern per dialect prefix, made once (a RegExp per publish showed up in profiles). */
const callbackHeaderPatterns = new Map<string, RegExp>();

function callbackHeaderPattern(prefix: string): RegExp {
  let pattern = callbackHeaderPatterns.get(prefix);
  if (pattern === undefined) {
    pattern = new RegExp(`^${prefix}(failure-)?callback`, 'i');
    callbackHeaderPatterns.set(prefix, pattern);
  }
  return pattern;
}

function sourceHeaders(headers: RequestHeaders, prefix: string, fault: MessagingFaultCheck): Record<string, string> {
  const out: Record<string, string> = {};
  const callbackHeader = callbackHeaderPattern(prefix);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'authorization' || name === 'cookie') continue;
    if (fault('source-header-drops-callback-headers') && callbackHeader.test(name)) continue;
    const renamed = fault('source-header-forward-renamed') ? forwardHeader.exec(name)?.[1] : undefined;
    out[renamed ?? name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export interface PublishContext {
  readonly dialect: Dialect;
  readonly account: MessagingAccount;
  readonly fault: MessagingFaultCheck;
  readonly silence: MessagingSilenceCheck;
  readonly now: number;
}

/**
 * The publish headers the spec does not show (Endpoints rule 4) as an implementation without them
 * would see them: the silences drop Svc-Retries, Svc-Delay and Svc-Not-Before, or Svc-Timeout, so
 * the service's own defaults apply.
 */
function withoutIgnored(h: RequestHeaders, p: string, silence: MessagingSilenceCheck): RequestHeaders {
  const ignored = [
    ...(silence('retries-header-ignored') ? [`${p}Retries`] : []),
    ...(silence('delay-header-ignored') ? [`${p}Delay`, `${p}Not-Before`] : []),
    ...(silence('timeout-header-ignored') ? [`${p}Timeout`] : []),
  ].map((name) => name.toLowerCase());
  if (ignored.length === 0) return h;
  return Object.fromEntries(Object.entries(h).filter(([name]) => !ignored.includes(name)));
}

export function messageFromPublish(input: PublishInput, context: PublishContext): StoredMessage {
  const { dialect, account, fault, silence, now } = context;
  const p = dialect.headerPrefix;
  const h = withoutIgnored(input.headers, p, silence);
  const url = httpUrl(input.destination, 'destination url');
  // Spec "Limits": message size; the silence accepts a message past it and cuts it to the maximum
  // (the payload rules are not shown), the fault lets it through whole.
  const oversize = input.body.length > account.max_message_size && !fault('message-size-unchecked');
  if (oversize && !silence('oversize-truncated')) {
    throw new MessagingError(
      413,
      `message size ${input.body.length} exceeds the plan's maximum of ${account.max_message_size} bytes`,
    );
  }
  const payload = oversize ? input.body.subarray(0, account.max_message_size) : input.body;
  const cap = silence('limits-capped');
  const delayMs = duration(header(h, `${p}Delay`), `${p}Delay`, account.max_delay * 1000, cap) ?? 0;
  // Not-Before wins over Delay, as on the real service.
  const firstAt =
    notBefore(header(h, `${p}Not-Before`), `${p}Not-Before`, now, account.max_delay * 1000, cap) ?? now + delayMs;
  // Spec "Limits": max_retries bounds every message; the fault lets Svc-Retries go past it.
  const maxRetries = fault('retries-above-plan') ? Number.MAX_SAFE_INTEGER : account.max_retries;
  const retries =
    count(header(h, `${p}Retries`), `${p}Retries`, maxRetries, cap) ?? Math.min(defaultRetries, account.max_retries);
  // The plan's "request timeout" bounds each attempt, or (the silence) only API calls: attempts then
  // wait up to 30 s unless Svc-Timeout says otherwise.
  const attemptMs = silence('plan-timeout-for-calls-only') ? 30_000 : account.timeout * 1000;
  const timeoutMs = timeout(header(h, `${p}Timeout`), `${p}Timeout`, account.timeout * 1000) ?? attemptMs;
  const ignoreCallbacks = input.queue !== undefined && fault('enqueue-ignores-callback');
  const dropConfig = input.queue !== undefined && fault('enqueue-ignores-callback-config');
  const callback = ignoreCallbacks
    ? undefined
    : callbackConfig(h, `${p}Callback`, account, {
        forward: fault('callback-forward-dropped'),
        retries: false,
        config: dropConfig,
      });
  const failureCallback = ignoreCallbacks
    ? undefined
    : callbackConfig(h, `${p}Failure-Callback`, account, {
        forward: fault('failure-callback-forward-dropped'),
        retries: fault('failure-callback-retries-ignored'),
        config: dropConfig,
      });
  const contentType = header(h, 'content-type');
  const delivered = {
    ...forwarded(h, `${p}Forward-`),
    ...(contentType !== undefined && { 'content-type': contentType }),
  };
  return {
    id: silence('message-ids-uuid') ? randomUUID() : newMessageId(),
    kind: 'publish',
    url,
    method: method(header(h, `${p}Method`), `${p}Method`) ?? 'POST',
    headers: delivered,
    body: payload.toString('base64'),
    createdAt: now,
    notBefore: firstAt,
    maxRetries: retries,
    retried: 0,
    timeoutMs,
    ...(input.queue !== undefined && { queue: input.queue }),
    ...(input.topic !== undefined && { topicName: input.topic.name }),
    ...(input.topic?.endpointName !== undefined && { endpointName: input.topic.endpointName }),
    ...(callback !== undefined && { callback }),
    ...(failureCallback !== undefined && { failureCallback }),
    // "Headers of the triggering message": every header of the publish, or (the silence) those the
    // message carries to its destination.
    sourceHeader: silence('source-header-delivered-only') ? delivered : sourceHeaders(input.headers, p, fault),
    callerIP: input.callerIP,
  };
}
