/**
 * Verifies a request's `Svc-Signature` as a receiver of the real service does: a JWT (HS256) by the
 * current key, else the next; `sub` the URL called; `body` the base64url SHA-256 of the raw body,
 * compared without `=` padding. Answers what failed, or undefined when it holds.
 */
import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';

export interface Keys {
  readonly current: string;
  readonly next: string;
}

export async function signatureProblem(
  signature: string | undefined,
  keys: Keys,
  url: string,
  body: Buffer,
  issuer = 'Svc',
): Promise<string | undefined> {
  if (signature === undefined) return 'no signature header';
  let payload: Record<string, unknown> | undefined;
  for (const key of [keys.current, keys.next]) {
    try {
      payload = (await jwtVerify(signature, new TextEncoder().encode(key), { issuer })).payload;
      break;
    } catch {
      // the next key, then give up
    }
  }
  if (payload === undefined) return 'the JWT verifies with neither key';
  if (payload.sub !== url) return `sub ${String(payload.sub)} is not ${url}`;
  const digest = createHash('sha256').update(body).digest('base64url');
  if (String(payload.body).replace(/=+$/, '') !== digest) return 'the body claim is not the SHA-256 of the body';
  return undefined;
}
