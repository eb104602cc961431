/**
 * Redis replies as area B answers them: JSON (with optional base64 and UTF-8 replacement) or raw RESP2.
 * Replies arrive from @redis/client with simple strings as JS strings and bulk strings as Buffers,
 * so the two stay distinct (the OK rule of base64 and the RESP2 bytes both depend on it). Integers
 * arrive as their digits, also JS strings (redis-connections.ts `exactTypes`), so every 64-bit value
 * stays exact; a simple string of digits alone is read as an integer, as no Redis command answers one
 * (only a script's `status_reply` could).
 */
import { ErrorReply } from '@redis/client';

/** A RESP2 reply: simple string or integer digits, bulk string, integer, nil, error, or array of those. */
export type RedisReply = string | Buffer | number | null | ErrorReply | readonly RedisReply[];

/** An integer past 2^53 in JSON: its digits written as they are (`JSON.rawJSON`). */
export interface RawJsonInteger {
  readonly rawJSON: string;
}

export type JsonReply = string | number | null | RawJsonInteger | JsonReply[] | { readonly error: string };

const integerDigits = /^-?[0-9]+$/;

// ES2026, in Node since 21; not yet in the es2023 lib this project types against.
const rawJson = (JSON as unknown as { rawJSON(text: string): RawJsonInteger }).rawJSON;

/** An integer reply as a JSON value: a number while that is exact, else its digits verbatim. */
function jsonInteger(digits: string): number | RawJsonInteger {
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : rawJson(digits);
}

export interface JsonReplyOptions {
  readonly base64: boolean;
  /** Fault base64-encodes-ok: encode the OK simple string too. */
  readonly base64Ok: boolean;
  /** Fault no-utf8-replacement: decode as Latin-1. */
  readonly latin1: boolean;
  /** Silence nested-integers-as-strings: an integer inside an array written as its decimal string. */
  readonly nestedIntegersAsStrings?: boolean;
  /** Silence utf8-replacement-per-byte: one U+FFFD per invalid byte. */
  readonly replacePerByte?: boolean;
  /** Fault base64-top-level-only: strings inside nested arrays stay plain. */
  readonly base64TopOnly?: boolean;
  /** Fault utf8-replacement-top-level-only: strings inside nested arrays are read as Latin-1. */
  readonly latin1Nested?: boolean;
  /** Fault big-integers-rounded: integers past 2^53 become rounded numbers. */
  readonly roundBigIntegers?: boolean;
  /** Fault base64-skips-ok-values: strings equal to "OK" stay plain under base64, values too. */
  readonly base64OkValues?: boolean;
  /** Fault digit-values-as-integers: a string reply of digits (not inside an array) becomes a JSON integer. */
  readonly digitsAsIntegers?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function text(bytes: Buffer, options: JsonReplyOptions): string {
  // Spec "Endpoints > Area B" rule 1: invalid UTF-8 becomes U+FFFD unless base64 is asked for.
  if (options.latin1) return bytes.toString('latin1');
  return options.replacePerByte ? replacedPerByte(bytes) : utf8.decode(bytes);
}

const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * Silence utf8-replacement-per-byte: one U+FFFD for each byte that starts no valid sequence (a
 * truncated three-byte sequence gives two), where a WHATWG decoder gives one per maximal subpart.
 */
function replacedPerByte(bytes: Buffer): string {
  if (!/[\x80-\xff]/.test(bytes.toString('latin1'))) return bytes.toString('utf8');
  let out = '';
  let at = 0;
  while (at < bytes.length) {
    let length = 0;
    for (let size = 1; size <= 4 && at + size <= bytes.length; size++) {
      try {
        const char = strict.decode(bytes.subarray(at, at + size));
        if ([...char].length === 1) {
          length = size;
          break;
        }
      } catch {
        // not a whole sequence of this size
      }
    }
    if (length === 0) {
      out += '\uFFFD';
      at += 1;
    } else {
      out += bytes.subarray(at, at + length).toString('utf8');
      at += length;
    }
  }
  return out;
}

/** One reply as the JSON value of `result` (errors nested in arrays become {error}). */
export function toJsonReply(reply: RedisReply, options: JsonReplyOptions, depth = 0): JsonReply {
  // Silence nested-integers-as-strings: the spec's arrays hold strings and nulls; a mixed reply's
  // integers as strings is another JSON form of it (B.observe.nested-json).
  if (typeof reply === 'number' && depth > 0 && options.nestedIntegersAsStrings) return String(reply);
  if (reply === null || typeof reply === 'number') return reply;
  if (depth === 2 && (options.base64TopOnly || options.latin1Nested)) {
    // The faults that stop at the top level (a reply and the items of a flat array): inside a nested
    // array the rules they break apply no longer.
    options = {
      ...options,
      base64: options.base64 && !options.base64TopOnly,
      latin1: options.latin1 || options.latin1Nested === true,
    };
  }
  if (typeof reply === 'string') {
    if (integerDigits.test(reply)) {
      // Silence nested-integers-as-strings (integers come from the client as their digits).
      if (depth > 0 && options.nestedIntegersAsStrings) return reply;
      return options.roundBigIntegers ? Number(reply) : jsonInteger(reply);
    }
    // Spec "Endpoints > Area B" (Svc-Encoding): every string is base64 except the OK response.
    if (!options.base64 || (reply === 'OK' && !options.base64Ok)) return reply;
    return Buffer.from(reply, 'utf8').toString('base64');
  }
  if (Buffer.isBuffer(reply)) {
    // The sniffing of fault digit-values-as-integers looks at a whole answer only, not into arrays.
    if (options.digitsAsIntegers && depth === 0 && reply.length < 16 && integerDigits.test(reply.toString('latin1'))) {
      return Number(reply.toString('latin1'));
    }
    if (options.base64 && options.base64OkValues && reply.toString('latin1') === 'OK') return 'OK';
    return options.base64 ? reply.toString('base64') : text(reply, options);
  }
  if (reply instanceof ErrorReply) return { error: reply.message };
  return (reply as readonly RedisReply[]).map((item) => toJsonReply(item, options, depth + 1));
}

/**
 * One reply as its RESP2 bytes, simple and bulk strings kept apart (`flatten`: fault
 * resp2-flattens-nested; `okAsSimple`: fault resp2-ok-values-simple).
 */
export function toResp2(reply: RedisReply, flatten = false, okAsSimple = false): Buffer {
  const chunks: Buffer[] = [];
  writeResp2(flatten && Array.isArray(reply) ? leaves(reply) : reply, chunks, okAsSimple);
  return Buffer.concat(chunks);
}

function leaves(reply: readonly RedisReply[]): RedisReply[] {
  return reply.flatMap((item) => (Array.isArray(item) ? leaves(item) : [item as RedisReply]));
}

function writeResp2(reply: RedisReply, out: Buffer[], okAsSimple = false): void {
  if (reply === null) out.push(Buffer.from('$-1\r\n'));
  else if (typeof reply === 'number') out.push(Buffer.from(`:${reply}\r\n`));
  else if (typeof reply === 'string') {
    out.push(Buffer.from(`${integerDigits.test(reply) ? ':' : '+'}${reply}\r\n`, 'utf8'));
  } else if (Buffer.isBuffer(reply)) {
    const shown = reply.toString('latin1');
    if (okAsSimple && (shown === 'OK' || shown === 'PONG')) out.push(Buffer.from(`+${shown}\r\n`));
    else out.push(Buffer.from(`$${reply.length}\r\n`), reply, Buffer.from('\r\n'));
  } else if (reply instanceof ErrorReply) out.push(Buffer.from(`-${reply.message}\r\n`, 'utf8'));
  else {
    const items = reply as readonly RedisReply[];
    out.push(Buffer.from(`*${items.length}\r\n`));
    for (const item of items) writeResp2(item, out, okAsSimple);
  }
}

/** An error text as a RESP2 error line. */
export function errorResp2(message: string): Buffer {
  return Buffer.from(`-${message.replace(/[\r\n]+/g, ' ')}\r\n`, 'utf8');
}
