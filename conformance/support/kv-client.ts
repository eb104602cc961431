/**
 * A key-value client over the harness's one HTTP client: every request form of spec "Endpoints >
 * Area B" built from the target and its dialect (vendor header names come from the dialect table).
 */
import type { CaseContext } from '../../src/engines/conformance/conformance-case.ts';
import { type HttpMethod, type HttpResponse, httpRequest } from '../../src/http/http-client.ts';
import { vendorHeader } from '../../src/target/dialects.ts';
import { type Credentials, standard, wireCredentials } from './credentials.ts';

/** A protocol argument: text (sent as UTF-8) or exact bytes. */
export type Arg = string | Uint8Array;
export type JsonArg = string | number;

export interface KvCallOptions {
  /** @default standard token by header */
  readonly credentials?: Credentials;
  /** Value of the vendor Encoding header (`base64`); absent when undefined. */
  readonly encoding?: string;
  /** Value of the vendor Response-Format header (`json`, `resp2`, anything); absent when undefined. */
  readonly format?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

export interface RawKvRequest extends KvCallOptions {
  readonly method: HttpMethod;
  /** Path after the kv base URL, already encoded, starting with `/`. */
  readonly path: string;
  /** Query pairs (names and values are encoded here). */
  readonly query?: readonly (readonly [string, string])[];
  readonly body?: string | Uint8Array;
  readonly contentType?: string;
}

export interface KvClient {
  /** `METHOD /{command}/{arg1}/…`, each argument one percent-encoded segment. */
  path(method: HttpMethod, args: readonly Arg[], options?: KvCallOptions): Promise<HttpResponse>;
  /** `POST /{command}/{args…}?NAME=value…` with `body` as the last argument before the query pairs. */
  postBody(
    args: readonly Arg[],
    body: Arg,
    query?: readonly (readonly [string, string])[],
    options?: KvCallOptions,
  ): Promise<HttpResponse>;
  /** `POST /` with a JSON array: command name first, then its arguments. */
  root(command: readonly JsonArg[], options?: KvCallOptions): Promise<HttpResponse>;
  pipeline(commands: readonly (readonly JsonArg[])[], options?: KvCallOptions): Promise<HttpResponse>;
  multiExec(commands: readonly (readonly JsonArg[])[], options?: KvCallOptions): Promise<HttpResponse>;
  /** Any request to the kv URL: a path, query pairs, a body, the headers from the options. */
  raw(request: RawKvRequest): Promise<HttpResponse>;
  /** The full URL of `path` with the query pairs (no credentials). */
  url(path: string, query?: readonly (readonly [string, string])[]): string;
  /** Headers for the options: credentials, vendor headers, extras. */
  headers(options?: KvCallOptions): Record<string, string>;
}

const unreserved = /^[A-Za-z0-9\-._~]$/;

/** Percent-encodes every byte outside the unreserved set, so any byte string is one path segment. */
export function encodeSegment(arg: Arg): string {
  const bytes = typeof arg === 'string' ? Buffer.from(arg, 'utf8') : Buffer.from(arg);
  let out = '';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && unreserved.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function createKvClient(ctx: CaseContext): KvClient {
  const kv = ctx.target.kv;
  if (!kv) ctx.skip('the target has no kv area.');
  const base = kv.url.replace(/\/+$/, '');

  const url = (path: string, query: readonly (readonly [string, string])[] = []) => {
    const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
    return `${base}${path}${search ? `?${search}` : ''}`;
  };

  const headers = (options: KvCallOptions = {}) => {
    const wire = wireCredentials(ctx, options.credentials ?? standard);
    const out: Record<string, string> = { ...wire.headers };
    if (options.encoding !== undefined) out[vendorHeader(ctx.dialect, 'Encoding')] = options.encoding;
    if (options.format !== undefined) out[vendorHeader(ctx.dialect, 'Response-Format')] = options.format;
    return { ...out, ...options.headers };
  };

  const raw = (request: RawKvRequest) => {
    const wire = wireCredentials(ctx, request.credentials ?? standard);
    const all = headers(request);
    if (request.contentType !== undefined) all['content-type'] = request.contentType;
    return httpRequest({
      url: url(request.path, [...(request.query ?? []), ...wire.query]),
      method: request.method,
      headers: all,
      ...(request.body !== undefined && { body: request.body }),
      ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
    });
  };

  const commandPath = (args: readonly Arg[]) => `/${args.map(encodeSegment).join('/')}`;
  const json = (method: HttpMethod, path: string, value: unknown, options: KvCallOptions = {}) =>
    raw({ ...options, method, path, body: JSON.stringify(value), contentType: 'application/json' });

  return {
    url,
    headers,
    raw,
    path: (method, args, options = {}) => raw({ ...options, method, path: commandPath(args) }),
    postBody: (args, body, query = [], options = {}) =>
      raw({
        ...options,
        method: 'POST',
        path: commandPath(args),
        query,
        body: typeof body === 'string' ? body : Buffer.from(body),
        contentType: typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      }),
    root: (command, options) => json('POST', '/', command, options),
    pipeline: (commands, options) => json('POST', '/pipeline', commands, options),
    multiExec: (commands, options) => json('POST', '/multi-exec', commands, options),
  };
}
