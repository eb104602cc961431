/**
 * Area A requests for the messaging suite: the target's base URL and headers, Bearer authentication
 * (or the dialect's token query parameter, a wrong token, none), raw or JSON bodies, and the
 * dialect's header names (`h('Callback')` is `Svc-Callback` or `Upstash-Callback`).
 */
import {
  type CaseContext,
  dispatcherFor,
  type HttpMethod,
  type HttpResponse,
  httpRequest,
  vendorHeader,
} from '../../src/suite-kit/suite-api.ts';

/**
 * How a request authenticates: the token as Bearer or in the query parameter; or credentials a
 * target must refuse: none, a wrong Bearer token, `Bearer` alone, the right token under another
 * scheme, a wrong token in the query parameter.
 */
export type MessagingAuth = 'bearer' | 'query' | 'none' | 'wrong' | 'bearer-alone' | 'other-scheme' | 'wrong-query';

/** The credentials a target must refuse, each with how a received text names it. */
export const refusedCredentials = {
  none: 'no credentials',
  wrong: 'a wrong Bearer token',
  'bearer-alone': '"Bearer" alone',
  'other-scheme': 'the token under the Token scheme',
  'wrong-query': 'a wrong token in the query parameter',
} as const satisfies Partial<Record<MessagingAuth, string>>;

export type RefusedCredential = keyof typeof refusedCredentials;

export interface MessagingRequest {
  readonly method?: HttpMethod;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | object;
  /** @default 'bearer' */
  readonly auth?: MessagingAuth;
}

export interface MessagingClient {
  readonly baseUrl: string;
  /** The dialect's name of a vendor header: `h('Callback')`. */
  h(suffix: string): string;
  call(path: string, request?: MessagingRequest): Promise<HttpResponse>;
  /** The headers `call` sends for this request (the target's, the credentials', the case's). */
  headersOf(request?: MessagingRequest): Record<string, string>;
}

/** A token no target issues, in the JWT format the spec's tokens have. */
const wrongToken = 'eyJhbGciOiJIUzI1NiJ9.eyJ3cm9uZyI6dHJ1ZX0.c3ZjLWhhcm5lc3Mtd3JvbmctdG9rZW4';

/** A client of the target's area A; `baseUrl` picks another of its base URLs (a region's). */
export function createMessagingClient(ctx: CaseContext, options: { readonly baseUrl?: string } = {}): MessagingClient {
  const messaging = ctx.target.messaging;
  if (messaging === undefined) ctx.skip('the target has no messaging area.');
  const baseUrl = (options.baseUrl ?? messaging.url).replace(/\/+$/, '');
  const dispatcher = dispatcherFor(ctx.target.tls);
  const headersOf = (request: MessagingRequest = {}): Record<string, string> => {
    const auth = request.auth ?? 'bearer';
    return {
      ...messaging.headers,
      ...(auth === 'bearer' && { authorization: `Bearer ${messaging.token}` }),
      ...(auth === 'wrong' && { authorization: `Bearer ${wrongToken}` }),
      ...(auth === 'bearer-alone' && { authorization: 'Bearer' }),
      ...(auth === 'other-scheme' && { authorization: `Token ${messaging.token}` }),
      ...(typeof request.body === 'object' &&
        !(request.body instanceof Uint8Array) && { 'content-type': 'application/json' }),
      ...request.headers,
    };
  };
  return {
    baseUrl,
    h: (suffix) => vendorHeader(ctx.dialect, suffix),
    headersOf,
    async call(path, request = {}) {
      const auth = request.auth ?? 'bearer';
      const body =
        request.body === undefined || typeof request.body === 'string' || request.body instanceof Uint8Array
          ? request.body
          : JSON.stringify(request.body);
      const queryToken = auth === 'query' ? messaging.token : auth === 'wrong-query' ? wrongToken : undefined;
      const query =
        queryToken === undefined
          ? ''
          : `${path.includes('?') ? '&' : '?'}${ctx.dialect.messagingTokenQuery}=${encodeURIComponent(queryToken)}`;
      return httpRequest({
        url: `${baseUrl}${path}${query}`,
        method: request.method ?? 'POST',
        dispatcher,
        headers: headersOf(request),
        ...(body !== undefined && { body }),
      });
    },
  };
}
