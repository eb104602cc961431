/**
 * Verifying a signed request as a receiver of the real service does (the spec leaves the scheme
 * unshown; a target declares it, and `jwt-hs256` is the real-world one): a JWT (HS256) verified with
 * the current signing key, else the next; `sub` the URL the request was sent to; `body` the base64url
 * SHA-256 of the raw body, compared without `=` padding; `exp` and `nbf` with a minute of clock
 * tolerance. When neither key verifies, the reason given is the one of the key the token was meant
 * for (the key whose signature matched, with a claim that did not), or both reasons.
 */
import { createHash } from 'node:crypto';
import { errors, jwtVerify } from 'jose';

export interface SigningKeys {
  readonly current: string;
  readonly next: string;
}

type KeyName = 'current' | 'next';

export type SignatureCheck =
  | { readonly ok: true; readonly key: KeyName }
  | { readonly ok: false; readonly problem: string };

/** Why one key did not verify the token; `signed` says whether the key's signature matched. */
interface KeyFailure {
  readonly key: KeyName;
  readonly signed: boolean;
  readonly reason: string;
}

/** jose checks the signature before the claims: any other error means the key was the right one. */
function keyFailure(key: KeyName, error: unknown): KeyFailure {
  const signed = !(error instanceof errors.JWSSignatureVerificationFailed) && !(error instanceof errors.JWSInvalid);
  const reason = error instanceof Error ? error.message : String(error);
  return { key, signed, reason };
}

/** One sentence from the failures of both keys: the right key's reason, or both. */
export function neitherKeyProblem(failures: readonly KeyFailure[]): string {
  const signed = failures.filter((item) => item.signed);
  if (signed.length === 1) {
    const [only] = signed as [KeyFailure];
    return `the ${only.key} key's signature matches, but: ${only.reason}`;
  }
  const reasons = new Set(failures.map((item) => item.reason));
  if (reasons.size === 1) return `the JWT verifies with neither key (${[...reasons][0]})`;
  return `the JWT verifies with neither key (${failures.map((item) => `${item.key} key: ${item.reason}`).join('; ')})`;
}

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
  let key: KeyName = 'current';
  const failures: KeyFailure[] = [];
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
      failures.push(keyFailure(name, error));
    }
  }
  if (payload === undefined) return { ok: false, problem: neitherKeyProblem(failures) };
  if (payload.sub !== url) return { ok: false, problem: `sub is ${JSON.stringify(payload.sub)}, not the URL called` };
  const digest = createHash('sha256').update(body).digest('base64url');
  if (typeof payload.body !== 'string' || payload.body.replace(/=+$/, '') !== digest) {
    return { ok: false, problem: 'the body claim is not the SHA-256 of the body received' };
  }
  return { ok: true, key };
}
