/**
 * Checks of area A's answers and of what the target sends to the sink: the Error object, the Waiter
 * and NotifyResponse items, the callback and failure-callback bodies field by field with their types.
 * Each names the rule it enforces at the call site; none puts a token or key into its message.
 */
import { CheckFailure, type HttpResponse, type SinkRequest, show } from '../../src/suite-kit/suite-api.ts';
import { checkStatus, checkThat, describe, isRecord } from './checks.ts';

export { checkStatus, checkThat, describe, isRecord };

/**
 * The least gap, in milliseconds, that counts as "a second or more apart" between two arrivals at the
 * sink (a timeout, a delay, a retry after a timeout). The sink stamps each arrival when its thread
 * reads it, which a loaded machine delays: two CI runs whose tests filled both cores saw a target's
 * 1 s timeout as 878 and 895 ms apart, and a slower one's CI 744 ms. An implementation that ignores the
 * second waits for none of it (a retry at once is tens of milliseconds after the first), so the slack
 * takes nothing from what the check catches.
 */
export const aboutOneSecondMs = 500;

/** The body parsed as JSON; a body that is not JSON fails `rule`. */
export function jsonOf(rule: string, res: HttpResponse, context?: string): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new CheckFailure(rule, describe(res), 'a JSON body', context);
  }
}

/** The spec's Error object: a JSON object with `error`, a string. */
export function checkErrorObject(rule: string, res: HttpResponse, context?: string): string {
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (!isRecord(body) || typeof body.error !== 'string') {
    throw new CheckFailure(rule, describe(res), 'a JSON object with error, a string', context);
  }
  return body.error;
}

/** A request the sink got, its body parsed as a JSON object. */
export function jsonRequest(rule: string, request: SinkRequest | undefined, context: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(request?.body.toString('utf8') ?? '');
  } catch {
    body = undefined;
  }
  if (!isRecord(body)) {
    throw new CheckFailure(rule, show(request?.body.toString('utf8') ?? '', 160), 'a JSON object', context);
  }
  return body;
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const digits = /^\d+$/;

type TypeCheck = (value: unknown) => boolean;

export const types = {
  integer: (value: unknown) => typeof value === 'number' && Number.isInteger(value),
  string: (value: unknown) => typeof value === 'string',
  boolean: (value: unknown) => typeof value === 'boolean',
  base64: (value: unknown) => typeof value === 'string' && base64.test(value),
  msString: (value: unknown) => typeof value === 'string' && digits.test(value),
  headerLists: (value: unknown) =>
    isRecord(value) &&
    Object.values(value).every((item) => Array.isArray(item) && item.every((v) => typeof v === 'string')),
  headerStrings: (value: unknown) => isRecord(value) && Object.values(value).every((item) => typeof item === 'string'),
} satisfies Record<string, TypeCheck>;

const typeNames: Record<keyof typeof types, string> = {
  integer: 'an integer',
  string: 'a string',
  boolean: 'a boolean',
  base64: 'a base64 string',
  msString: 'a string of decimal digits (milliseconds)',
  headerLists: 'an object of header name to array of strings',
  headerStrings: 'an object of header name to string',
};

export type FieldTable = Readonly<Record<string, keyof typeof types>>;

/** Every field of `table` is present (`fieldsRule`) and of its type (`typesRule`). */
export function checkFields(
  fieldsRule: string,
  typesRule: string,
  object: Record<string, unknown>,
  table: FieldTable,
  context: string,
): void {
  const missing = Object.keys(table).filter((field) => !(field in object));
  if (missing.length > 0) {
    throw new CheckFailure(
      fieldsRule,
      `no ${missing.join(', ')} in ${show(Object.keys(object))}`,
      `fields ${Object.keys(table).join(', ')}`,
      context,
    );
  }
  for (const [field, type] of Object.entries(table)) {
    if (!types[type](object[field])) {
      throw new CheckFailure(typesRule, `${field} ${show(object[field], 80)}`, `${field} ${typeNames[type]}`, context);
    }
  }
}

/** The callback body's fields that apply to every message (topics, endpoints and schedules aside). */
export const callbackFields: FieldTable = {
  status: 'integer',
  header: 'headerLists',
  body: 'base64',
  retried: 'integer',
  maxRetries: 'integer',
  sourceMessageId: 'string',
  url: 'string',
  method: 'string',
  sourceHeader: 'headerStrings',
  sourceBody: 'base64',
  notBefore: 'msString',
  createdAt: 'msString',
  callerIP: 'string',
};

/** The fields of a table typed integer (judged on the raw JSON text too: messaging-raw-json.ts). */
export function integerFieldsOf(table: FieldTable): string[] {
  return Object.entries(table)
    .filter(([, type]) => type === 'integer')
    .map(([field]) => field);
}

/**
 * The callback body's fields of a message sent to a URL group (endpointName only when the endpoint
 * has a name): the URL-group cases check and cover these.
 */
export const groupCallbackFields: FieldTable = { topicName: 'string', endpointName: 'string' };

/** Fields the spec lists only "when" they apply: typed when present. */
export const optionalCallbackFields: FieldTable = { ...groupCallbackFields, scheduleId: 'string' };

/**
 * A Waiter's fields (spec "Waiter (area A)"). The table has no Required column (the Error table has
 * one): `url`, `headers` and `deadline` describe every waiter; the timeout fields describe what the
 * waiter was created with, so they are required only of a waiter created with them (`timeoutFieldsOf`)
 * and typed whenever present.
 */
export const waiterFields: FieldTable = { url: 'string', headers: 'headerLists', deadline: 'integer' };

/** The Waiter's timeout fields: required of a waiter created with them, typed when present. */
export const waiterTimeoutFields: FieldTable = {
  timeoutBody: 'base64',
  timeoutUrl: 'string',
  timeoutHeaders: 'headerLists',
};

/** The fields a Waiter created with (`given`) or without its timeout fields must have. */
export function waiterFieldsFor(given: boolean): FieldTable {
  return given ? { ...waiterFields, ...waiterTimeoutFields } : waiterFields;
}

/** Fields of `table` that are present must have their type (`rule`); absent ones are not judged. */
export function checkPresentTypes(
  rule: string,
  object: Record<string, unknown>,
  table: FieldTable,
  context: string,
): void {
  for (const [field, type] of Object.entries(table)) {
    if (field in object && !types[type](object[field])) {
      throw new CheckFailure(rule, `${field} ${show(object[field], 80)}`, `${field} ${typeNames[type]}`, context);
    }
  }
}

/**
 * The headers a publish sent, as a callback's sourceHeader ("Headers of the triggering message") may
 * show them. The spec does not say which headers those are, and two readings hold: every header the
 * publish request carried (`all`, credentials aside), or only those the message carries to its
 * destination (`delivered`: the content type and each forwarded header under the name it is forwarded
 * as), without the publish's instructions to the service (`instructions`, the vendor-prefixed ones).
 */
export interface SourceHeaders {
  readonly all: Readonly<Record<string, string>>;
  readonly delivered: Readonly<Record<string, string>>;
  readonly instructions: readonly string[];
}

/** What a callback must report, from what the harness sent and what the sink answered. */
export interface CallbackTruth {
  /** The attempts of the message the sink saw so far, in order (attempt n carries `retried` n). */
  readonly attempts: readonly SinkRequest[];
  /**
   * The message is known to be over (a failure callback: "sent after all delivery retries are
   * exhausted"): every attempt has come, so `retried` is `maxRetries` and the sink saw 1 + maxRetries.
   */
  readonly exhausted?: boolean;
  readonly url: string;
  readonly method: string;
  /** The publish answer's message id, when it gave one. */
  readonly messageId?: string;
  readonly sourceBody: string;
  readonly sourceHeaders: SourceHeaders;
  /** Unix ms just before the publish was sent and just after its answer came. */
  readonly publishedFrom: number;
  readonly publishedTo: number;
  /**
   * A delay the target was seen to honour, in ms: the first attempt came that much after the publish
   * while a message published beside it without one came at once. Svc-Delay is not in the spec, so
   * only a delay the target demonstrably applied says when the message "was to be delivered".
   */
  readonly honouredDelayMs?: number;
  /** The header that carries the message id on a delivery (not shown by the spec: compared when present). */
  readonly messageIdHeader: string;
}

/** Clock difference allowed between the harness and the target when comparing timestamps. */
const clockSkewMs = 60_000;

function headerValue(headers: Readonly<Record<string, unknown>>, name: string): unknown {
  const key = Object.keys(headers).find((item) => item.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}

/**
 * Every field of a callback (or failure-callback) body compared with what happened: `status`, `header`
 * and `body` with the sink's answer to the attempt `retried` names; `retried` one of the attempts made;
 * `maxRetries` consistent with the attempts the sink saw (never fewer than `retried`, never fewer than
 * the attempts made less one; on exhaustion, equal to `retried` and to the attempts made less one): the
 * spec shows no header that sets it, so it is judged against what the target did, not what was asked;
 * `url`, `method`, `sourceMessageId`, `sourceHeader`, `sourceBody` with the publish; `createdAt` within
 * the publish's time window (ms) and `notBefore` a time the first attempt did not come before (and,
 * when the target honoured a delay, that delay after `createdAt`). Fields are typed first
 * (`checkFields`); a difference fails `rule`.
 */
export function checkCallbackTruth(
  rule: string,
  body: Record<string, unknown>,
  truth: CallbackTruth,
  context: string,
): void {
  const fail = (field: string, expected: string) => {
    throw new CheckFailure(rule, `${field} ${show(body[field], 120)}`, `${field} ${expected}`, context);
  };
  const retried = body.retried as number;
  const attempt = truth.attempts[retried];
  if (attempt === undefined) fail('retried', `one of 0…${truth.attempts.length - 1} (the attempts made)`);
  const answered = attempt as SinkRequest;
  if (body.status !== answered.answered) fail('status', `${answered.answered} (the answer to attempt ${retried})`);
  const answeredBody = answered.answeredWith.body.toString('base64');
  if (body.body !== answeredBody) fail('body', `${show(answeredBody, 80)} (base64 of the body answered)`);
  const header = body.header as Record<string, unknown>;
  for (const [name, value] of Object.entries(answered.answeredWith.headers)) {
    const got = headerValue(header, name);
    if (!Array.isArray(got) || !got.includes(value)) fail('header', `${name}: [${show(value)}] among them (answered)`);
  }
  checkMaxRetries(fail, body, truth);
  if (body.url !== truth.url) fail('url', `${show(truth.url)} (the destination)`);
  if (body.method !== truth.method) fail('method', show(truth.method));
  if (truth.messageId !== undefined && body.sourceMessageId !== truth.messageId) {
    fail('sourceMessageId', `${show(truth.messageId)} (the publish answer's message id)`);
  }
  const carried = truth.attempts[0]?.headers[truth.messageIdHeader.toLowerCase()];
  if (typeof carried === 'string' && body.sourceMessageId !== carried) {
    fail('sourceMessageId', `${show(carried)} (the id the delivery carried)`);
  }
  const sourceBody = Buffer.from(truth.sourceBody).toString('base64');
  if (body.sourceBody !== sourceBody) fail('sourceBody', `${show(sourceBody, 80)} (base64 of the body published)`);
  checkSourceHeader(rule, body, truth.sourceHeaders, context);
  checkTimestamps(fail, body, truth);
  if (typeof body.callerIP !== 'string' || body.callerIP === '') fail('callerIP', 'a non-empty string');
}

type FieldFail = (field: string, expected: string) => never;

/**
 * Spec "Callback body": maxRetries, "Retries allowed before the message counts as failed", and
 * retried, "Number of delivery retries made". A message never gets more attempts than 1 + maxRetries;
 * once it counts as failed (the failure callback), it made them all.
 */
function checkMaxRetries(fail: FieldFail, body: Record<string, unknown>, truth: CallbackTruth): void {
  const maxRetries = body.maxRetries as number;
  const made = truth.attempts.length;
  if (maxRetries < (body.retried as number)) fail('maxRetries', `at least retried, ${show(body.retried)}`);
  if (maxRetries < made - 1) fail('maxRetries', `at least ${made - 1} (the sink saw ${made} attempts)`);
  if (truth.exhausted !== true) return;
  if (body.retried !== maxRetries) fail('retried', `${maxRetries}, maxRetries (the retries were exhausted)`);
  if (made !== maxRetries + 1) {
    fail('maxRetries', `${made - 1} (the sink saw ${made} attempts before the message counted as failed)`);
  }
}

/**
 * createdAt within the publish (ms, with clock skew); notBefore "at which the triggering message is or
 * was to be delivered": not after the first attempt came, not before createdAt, and the honoured delay
 * after createdAt when the target applied one.
 */
function checkTimestamps(fail: FieldFail, body: Record<string, unknown>, truth: CallbackTruth): void {
  const createdAt = Number(body.createdAt);
  const notBefore = Number(body.notBefore);
  const window = `${truth.publishedFrom}…${truth.publishedTo} ms (the publish, ±${clockSkewMs / 1000} s)`;
  if (createdAt < truth.publishedFrom - clockSkewMs || createdAt > truth.publishedTo + clockSkewMs) {
    fail('createdAt', window);
  }
  if (notBefore < createdAt - 1000) fail('notBefore', `not before createdAt ${createdAt} (ms)`);
  const first = truth.attempts[0]?.at;
  if (first !== undefined && notBefore > first + clockSkewMs) {
    fail('notBefore', `not after the first attempt came at ${first} ms (±${clockSkewMs / 1000} s)`);
  }
  const delay = truth.honouredDelayMs;
  if (delay !== undefined && notBefore < createdAt + delay - 1000) {
    fail('notBefore', `about createdAt + ${delay} ms: the target delayed the first attempt that long`);
  }
}

/** Which reading of "headers of the triggering message" a sourceHeader misses, or undefined when one holds. */
function sourceHeaderMiss(
  sourceHeader: Record<string, unknown>,
  sent: SourceHeaders,
): { readonly all: string; readonly delivered: string } | undefined {
  const missing = (expected: Readonly<Record<string, string>>) => {
    for (const [name, value] of Object.entries(expected)) {
      const kept = headerValue(sourceHeader, name);
      if (kept !== value) return kept === undefined ? `without ${name}` : `${name}: ${show(kept, 80)}`;
    }
    return undefined;
  };
  const all = missing(sent.all);
  if (all === undefined) return undefined;
  const instruction = sent.instructions.find((name) => headerValue(sourceHeader, name) !== undefined);
  const delivered = missing(sent.delivered) ?? (instruction === undefined ? undefined : `with ${instruction}`);
  if (delivered === undefined) return undefined;
  return { all, delivered };
}

/**
 * The callback's sourceHeader ("Headers of the triggering message") holds, under their own names
 * (compared case-insensitively) with the values sent, either every header the publish sent (credentials
 * left out) or only those the message carries to its destination, with none of the publish's
 * instructions: the spec allows both readings. A mix of the two (callback headers dropped but other
 * instructions kept, forward headers renamed beside the instructions) holds neither and fails `rule`.
 * Headers the publish did not send (content-length, host, a proxy's) may appear: the spec does not say
 * they may not.
 */
export function checkSourceHeader(
  rule: string,
  body: Record<string, unknown>,
  sent: SourceHeaders,
  context: string,
): void {
  const sourceHeader = isRecord(body.sourceHeader) ? body.sourceHeader : {};
  const miss = sourceHeaderMiss(sourceHeader, sent);
  if (miss === undefined) return;
  throw new CheckFailure(
    rule,
    `sourceHeader ${miss.all} (names ${show(Object.keys(sourceHeader), 200)}); as the delivered headers: ${miss.delivered}`,
    `every header sent on publish (${show(Object.keys(sent.all), 200)}), or the headers delivered (${show(sent.delivered, 200)}) without the instructions`,
    context,
  );
}

/** `checkSourceHeader` on each of these callback (or failure-callback) requests' JSON bodies. */
export function checkSourceHeaders(
  rule: string,
  requests: readonly (SinkRequest | undefined)[],
  sent: SourceHeaders,
  context: string,
): void {
  for (const request of requests) checkSourceHeader(rule, jsonRequest(rule, request, context), sent, context);
}

/**
 * Whether a callback body reports the last attempt of its message: one its destination answered 2xx,
 * or one whose retried is its maxRetries (how a receiver tells the last one: the retries were spent).
 * A body that is not a JSON object ends nothing (its own check fails it).
 */
export function endsMessage(request: SinkRequest | undefined): boolean {
  let body: unknown;
  try {
    body = JSON.parse(request?.body.toString('utf8') ?? '');
  } catch {
    return false;
  }
  if (!isRecord(body)) return false;
  const status = body.status;
  if (typeof status === 'number' && status >= 200 && status <= 299) return true;
  return typeof body.retried === 'number' && body.retried === body.maxRetries;
}
