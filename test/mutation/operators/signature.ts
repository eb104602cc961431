/**
 * The delivery side's signature: a JWT (HS256) in the `<vendor>-Signature` header. Operators that
 * change a signed request re-sign it with the target's own key (read from the reference's admin hook),
 * as a target with that bug would: the token verifies, only its claims are wrong.
 */
import { createHash, createHmac } from 'node:crypto';
import { decodeJwt, type JWTPayload, SignJWT } from 'jose';
import type { Headers, RequestMessage } from '../exchange.ts';
import type { MutationContext } from '../operator.ts';

export function signatureHeader(headers: Headers): string | undefined {
  return Object.keys(headers).find((name) => name.endsWith('-signature'));
}

export function claimsOf(token: string): JWTPayload | undefined {
  try {
    return decodeJwt(token);
  } catch {
    return undefined;
  }
}

/** The key that signed `token`, else the first key (the current one). */
function keyFor(token: string, keys: readonly string[]): string | undefined {
  const [header, payload, signature] = token.split('.');
  const signs = (key: string) =>
    createHmac('sha256', Buffer.from(key, 'utf8')).update(`${header}.${payload}`).digest('base64url') === signature;
  return keys.find(signs) ?? keys[0];
}

export function bodyClaim(body: Buffer): string {
  return createHash('sha256').update(body).digest('base64url');
}

/**
 * The request with its signature re-signed with the target's key over `change(claims)`; undefined when
 * the request carries no decodable signature or there is no key.
 */
export async function resigned(
  request: RequestMessage,
  context: MutationContext,
  change: (claims: JWTPayload) => JWTPayload,
): Promise<RequestMessage | undefined> {
  const name = signatureHeader(request.headers);
  const token = name ? request.headers[name] : undefined;
  const claims = token ? claimsOf(token) : undefined;
  if (!name || !token || !claims) return undefined;
  const key = keyFor(token, await context.signingKeys());
  if (key === undefined) return undefined;
  const signed = await new SignJWT(change(claims))
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(key));
  return { ...request, headers: { ...request.headers, [name]: signed } };
}

/** A changed body with its signature's `body` claim made to match, as a target signing what it sends. */
export async function withBody(
  request: RequestMessage,
  body: Buffer,
  context: MutationContext,
): Promise<RequestMessage> {
  const changed = { ...request, body };
  return (await resigned(changed, context, (claims) => ({ ...claims, body: bodyClaim(body) }))) ?? changed;
}
