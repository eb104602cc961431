/** Spec "Authentication", area B: a REST token by `Authorization: Bearer` or the `_token` query parameter. */
import type { KvFaultCheck } from './kv-fault-check.ts';
import type { KvTokens, Principal } from './kv-tokens.ts';

export const unauthorizedError = 'WRONGPASS invalid or missing auth token';

/** Who the request runs as, or undefined for 401. */
export function authenticate(
  authorization: string | undefined,
  queryToken: string | undefined,
  tokens: KvTokens,
  fault: KvFaultCheck,
): Principal | undefined {
  const bearer = fault('bearer-ignored') ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const query = fault('query-token-ignored') ? undefined : queryToken;
  const token = bearer ?? query;
  if (bearer === undefined && token !== undefined && token !== '' && fault('query-token-unchecked')) {
    return { kind: 'standard' };
  }
  // Spec "Authentication": a missing or invalid token gives 401.
  if (token === undefined || token === '') return fault('missing-token-allowed') ? { kind: 'standard' } : undefined;
  return tokens.resolve(token) ?? (fault('any-token-allowed') ? { kind: 'standard' } : undefined);
}
