/**
 * A key-value client over the harness's one HTTP client: every request form of spec "Endpoints >
 * Area B" built from the target and its dialect (vendor header names come from the dialect table).
 */
import {
  type Arg,
  answerCapBytes,
  answerRoom,
  type CaseContext,
  dispatcherFor,
  type HttpMethod,
  type HttpResponse,
  httpRequest,
  type JsonArg,
  type KvRequestShape,
  kvVendorHeaders,
  multiExecRequest,
  pathRequest,
  pipelineRequest,
  postBodyRequest,
  type QueryPairs,
  queryString,
  rootRequest,
  vendorHeader,
} from '../../src/suite-kit/suite-api.ts';
import { type Credentials, standard, wireCredentials } from './credentials.ts';

export type { Arg, JsonArg };

export interface KvCallOptions {
  /** @default standard token by header */
  readonly credentials?: Credentials;
  /** Value of the vendor Encoding header (`base64`); absent when undefined. */
  readonly encoding?: string;
  /** Value of the vendor Response-Format header (`json`, `resp2`, anything); absent when undefined. */
  readonly format?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  /**
   * The value bytes the answer carries when it is the one this call expects (a big value read back): its
   * read cap rises to room for them in any encoding (`answerRoom`). Without it an answer is read up to the
   * suites' cap (`judgedAnswerBytes`, 4 MiB), or the target file's `maxAnswerBytes` when it has one.
   */
  readonly largestAnswer?: number;
}

/** A request form (src/protocol) with the options of this call. */
export interface RawKvRequest extends KvCallOptions, KvRequestShape {}

export interface KvClient {
  /** `METHOD /{command}/{arg1}/…`, each argument one percent-encoded segment. */
  path(method: HttpMethod, args: readonly Arg[], options?: KvCallOptions): Promise<HttpResponse>;
  /** `POST /{command}/{args…}?NAME=value…` with `body` as the last argument before the query pairs. */
  postBody(args: readonly Arg[], body: Arg, query?: QueryPairs, options?: KvCallOptions): Promise<HttpResponse>;
  /** `POST /` with a JSON array: command name first, then its arguments. */
  root(command: readonly JsonArg[], options?: KvCallOptions): Promise<HttpResponse>;
  pipeline(commands: readonly (readonly JsonArg[])[], options?: KvCallOptions): Promise<HttpResponse>;
  multiExec(commands: readonly (readonly JsonArg[])[], options?: KvCallOptions): Promise<HttpResponse>;
  /** Any request to the kv URL: a path, query pairs, a body, the headers from the options. */
  raw(request: RawKvRequest): Promise<HttpResponse>;
  /** The full URL of `path` with the query pairs (no credentials). */
  url(path: string, query?: QueryPairs): string;
  /** Headers for the options: credentials, vendor headers, extras. */
  headers(options?: KvCallOptions): Record<string, string>;
}

export function createKvClient(ctx: CaseContext): KvClient {
  const kv = ctx.target.kv;
  if (!kv) ctx.skip('the target has no kv area.');
  const base = kv.url.replace(/\/+$/, '');

  const url = (path: string, query: QueryPairs = []) => `${base}${path}${queryString(query)}`;

  const dispatcher = dispatcherFor(ctx.target.tls);
  const headers = (options: KvCallOptions = {}) => {
    const credentials = options.credentials ?? standard;
    const wire = wireCredentials(ctx, credentials);
    // The target's own headers first (a gateway's; with the Read Only token, its readOnlyHeaders).
    const out: Record<string, string> = {
      ...kv.headers,
      ...(credentials.kind === 'read-only' && kv.readOnlyHeaders),
      ...wire.headers,
    };
    if (options.encoding !== undefined) out[vendorHeader(ctx.dialect, kvVendorHeaders.encoding)] = options.encoding;
    if (options.format !== undefined) out[vendorHeader(ctx.dialect, kvVendorHeaders.responseFormat)] = options.format;
    return { ...out, ...options.headers };
  };

  const raw = async (request: RawKvRequest) => {
    const wire = wireCredentials(ctx, request.credentials ?? standard);
    const all = headers(request);
    if (request.contentType !== undefined) all['content-type'] = request.contentType;
    // Every HTTP answer is handed to the case as it came, even one whose content type contradicts its
    // body (HTML called application/json, RESP2 called JSON): it is an answer, and the case's checks
    // fail the format rule it breaks (kv-checks jsonOf, checkContentType). Only no answer at all, or
    // bytes that are not HTTP, end a case as an error.
    const cap =
      ctx.target.maxAnswerBytes ??
      (request.largestAnswer === undefined ? undefined : Math.max(answerCapBytes(), answerRoom(request.largestAnswer)));
    return await httpRequest({
      dispatcher,
      ...(cap !== undefined && { maxAnswerBytes: cap }),
      url: url(request.path, [...(request.query ?? []), ...wire.query]),
      method: request.method,
      headers: all,
      ...(request.body !== undefined && { body: request.body }),
      ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
    });
  };

  return {
    url,
    headers,
    raw,
    path: (method, args, options = {}) => raw({ ...options, ...pathRequest(method, args) }),
    postBody: (args, body, query = [], options = {}) => raw({ ...options, ...postBodyRequest(args, body, query) }),
    root: (command, options) => raw({ ...options, ...rootRequest(command) }),
    pipeline: (commands, options) => raw({ ...options, ...pipelineRequest(commands) }),
    multiExec: (commands, options) => raw({ ...options, ...multiExecRequest(commands) }),
  };
}
