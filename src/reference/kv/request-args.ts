/**
 * Turns an HTTP request of area B into protocol arguments: the raw path split on "/" and each
 * segment percent-decoded to bytes, the POST body as last argument, then the query's NAME=value pairs.
 */

/** A client mistake in the request form: answered 400 with `error` as the text. */
export class RequestFormError extends Error {
  override readonly name = 'RequestFormError';
}

export interface RawUrl {
  /** Path segments after the leading "/", not yet decoded. */
  readonly segments: readonly string[];
  /** Query pairs in order, decoded to bytes, without `_token`; `value` undefined for a bare NAME. */
  readonly query: readonly { readonly name: Buffer; readonly value: Buffer | undefined }[];
  /** The `_token` query parameter, when present. */
  readonly token: string | undefined;
}

/** Splits the raw request URL (as sent, still percent-encoded). */
export function splitRawUrl(rawUrl: string): RawUrl {
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const queryText = queryAt === -1 ? '' : rawUrl.slice(queryAt + 1);
  // Spec "Endpoints > Area B": each path segment is one argument (an empty trailing segment is not).
  const segments = path.replace(/^\/+/, '').split('/');
  if (segments.length > 0 && segments.at(-1) === '') segments.pop();
  const query: { name: Buffer; value: Buffer | undefined }[] = [];
  let token: string | undefined;
  for (const part of queryText.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = decodeQueryText(equals === -1 ? part : part.slice(0, equals));
    const value = equals === -1 ? undefined : decodeQueryText(part.slice(equals + 1));
    // Spec "Authentication": `_token` in the query authenticates and is never an argument.
    if (name.equals(tokenName)) token = value?.toString('utf8') ?? '';
    else query.push({ name, value });
  }
  return { segments, query, token };
}

/** Percent-decodes one path segment to bytes; any byte value is allowed, a bad escape is refused. */
export function percentDecode(segment: string): Buffer {
  if (!segment.includes('%')) return Buffer.from(segment, 'utf8');
  const bytes: number[] = [];
  const text = Buffer.from(segment, 'utf8');
  for (let i = 0; i < text.length; i++) {
    const byte = text[i] as number;
    if (byte !== 0x25) {
      bytes.push(byte);
      continue;
    }
    const hex = text.subarray(i + 1, i + 3).toString('latin1');
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new RequestFormError(`ERR invalid percent-escape in path segment`);
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(bytes);
}

const tokenName = Buffer.from('_token');

/** A query name or value as bytes: like a path segment, any byte may be percent-escaped. */
function decodeQueryText(text: string): Buffer {
  // Query strings follow the form encoding clients produce with URLSearchParams: "+" is a space.
  return percentDecode(text.replaceAll('+', ' '));
}

export interface ArgsOptions {
  readonly percentDecoding: boolean;
  readonly bodyLast: boolean;
  readonly queryArgs: boolean;
  /** Fault plus-as-space-in-path: a raw "+" in a segment becomes a space. */
  readonly plusAsSpace?: boolean;
  /** Fault double-percent-decoding: each segment is decoded twice. */
  readonly decodeTwice?: boolean;
  /** Fault body-trailing-newline-trimmed: CR, LF and spaces at the end of the body are dropped. */
  readonly trimBody?: boolean;
}

/** A second, lenient percent-decoding of bytes already decoded (fault double-percent-decoding). */
function decodeAgain(bytes: Buffer): Buffer {
  const text = bytes
    .toString('latin1')
    .replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(text, 'latin1');
}

function trimEnd(body: Buffer): Buffer {
  let end = body.length;
  while (end > 0 && [0x0d, 0x0a, 0x20].includes(body[end - 1] as number)) end--;
  return body.subarray(0, end);
}

/** The command and its arguments for a command path: segments, then body, then query pairs. */
export function commandArgs(url: RawUrl, body: Buffer | undefined, options: ArgsOptions): Buffer[] {
  // Spec "Endpoints > Area B": the command name and arguments are path segments, in protocol order.
  const args = url.segments.map((raw) => {
    const segment = options.plusAsSpace ? raw.replaceAll('+', ' ') : raw;
    if (!options.percentDecoding) return Buffer.from(segment, 'utf8');
    return options.decodeTwice ? decodeAgain(percentDecode(segment)) : percentDecode(segment);
  });
  if (options.trimBody && body !== undefined) body = trimEnd(body);
  if (body !== undefined && body.length > 0) {
    // Spec "Endpoints > Area B": with POST the body is appended as the last argument.
    if (options.bodyLast) args.push(body);
    else args.splice(1, 0, body);
  }
  if (options.queryArgs) {
    // Spec "Endpoints > Area B": further arguments go in the query string as NAME=value.
    for (const pair of url.query) {
      args.push(pair.name);
      if (pair.value !== undefined) args.push(pair.value);
    }
  }
  return args;
}

/** One command of `POST /` or an item of /pipeline and /multi-exec: strings, numbers and booleans. */
export function jsonCommand(value: unknown, where: string, stringsOnly = false): Buffer[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new RequestFormError(`ERR ${where} must be a non-empty JSON array of strings`);
  }
  return value.map((item) => {
    if (typeof item === 'string') return Buffer.from(item, 'utf8');
    // Silence post-root-strings-only: the spec shows "command name first, then arguments", not numbers.
    if (stringsOnly) throw new RequestFormError(`ERR ${where} may hold only strings`);
    // Numbers are allowed as arguments and sent in their decimal form (notes, area B).
    if (typeof item === 'number' && Number.isFinite(item)) return Buffer.from(String(item), 'utf8');
    if (item instanceof IntegerText) return Buffer.from(item.digits, 'latin1');
    // Booleans are taken as the strings "true" and "false", as the real-world service does: its official
    // SDK sends them by design (`hset(k, {flag: false})`).
    if (typeof item === 'boolean') return Buffer.from(String(item), 'utf8');
    // Objects and arrays are a syntax error (notes, area B); so is null, which no notes show accepted.
    throw new RequestFormError(`ERR ${where} may hold only strings, numbers and booleans`);
  });
}

/** An integer literal of a JSON body too large for a JS number: its digits, as written. */
class IntegerText {
  readonly digits: string;
  constructor(digits: string) {
    this.digits = digits;
  }
}

/**
 * Keeps integers past 2^53 as their digits: a JS number would round them, and `["SET","k",
 * 12345678901234567890]` must store 12345678901234567890, not 12345678901234567000.
 */
function exactIntegers(_key: string, value: unknown, context?: { readonly source?: string }): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || context?.source === undefined) return value;
  return /^-?[1-9][0-9]*$/.test(context.source) ? new IntegerText(context.source) : value;
}

type Reviver = Parameters<typeof JSON.parse>[1];

/** Parses a JSON request body; malformed JSON is a syntax error (spec "Errors": 400). */
export function parseJsonBody(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) throw new RequestFormError('ERR the request body must be JSON');
  try {
    const text = body.toString('utf8');
    // A reviver slows every parse; only a run of 16 digits can be an integer past 2^53.
    return /[0-9]{16}/.test(text) ? JSON.parse(text, exactIntegers as Reviver) : JSON.parse(text);
  } catch {
    throw new RequestFormError('ERR the request body is not valid JSON');
  }
}

/** The commands of a /pipeline or /multi-exec body: a JSON array of arrays. */
export function jsonCommandList(body: Buffer | undefined, stringsOnly = false): Buffer[][] {
  const parsed = parseJsonBody(body);
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new RequestFormError('ERR the request body must be a non-empty JSON array of commands');
  }
  return parsed.map((command, index) => jsonCommand(command, `command ${index + 1}`, stringsOnly));
}
