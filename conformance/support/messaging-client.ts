/**
 * Area A requests for the messaging suite: the target's base URL and headers, Bearer authentication
 * (or the dialect's token query parameter, a wrong token, none), raw or JSON bodies, and the
 * dialect's header names (`h('Callback')` is `Svc-Callback` or `Upstash-Callback`).
 */
import type { CaseContext } from '../../src/engines/conformance/conformance-case.ts';
import { dispatcherFor, type HttpResponse, httpRequest } from '../../src/http/http-client.ts';
import type { HttpMethod } from '../../src/protocol/http-method.ts';
import { vendorHeader } from '../../src/target/dialects.ts';

export type MessagingAuth = 'bearer' | 'query' | 'none' | 'wrong';

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
}

/** A token no target issues, in the JWT format the spec's tokens have. */
const wrongToken = 'eyJhbGciOiJIUzI1NiJ9.eyJ3cm9uZyI6dHJ1ZX0.c3ZjLWhhcm5lc3Mtd3JvbmctdG9rZW4';

export function createMessagingClient(ctx: CaseContext): MessagingClient {
  const messaging = ctx.target.messaging;
  if (messaging === undefined) ctx.skip('the target has no messaging area.');
  const baseUrl = messaging.url.replace(/\/+$/, '');
  const dispatcher = dispatcherFor(ctx.target.tls);
  return {
    baseUrl,
    h: (suffix) => vendorHeader(ctx.dialect, suffix),
    async call(path, request = {}) {
      const auth = request.auth ?? 'bearer';
      const body =
        request.body === undefined || typeof request.body === 'string' || request.body instanceof Uint8Array
          ? request.body
          : JSON.stringify(request.body);
      const query =
        auth === 'query'
          ? `${path.includes('?') ? '&' : '?'}${ctx.dialect.messagingTokenQuery}=${encodeURIComponent(messaging.token)}`
          : '';
      return httpRequest({
        url: `${baseUrl}${path}${query}`,
        method: request.method ?? 'POST',
        dispatcher,
        headers: {
          ...messaging.headers,
          ...(auth === 'bearer' && { authorization: `Bearer ${messaging.token}` }),
          ...(auth === 'wrong' && { authorization: `Bearer ${wrongToken}` }),
          ...(typeof request.body === 'object' &&
            !(request.body instanceof Uint8Array) && { 'content-type': 'application/json' }),
          ...request.headers,
        },
        ...(body !== undefined && { body }),
      });
    },
  };
}
