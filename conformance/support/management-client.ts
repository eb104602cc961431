/**
 * Area C requests for the management suite (spec "Endpoints > Area C" and "Authentication"): the
 * target's management URL and headers, HTTP Basic with the target's credentials (or other ones, a raw
 * Authorization header, none), JSON bodies, the dialect's account path, and the search indexes a case
 * creates: each is named under the run and deleted after the case (DELETE /v2/search/{id}, which the
 * real service has and the spec does not show: its answer is only recorded).
 */
import { randomBytes } from 'node:crypto';
import {
  type CaseContext,
  dispatcherFor,
  type HttpMethod,
  type HttpResponse,
  httpRequest,
  jsonBody,
} from '../../src/suite-kit/suite-api.ts';
import { isRecord } from './management-checks.ts';

/**
 * Which credentials a request carries: the target's (`basic`), none, other Basic credentials, or an
 * Authorization header as given (another scheme, a malformed value).
 */
export type ManagementAuth =
  | 'basic'
  | 'none'
  | { readonly username: string; readonly password: string }
  | { readonly authorization: string };

export interface ManagementRequest {
  /** @default 'GET' */
  readonly method?: HttpMethod;
  /** An object is sent as JSON; a string as it is. */
  readonly body?: string | object;
  /** @default 'basic' */
  readonly auth?: ManagementAuth;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ManagementClient {
  /** The dialect's account path (`/v2/svc/user`, `/v2/qstash/user`). */
  readonly accountPath: string;
  call(path: string, request?: ManagementRequest): Promise<HttpResponse>;
  /** `POST /v2/search` with this body. */
  createIndex(body: string | object, auth?: ManagementAuth): Promise<HttpResponse>;
  /** `GET /v2/search/{id}`. */
  getIndex(id: string, auth?: ManagementAuth): Promise<HttpResponse>;
  /** `GET` of the dialect's account path. */
  account(auth?: ManagementAuth): Promise<HttpResponse>;
}

/** A password no target issues: used as the wrong one. */
export const wrongPassword = 'svch-wrong-api-key-00000000000000000000';
/** A user name no target has. */
export const wrongUsername = 'svch-nobody@example.invalid';

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

export function createManagementClient(ctx: CaseContext): ManagementClient {
  const management = ctx.target.management;
  if (management === undefined) ctx.skip('the target has no management area.');
  const base = management.url.replace(/\/+$/, '');
  const dispatcher = dispatcherFor(ctx.target.tls);

  const authorization = (auth: ManagementAuth): string | undefined => {
    if (auth === 'basic') return basic(management.username, management.password);
    if (auth === 'none') return undefined;
    if ('authorization' in auth) return auth.authorization;
    return basic(auth.username, auth.password);
  };

  const call = async (path: string, request: ManagementRequest = {}): Promise<HttpResponse> => {
    const value = authorization(request.auth ?? 'basic');
    // The target's own headers first (a gateway's), without any Authorization of theirs: the case decides it.
    const headers: Record<string, string> = Object.fromEntries(
      Object.entries(management.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'authorization'),
    );
    if (value !== undefined) headers.authorization = value;
    if (request.body !== undefined && typeof request.body !== 'string') headers['content-type'] = 'application/json';
    const body =
      request.body === undefined || typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    // Every HTTP answer reaches the case as it came: one that calls itself JSON and is not fails the
    // rule of the object it should have been (objectAnswer), never an infrastructure error.
    return httpRequest({
      url: `${base}${path}`,
      method: request.method ?? 'GET',
      dispatcher,
      ...(ctx.target.maxAnswerBytes !== undefined && { maxAnswerBytes: ctx.target.maxAnswerBytes }),
      headers: { ...headers, ...request.headers },
      ...(body !== undefined && { body }),
    });
  };

  return {
    accountPath: ctx.dialect.accountPath,
    call,
    createIndex: (body, auth = 'basic') => call('/v2/search', { method: 'POST', body, auth }),
    getIndex: (id, auth = 'basic') => call(`/v2/search/${encodeURIComponent(id)}`, { auth }),
    account: (auth = 'basic') => call(ctx.dialect.accountPath, { auth }),
  };
}

/**
 * A name for an index this case creates: `svch-<run id>-<random>`, letters, digits and hyphens only
 * (index names may have to be simple), unique per run and case, recognisable as the harness's.
 */
export function indexName(ctx: CaseContext): string {
  const run = (ctx.keyPrefix.split(':')[1] ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 8);
  return `svch-${run || 'run'}-${randomBytes(3).toString('hex')}`;
}

/**
 * When an answer carries an index id (a created index, or one a target created where it should have
 * refused), deletes that index after the case with the target's credentials: a shared target must not
 * fill up. The spec shows no delete; its status is recorded, never judged. Returns the id, if any.
 */
export function deleteAfterCase(ctx: CaseContext, client: ManagementClient, res: HttpResponse): string | undefined {
  const body = jsonBody(res);
  const id = isRecord(body) && typeof body.id === 'string' && body.id !== '' ? body.id : undefined;
  if (id === undefined) return undefined;
  ctx.onCleanup(async () => {
    const deleted = await client.call(`/v2/search/${encodeURIComponent(id)}`, { method: 'DELETE' });
    ctx.observe(`cleanup: DELETE /v2/search/{id} (not in the spec) answered status ${deleted.status}`);
  });
  return id;
}
