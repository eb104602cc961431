/**
 * Checks of key-value responses: small named functions that return what they verified or throw one
 * CheckFailure(rule, received, expected). Each names the rule it enforces at the call site.
 */
import { isDeepStrictEqual } from 'node:util';
import { CheckFailure, type HttpResponse, jsonBody, show } from '../../src/suite-kit/suite-api.ts';
import { checkStatus, checkThat, describe, isRecord } from './checks.ts';
import { parseWithNumbers } from './messaging-raw-json.ts';
import { isInvalidUtf8 } from './utf8.ts';

export { checkStatus, checkThat, describe, isRecord };

/**
 * The media type of the Content-Type header, without parameters, lower case. Takes only the headers
 * so an event stream (which has no buffered body) is read the same way as a response.
 */
export function mediaType({ headers }: Pick<HttpResponse, 'headers'>): string | undefined {
  const value = headers['content-type'];
  return (Array.isArray(value) ? value.join(', ') : value)?.split(';')[0]?.trim().toLowerCase();
}

export function checkContentType(rule: string, res: HttpResponse, expected: string, context?: string) {
  const type = mediaType(res);
  if (type !== expected)
    throw new CheckFailure(rule, `content type ${show(type)}`, `content type ${expected}`, context);
}

/**
 * The body parsed as JSON, or undefined when it is not JSON (the caller's own check then fails its
 * rule). A body that its content type calls application/json but that does not parse (an HTML page
 * behind a proxy, raw RESP2 mislabelled) contradicts its label: that breaks the json format itself
 * (spec "Svc-Response-Format": json returns application/json), so B.format.json is blamed, not the rule
 * of whatever the case meant to read from it.
 */
export function jsonOf(res: HttpResponse, context?: string): unknown {
  // No body at all is no JSON of any kind, whatever the label: the caller's shape check fails its own
  // rule (a 405 with an empty body lacks the Error object, B.response.error-shape), not the format's.
  if (res.body.length === 0) return undefined;
  const text = res.body.toString('utf8');
  const parsed = parseWithNumbers(text);
  // The bytes that came are judged, not their decoding: toString('utf8') above replaces invalid bytes
  // with U+FFFD, so a JSON answer carrying a raw 0xFF would read as one that replaced it. Rule 1 has
  // invalid UTF-8 in a response string replaced by U+FFFD (and JSON text is UTF-8, RFC 8259 §8.1).
  if ((parsed !== undefined || mediaType(res) === 'application/json') && isInvalidUtf8(res.body)) {
    throw new CheckFailure(
      'B.utf8.replacement',
      `a JSON answer holding invalid UTF-8: ${show(res.body, 80)}`,
      'valid UTF-8, with U+FFFD where a reply string held invalid bytes',
      context,
    );
  }
  if (parsed === undefined && mediaType(res) === 'application/json') {
    throw new CheckFailure(
      'B.format.json',
      `content type application/json with a body that is not JSON: ${show(text, 80)}`,
      'a JSON body, as its content type says',
      context,
    );
  }
  // Spec "Response bodies": a result is null, an integer, a string, or an array of strings and nulls, and
  // an error a string; Redis's other numbers (scores, floats) come as strings. So every number in a body
  // is an integer literal: `1.0` or `1e0` parses to the same 1 and passes every comparison after parsing.
  const written = parsed?.nonInteger ?? [];
  if (written.length > 0) {
    throw new CheckFailure(
      'B.response.result-shape',
      `numbers written ${written.slice(0, 3).join(', ')} in ${show(text, 80)}`,
      'integers written as integers (digits only)',
      context,
    );
  }
  return parsed?.value;
}

/** A JSON object whose only field is `result`; returns the result. */
export function checkResultBody(rule: string, res: HttpResponse, context?: string): unknown {
  const body = jsonOf(res, context);
  if (!isRecord(body) || !('result' in body) || Object.keys(body).length !== 1) {
    throw new CheckFailure(rule, describe(res), 'a JSON object with the single field result', context);
  }
  return body.result;
}

/** Status 200 and `{"result": expected}`; returns nothing (use resultOf to read a result). */
export function checkResult(rule: string, res: HttpResponse, expected: unknown, context?: string) {
  checkStatus(rule, res, 200, context);
  const result = checkResultBody(rule, res, context);
  if (!isDeepStrictEqual(result, expected)) {
    throw new CheckFailure(rule, `result ${show(result)}`, `result ${show(expected)}`, context);
  }
}

/** Status 200 and a result body; returns the result. */
export function resultOf(rule: string, res: HttpResponse, context?: string): unknown {
  checkStatus(rule, res, 200, context);
  return checkResultBody(rule, res, context);
}

/** A JSON object whose only field is `error`, a string; returns the text. */
export function checkErrorBody(rule: string, res: HttpResponse, context?: string): string {
  const body = jsonOf(res, context);
  if (!isRecord(body) || typeof body.error !== 'string' || Object.keys(body).length !== 1) {
    throw new CheckFailure(rule, describe(res), 'a JSON object with the single field error, a string', context);
  }
  // The body is the JSON error object; its label must say so (spec "Svc-Response-Format": json returns
  // application/json; failures are JSON objects too). Checked after the shape, so a text/plain
  // "Unauthorized" fails the Error object's rule, and a right object under a wrong label fails this one.
  checkContentType('B.format.json', res, 'application/json', context);
  return body.error;
}

/**
 * A HEAD answer has no body to judge, but its headers are the ones GET would send (RFC 9110 §9.3.2), so a
 * content type that it does send must be the format's. An absent one is allowed: HTTP lets HEAD leave
 * out headers ("SHOULD send the same"), so no MUST breaks.
 */
export function checkHeadContentType(res: HttpResponse, expected: string, rule: string, context?: string): void {
  if (mediaType(res) !== undefined) checkContentType(rule, res, expected, context);
}

/**
 * Redis's error classes: the first word of its error replies ("the first word after the -, up to the
 * first space or newline, represents the kind of error", RESP simple errors), as the server and its
 * modules name them.
 */
export const redisErrorClasses: ReadonlySet<string> = new Set([
  'ERR',
  'WRONGTYPE',
  'NOPERM',
  'WRONGPASS',
  'NOAUTH',
  'EXECABORT',
  'NOSCRIPT',
  'BUSY',
  'BUSYKEY',
  'BUSYGROUP',
  'LOADING',
  'READONLY',
  'MASTERDOWN',
  'MISCONF',
  'NOREPLICAS',
  'OOM',
  'NOTBUSY',
  'UNBLOCKED',
  'NOGROUP',
  'NOPROTO',
  'CROSSSLOT',
  'TRYAGAIN',
  'CLUSTERDOWN',
  'MOVED',
  'ASK',
  'UNKILLABLE',
]);

/**
 * The text starts with an error class token, or with `token` when given; returns it. The first word
 * (trailing `:` `,` `;` `.` aside) must be one of Redis's error classes. An upper-case word that is
 * not (`SELECT is not allowed`) is no class Redis knows, and the spec names none beyond its examples:
 * an observation (B.observe.error-class), recorded through `observe` or, without it, as the case's end.
 */
export function checkClassToken(
  rule: string,
  text: string,
  token?: string,
  context?: string,
  observe?: (note: string) => void,
): string {
  const word = (/^(\S+)/.exec(text)?.[1] ?? '').replace(/[:,;.]+$/, '');
  const wanted = token === undefined ? 'a text starting with an error class token (ERR, WRONGTYPE, …)' : token;
  if (token !== undefined ? word === token : redisErrorClasses.has(word)) return word;
  if (token === undefined && /^[A-Z][A-Z0-9_]*$/.test(word)) {
    const note = `error class ${show(word)} is not one of Redis's: ${show(text, 80)}`;
    if (!observe) throw new CheckFailure('B.observe.error-class', `error ${show(text)}`, wanted, context);
    observe(note);
    return word;
  }
  throw new CheckFailure(rule, `error ${show(text)}`, wanted, context);
}

/**
 * Status (default 400) under `rule`, then the `{"error": …}` body (B.response.error-shape) and its class
 * token (B.errors.class-token): each part blames the rule it checks, so a right status with a wrong body
 * fails the body's rule, not the status rule. Returns the text.
 */
export function checkError(
  rule: string,
  res: HttpResponse,
  options: {
    readonly status?: number | readonly number[];
    readonly token?: string;
    readonly context?: string;
    /** Where an error class Redis does not know is recorded (else it ends the case as an observation). */
    readonly observe?: (note: string) => void;
  } = {},
): string {
  checkStatus(rule, res, options.status ?? 400, options.context);
  const text = checkErrorBody('B.response.error-shape', res, options.context);
  checkClassToken('B.errors.class-token', text, options.token, options.context, options.observe);
  return text;
}

/**
 * A command the spec says is not supported (rule 5), refused the way spec "Errors" says: 400 with an
 * error object. Each way of getting it wrong blames what broke: an answer of 2xx means the command was
 * accepted (it ran), which breaks the refusal's own `rule`; any other status is a refusal with the
 * wrong status (500 "cluster support disabled" ran nothing), which breaks the status rule
 * (B.status.unsupported-400), not the refusal's; then the body's shape and class token under theirs.
 */
export function checkRefusal(
  rule: string,
  res: HttpResponse,
  options: { readonly context?: string; readonly observe?: (note: string) => void } = {},
): string {
  if (res.status >= 200 && res.status < 300) {
    throw new CheckFailure(rule, describe(res), 'a refusal: status 400 with an {error} object', options.context);
  }
  return checkError('B.status.unsupported-400', res, options);
}

/** What the spec allows as a result: null, an integer, a string, or an array of strings and nulls. */
export function checkResultShape(rule: string, value: unknown, context?: string) {
  const scalar = value === null || typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  const flatArray = Array.isArray(value) && value.every((item) => item === null || typeof item === 'string');
  if (!scalar && !flatArray) {
    throw new CheckFailure(
      rule,
      `result ${show(value)}`,
      'null, an integer, a string, or an array of strings and nulls',
      context,
    );
  }
}

/** True when the response is a success: status 200 with a result object. */
export function isSuccess(res: HttpResponse): boolean {
  if (res.status !== 200) return false;
  const body = jsonBody(res);
  return isRecord(body) && 'result' in body;
}

/** Anything but a success (the spec does not show the status or text of some refusals). */
export function checkNotSuccess(rule: string, res: HttpResponse, context?: string) {
  if (isSuccess(res)) throw new CheckFailure(rule, describe(res), 'a refusal (not status 200 with a result)', context);
}

/** A pipeline or transaction answer: status 200 and a JSON array of result-or-error objects. */
export function itemsOf(rule: string, res: HttpResponse, count: number, context?: string): ItemBody[] {
  checkStatus(rule, res, 200, context);
  const body = jsonOf(res, context);
  if (!Array.isArray(body) || body.length !== count) {
    throw new CheckFailure(rule, describe(res), `a JSON array of ${count} result-or-error objects`, context);
  }
  return body.map((item, index) => {
    if (isRecord(item) && Object.keys(item).length === 1 && 'result' in item) return { result: item.result };
    if (isRecord(item) && Object.keys(item).length === 1 && typeof item.error === 'string')
      return { error: item.error };
    throw new CheckFailure(rule, `item ${index + 1} ${show(item)}`, 'a {result} or {error} object', context);
  });
}

export type ItemBody = { readonly result: unknown } | { readonly error: string };

/** What an item of a pipeline or transaction should be: a result value, or an error. */
export type ItemExpectation = { readonly result: unknown } | { readonly error: true; readonly token?: string };

/** Status 200 and one item per expectation, in order. */
export function checkItems(rule: string, res: HttpResponse, expected: readonly ItemExpectation[], context?: string) {
  const items = itemsOf(rule, res, expected.length, context);
  expected.forEach((want, index) => {
    const got = items[index];
    const where = `item ${index + 1}`;
    if ('result' in want) {
      if (got === undefined || !('result' in got) || !isDeepStrictEqual(got.result, want.result)) {
        throw new CheckFailure(rule, `${where} ${show(got)}`, `${where} {"result":${show(want.result)}}`, context);
      }
    } else if (got === undefined || !('error' in got)) {
      throw new CheckFailure(rule, `${where} ${show(got)}`, `${where} an {error} object`, context);
    } else {
      checkClassToken(rule, got.error, want.token, context ? `${context}, ${where}` : where);
    }
  });
}

/**
 * A discarded transaction: one `{error}` object, not an array of items (under `rule`, the discard's);
 * the error body's shape and class token under their own rules. The status is recorded by the caller.
 */
export function checkDiscarded(
  rule: string,
  res: HttpResponse,
  context?: string,
  observe?: (note: string) => void,
): string {
  const body = jsonOf(res, context);
  if (Array.isArray(body)) {
    throw new CheckFailure(rule, describe(res), 'the whole transaction discarded: a single {error} object', context);
  }
  const text = checkErrorBody('B.response.error-shape', res, context);
  checkClassToken('B.errors.class-token', text, undefined, context, observe);
  return text;
}

/** The exact RESP2 bytes, status 200 and application/octet-stream. */
export function checkResp2(rule: string, res: HttpResponse, expected: Buffer, context?: string) {
  checkStatus(rule, res, 200, context);
  checkContentType(rule, res, 'application/octet-stream', context);
  if (!res.body.equals(expected)) {
    throw new CheckFailure(rule, `body ${show(res.body)}`, `RESP2 bytes ${show(expected)}`, context);
  }
}

/**
 * The body's bytes are valid UTF-8 (rule 1: invalid sequences become U+FFFD). Decoding a body for
 * JSON.parse already replaces invalid bytes, so a target sending them raw passes every later check
 * unless the bytes themselves are looked at.
 */
export function checkUtf8Body(rule: string, res: HttpResponse, context?: string) {
  if (isInvalidUtf8(res.body)) {
    throw new CheckFailure(
      rule,
      `body bytes ${show(res.body, 120)} (invalid UTF-8)`,
      'valid UTF-8 with U+FFFD',
      context,
    );
  }
}

/**
 * A 401 as every case judges it (the one position, B.observe.unauthorized-text): the status under the
 * credentials' `rule`, the body an Error object under B.response.error-shape ("Error bodies are {error:
 * <string>}"), and the text only recorded: the spec does not show a 401's text, and real deployments
 * answer both `WRONGPASS …` and `Unauthorized`. Returns the text.
 */
export function checkUnauthorized(
  rule: string,
  res: HttpResponse,
  context: string,
  observe: (note: string) => void,
): string {
  checkStatus(rule, res, 401, context);
  const text = checkErrorBody('B.response.error-shape', res, context);
  observe(`${context}: 401 text ${show(text, 80)}`);
  return text;
}
