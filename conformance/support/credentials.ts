/**
 * The credential variants a key-value request can carry (spec "Authentication", area B): the Standard
 * token by header or by `_token`, the Read Only token, none, a wrong one, or a token a case obtained.
 */
import type { CaseContext } from '../../src/suite-kit/suite-api.ts';

export type CredentialKind = 'bearer' | 'query' | 'read-only' | 'none' | 'wrong';

export type Credentials =
  | { readonly kind: CredentialKind }
  /** A token the case obtained (ACL RESTTOKEN, a password reset), sent as a header or as `_token`. */
  | { readonly kind: 'token'; readonly token: string; readonly via: 'header' | 'query' };

export const standard: Credentials = { kind: 'bearer' };

/** A token no target issues: long, random-looking, and never a real secret. */
export const wrongToken = 'svch-wrong-token-0000000000000000000000000000';

export interface WireCredentials {
  readonly headers: Record<string, string>;
  readonly query: readonly (readonly [string, string])[];
}

/** Headers and query pairs for the credentials; throws a skip when the target lacks the token. */
export function wireCredentials(ctx: CaseContext, credentials: Credentials): WireCredentials {
  const kv = ctx.target.kv;
  if (!kv) ctx.skip('the target has no kv area.');
  const bearer = (token: string): WireCredentials => ({ headers: { authorization: `Bearer ${token}` }, query: [] });
  switch (credentials.kind) {
    case 'bearer':
      return bearer(kv.token);
    case 'query':
      return { headers: {}, query: [['_token', kv.token]] };
    case 'read-only':
      if (!kv.readOnlyToken) ctx.skip('the target has no read-only token (kv.readOnlyToken).');
      return bearer(kv.readOnlyToken);
    case 'none':
      return { headers: {}, query: [] };
    case 'wrong':
      return bearer(wrongToken);
    case 'token':
      return credentials.via === 'header'
        ? bearer(credentials.token)
        : { headers: {}, query: [['_token', credentials.token]] };
  }
}
