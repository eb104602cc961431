/**
 * The request forms of area B (spec "Endpoints > Area B, key-value REST"), as plain data: the path
 * form, the POST body as last argument with query arguments, `POST /`, `/pipeline`, `/multi-exec`,
 * the streams and `/publish`. No transport here: the suites' client, the benchmarks and the load
 * scenarios (on Node or on k6) send these shapes with their own HTTP client, so every one of them
 * builds a request the same way.
 */

import type { HttpMethod } from '../http-method.ts';

/** A protocol argument: text (sent as UTF-8) or exact bytes. */
export type Arg = string | Uint8Array;
/** An argument inside a JSON command (`POST /`, `/pipeline`, `/multi-exec`). */
export type JsonArg = string | number;
export type QueryPairs = readonly (readonly [string, string])[];

/** One request to the kv base URL, before credentials and vendor headers are added. */
export interface KvRequestShape {
  readonly method: HttpMethod;
  /** Already encoded, starting with `/`. */
  readonly path: string;
  /** Query pairs, encoded when the URL is built. */
  readonly query?: QueryPairs;
  readonly body?: string | Uint8Array;
  readonly contentType?: string;
}

/** A request whose body, if any, is text (every form but a POST body of bytes). */
export interface TextKvRequest extends KvRequestShape {
  readonly body?: string;
}

/** The vendor headers of area B, after the dialect's prefix (`Svc-` or `Upstash-`). */
export const kvVendorHeaders = { encoding: 'Encoding', responseFormat: 'Response-Format' } as const;

const encoder = new TextEncoder();
const unreserved = /^[A-Za-z0-9\-._~]$/;

/** Percent-encodes every byte outside the unreserved set, so any byte string is one path segment. */
export function encodeSegment(arg: Arg): string {
  const bytes = typeof arg === 'string' ? encoder.encode(arg) : arg;
  let out = '';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && unreserved.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `/{command}/{arg1}/…`, each argument one segment. */
export function commandPath(args: readonly Arg[]): string {
  return `/${args.map(encodeSegment).join('/')}`;
}

/** `?a=1&b=2` (empty without pairs). */
export function queryString(query: QueryPairs = []): string {
  const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return search ? `?${search}` : '';
}

/** `METHOD /{command}/{args…}`. */
export function pathRequest(method: HttpMethod, args: readonly Arg[]): TextKvRequest {
  return { method, path: commandPath(args) };
}

/** `POST /{command}/{args…}?NAME=value…` with `body` as the last argument before the query pairs. */
export function postBodyRequest(args: readonly Arg[], body: Arg, query: QueryPairs = []): KvRequestShape {
  return {
    method: 'POST',
    path: commandPath(args),
    query,
    body,
    contentType: typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream',
  };
}

function jsonRequest(path: string, value: unknown): TextKvRequest {
  return { method: 'POST', path, body: JSON.stringify(value), contentType: 'application/json' };
}

/** `POST /` with a JSON array: command name first, then its arguments. */
export function rootRequest(command: readonly JsonArg[]): TextKvRequest {
  return jsonRequest('/', command);
}

/** `POST /pipeline`: commands in order, not atomic. */
export function pipelineRequest(commands: readonly (readonly JsonArg[])[]): TextKvRequest {
  return jsonRequest('/pipeline', commands);
}

/** `POST /multi-exec`: commands in one transaction. */
export function multiExecRequest(commands: readonly (readonly JsonArg[])[]): TextKvRequest {
  return jsonRequest('/multi-exec', commands);
}

/** The path of `/subscribe/{channel}` (an event stream). */
export function subscribePath(channel: Arg): string {
  return `/subscribe/${encodeSegment(channel)}`;
}

/** The path of `/publish/{channel}/{message}`. */
export function publishPath(channel: Arg, message: Arg): string {
  return `/publish/${encodeSegment(channel)}/${encodeSegment(message)}`;
}
