/**
 * Auth relaxed: a request with no credentials, wrong ones or the read-only token reaches the target
 * with the standard credentials, so the target "accepts" what it should refuse. Credentials are the
 * Authorization header (Bearer or Basic) or a query parameter whose name ends in `token`.
 */
import type { Area, RequestMessage } from '../exchange.ts';
import type { MutationContext, Operator, RequestOutcome, TargetCredentials } from '../operator.ts';

type Given =
  | { readonly kind: 'none' }
  | { readonly kind: 'header' | 'query'; readonly value: string; readonly name: string };

const queryToken = /([?&])([^=&]*token)=([^&]*)/i;

function given(request: RequestMessage): Given {
  const header = request.headers.authorization;
  if (header !== undefined) return { kind: 'header', name: 'authorization', value: header };
  const match = queryToken.exec(request.path);
  if (match) return { kind: 'query', name: match[2] as string, value: decodeURIComponent(match[3] as string) };
  return { kind: 'none' };
}

function standardHeader(area: Area, credentials: TargetCredentials): string | undefined {
  if (area === 'kv' && credentials.kv) return `Bearer ${credentials.kv.token}`;
  if (area === 'messaging' && credentials.messaging) return `Bearer ${credentials.messaging.token}`;
  if (area === 'management' && credentials.management) {
    const { username, password } = credentials.management;
    return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }
  return undefined;
}

function standardToken(area: Area, credentials: TargetCredentials): string | undefined {
  if (area === 'kv') return credentials.kv?.token;
  if (area === 'messaging') return credentials.messaging?.token;
  return undefined;
}

/** The request with the standard credentials in place of what it carried. */
function withStandard(request: RequestMessage, found: Given, context: MutationContext): RequestMessage | undefined {
  const header = standardHeader(context.area, context.credentials);
  if (header === undefined) return undefined;
  if (found.kind === 'query') {
    const token = standardToken(context.area, context.credentials);
    if (token === undefined) return undefined;
    const path = request.path.replace(
      queryToken,
      (_all, lead: string, name: string) => `${lead}${name}=${encodeURIComponent(token)}`,
    );
    return { ...request, path };
  }
  return { ...request, headers: { ...request.headers, authorization: header } };
}

type Judge = (found: Given, context: MutationContext) => boolean;

function isStandard(found: Given, context: MutationContext): boolean {
  if (found.kind === 'none') return false;
  if (found.kind === 'header') return found.value === standardHeader(context.area, context.credentials);
  return found.value === standardToken(context.area, context.credentials);
}

function isReadOnly(found: Given, context: MutationContext): boolean {
  const readOnly = context.credentials.kv?.readOnlyToken;
  if (context.area !== 'kv' || readOnly === undefined || found.kind === 'none') return false;
  return found.kind === 'header' ? found.value === `Bearer ${readOnly}` : found.value === readOnly;
}

function authOperator(id: string, what: string, judge: Judge): Operator {
  return {
    id: `auth.${id}`,
    family: 'auth',
    sides: ['front'],
    what,
    async request(request, context): Promise<RequestOutcome | undefined> {
      const found = given(request);
      if (!judge(found, context)) return undefined;
      const changed = withStandard(request, found, context);
      return changed ? { request: changed } : undefined;
    },
  };
}

export const authOperators: readonly Operator[] = [
  authOperator(
    'missing-accepted',
    'a request without credentials treated as standard',
    (found) => found.kind === 'none',
  ),
  authOperator(
    'wrong-accepted',
    'a request with wrong credentials treated as standard',
    (found, context) => found.kind !== 'none' && !isStandard(found, context) && !isReadOnly(found, context),
  ),
  authOperator('read-only-as-standard', 'the read-only token treated as the standard one', isReadOnly),
];
