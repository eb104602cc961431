/**
 * Checks of area A's answers and of what the target sends to the sink: the Error object, the Waiter
 * and NotifyResponse items, the callback and failure-callback bodies field by field with their types.
 * Each names the rule it enforces at the call site; none puts a token or key into its message.
 */
import { CheckFailure, type HttpResponse, type SinkRequest, show } from '../../src/engines/conformance/suite-api.ts';
import { checkStatus, checkThat, describe, isRecord } from './checks.ts';

export { checkStatus, checkThat, describe, isRecord };

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

export const waiterFields: FieldTable = {
  url: 'string',
  headers: 'headerLists',
  deadline: 'integer',
  timeoutBody: 'base64',
  timeoutUrl: 'string',
  timeoutHeaders: 'headerLists',
};

/** What a callback must report, from what the harness sent and what the sink answered. */
export interface CallbackTruth {
  /** The attempts of the message, in order (attempt n carries `retried` n). */
  readonly attempts: readonly SinkRequest[];
  /** Retries asked on publish. */
  readonly maxRetries: number;
  readonly url: string;
  readonly method: string;
  /** The publish answer's message id, when it gave one. */
  readonly messageId?: string;
  readonly sourceBody: string;
  /** Every header the publish sent but its credentials (`sentHeaders`): name (as sent) → value. */
  readonly sourceHeaders: Readonly<Record<string, string>>;
  /** Unix ms just before the publish was sent and just after its answer came. */
  readonly publishedFrom: number;
  readonly publishedTo: number;
  /** Svc-Delay asked, in ms. @default 0 */
  readonly delayMs?: number;
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
 * `maxRetries`, `url`, `method`, `sourceMessageId`, `sourceHeader`, `sourceBody` with the publish;
 * `createdAt` and `notBefore` within the publish's time window (ms), `notBefore` the delay later.
 * Fields are typed first (`checkFields`); a difference fails `rule`.
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
  if (body.maxRetries !== truth.maxRetries) fail('maxRetries', `${truth.maxRetries} (the retries asked)`);
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
  const createdAt = Number(body.createdAt);
  const notBefore = Number(body.notBefore);
  const delay = truth.delayMs ?? 0;
  const window = `${truth.publishedFrom}…${truth.publishedTo} ms (the publish, ±${clockSkewMs / 1000} s)`;
  if (createdAt < truth.publishedFrom - clockSkewMs || createdAt > truth.publishedTo + clockSkewMs) {
    fail('createdAt', window);
  }
  if (notBefore < createdAt + delay - 1000 || notBefore > truth.publishedTo + delay + clockSkewMs) {
    fail('notBefore', `createdAt + ${delay} ms (the delay asked), within ${window}`);
  }
  if (typeof body.callerIP !== 'string' || body.callerIP === '') fail('callerIP', 'a non-empty string');
}

/**
 * The callback's sourceHeader ("Headers of the triggering message") holds every header the publish
 * sent (`sent`, credentials left out), each under its own name (compared case-insensitively) with the
 * value sent: one missing, or kept under another name (a forward header under the name it is
 * forwarded as), fails `rule`. Headers the publish did not send (content-length, host, a proxy's) may
 * appear: the spec does not say they may not.
 */
export function checkSourceHeader(
  rule: string,
  body: Record<string, unknown>,
  sent: Readonly<Record<string, string>>,
  context: string,
): void {
  const sourceHeader = isRecord(body.sourceHeader) ? body.sourceHeader : {};
  for (const [name, value] of Object.entries(sent)) {
    const kept = headerValue(sourceHeader, name);
    if (kept !== value) {
      throw new CheckFailure(
        rule,
        `sourceHeader ${kept === undefined ? `without ${name}` : `${name}: ${show(kept, 80)}`} (names ${show(Object.keys(sourceHeader), 200)})`,
        `sourceHeader ${name}: ${show(value, 80)} (sent on publish)`,
        context,
      );
    }
  }
}

/** `checkSourceHeader` on each of these callback (or failure-callback) requests' JSON bodies. */
export function checkSourceHeaders(
  rule: string,
  requests: readonly (SinkRequest | undefined)[],
  sent: Readonly<Record<string, string>>,
  context: string,
): void {
  for (const request of requests) checkSourceHeader(rule, jsonRequest(rule, request, context), sent, context);
}
