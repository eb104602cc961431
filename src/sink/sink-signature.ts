/**
 * Verifying a signed request as a receiver of the real service does (the spec leaves the scheme
 * unshown; the dialect's signature header carries it): a JWT (HS256) verified with the current
 * signing key, else the next; `sub` the URL the request was sent to; `body` the base64url SHA-256 of
 * the raw body, compared without `=` padding; `exp` and `nbf` with a minute of clock tolerance.
 */
import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';

export interface SigningKeys {
  readonly current: string;
  readonly next: string;
}

export type SignatureCheck =
  | { readonly ok: true; readonly key: 'current' | 'next' }
  | { readonly ok: false; readonly problem: string };

/**
 * `issuer`: the `iss` the JWT must carry. The sink asks for none (the spec names no issuer); a test of
 * one implementation may ask for its own.
 */
export async function checkSignature(
  signature: string | undefined,
  keys: SigningKeys | undefined,
  url: string,
  body: Uint8Array,
  issuer?: string,
): Promise<SignatureCheck> {
  if (keys === undefined) return { ok: false, problem: 'no signing keys to verify with' };
  if (signature === undefined || signature === '') return { ok: false, problem: 'no signature header' };
  let payload: Record<string, unknown> | undefined;
  let key: 'current' | 'next' = 'current';
  let failure = '';
  for (const [name, value] of [
    ['current', keys.current],
    ['next', keys.next],
  ] as const) {
    try {
      const options = { clockTolerance: 60, ...(issuer !== undefined && { issuer }) };
      payload = (await jwtVerify(signature, new TextEncoder().encode(value), options)).payload;
      key = name;
      break;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  }
  if (payload === undefined) return { ok: false, problem: `the JWT verifies with neither key (${failure})` };
  if (payload.sub !== url) return { ok: false, problem: `sub is ${JSON.stringify(payload.sub)}, not the URL called` };
  const digest = createHash('sha256').update(body).digest('base64url');
  if (typeof payload.body !== 'string' || payload.body.replace(/=+$/, '') !== digest) {
    return { ok: false, problem: 'the body claim is not the SHA-256 of the body received' };
  }
  return { ok: true, key };
}
