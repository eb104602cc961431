/**
 * Checks of area A's answers and of what the target sends to the sink: the Error object, the Waiter
 * and NotifyResponse items, the callback and failure-callback bodies field by field with their types.
 * Each names the rule it enforces at the call site; none puts a token or key into its message.
 */
import { CheckFailure, show } from '../../src/engines/conformance/check-failure.ts';
import type { HttpResponse } from '../../src/http/http-client.ts';
import type { SinkRequest } from '../../src/sink/sink-server.ts';
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

/** Fields the spec lists only "when" they apply: typed when present. */
export const optionalCallbackFields: FieldTable = { topicName: 'string', endpointName: 'string', scheduleId: 'string' };

export const waiterFields: FieldTable = {
  url: 'string',
  headers: 'headerLists',
  deadline: 'integer',
  timeoutBody: 'base64',
  timeoutUrl: 'string',
  timeoutHeaders: 'headerLists',
};
