/**
 * Verifying a signed request as a receiver of the real service does (the spec leaves the scheme
 * unshown; a target declares it, and `jwt-hs256` is the real-world one): a JWT (HS256) verified with
 * the current signing key, else the next; `sub` the URL the request was sent to; `body` the base64url
 * SHA-256 of the raw body, compared without `=` padding; `exp` and `nbf` with a minute of clock
 * tolerance. When neither key verifies, the reason given is the one of the key the token was meant
 * for (the key whose signature matched, with a claim that did not), or both reasons.
 *
 * jose alone would cost about as much per request as the sink's HTTP parsing, several times over
 * (WebCrypto, a key import per call): under load that would make the sink, not the target, the
 * bottleneck. So a token first goes through `quickClaims`, node:crypto's HMAC on cached key
 * objects, which only ever says "valid" for a plain HS256 token whose claims jose would accept too;
 * anything else (a wrong signature, an odd header, a claim out of range) goes to jose, whose reasons
 * the reports give.
 */
import { createHmac, createSecretKey, hash, type KeyObject, timingSafeEqual } from 'node:crypto';
import { errors, jwtVerify } from 'jose';

export interface SigningKeys {
  readonly current: string;
  readonly next: string;
}

type KeyName = 'current' | 'next';

export type SignatureCheck =
  | { readonly ok: true; readonly key: KeyName }
  | { readonly ok: false; readonly problem: string };

/** A check with the token's claims when it verified (the `jti`, for replay checks). */
export type ClaimedCheck = SignatureCheck & { readonly claims?: Readonly<Record<string, unknown>> };

/** jose's clock tolerance, in seconds, for `exp` and `nbf`. */
const clockTolerance = 60;

/** Each key set's keys as KeyObjects, made once: an HMAC over raw key bytes costs ~7× one over a KeyObject. */
const keyObjects = new WeakMap<SigningKeys, readonly [KeyObject, KeyObject]>();

function keyObjectsOf(keys: SigningKeys): readonly [KeyObject, KeyObject] {
  let made = keyObjects.get(keys);
  if (made === undefined) {
    made = [createSecretKey(Buffer.from(keys.current)), createSecretKey(Buffer.from(keys.next))];
    keyObjects.set(keys, made);
  }
  return made;
}

function jsonObject(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The last header judged: a target signs every token with the same header, so it is parsed once. */
let lastHeader: { readonly part: string; readonly plain: boolean } | undefined;

/** A JOSE header of HS256 and nothing that changes how the token is read (`crit`, `b64`). */
function plainHeader(part: string): boolean {
  if (lastHeader?.part !== part) {
    const header = jsonObject(part);
    lastHeader = {
      part,
      plain: header !== undefined && header.alg === 'HS256' && !('crit' in header) && !('b64' in header),
    };
  }
  return lastHeader.plain;
}

const numberOrAbsent = (value: unknown) => value === undefined || (typeof value === 'number' && Number.isFinite(value));

/**
 * The claims of a plain HS256 token one of the keys signed, with `exp`, `nbf` and `iat` as jose
 * accepts them; undefined for anything else, which jose then judges (and explains).
 */
function quickClaims(
  token: string,
  keys: SigningKeys,
  issuer: string | undefined,
): { readonly key: KeyName; readonly claims: Record<string, unknown> } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head, body, signature] = parts as [string, string, string];
  if (!plainHeader(head)) return undefined;
  // Compared as the raw 32 bytes: decoding the one given costs less than encoding each one made. The
  // decoder skips characters outside the alphabet, so only 43 characters that decode to 32 bytes (no
  // stray character among them) are decided here; anything else goes to jose.
  if (signature.length !== 43) return undefined;
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== 32) return undefined;
  const signed = `${head}.${body}`;
  const [current, next] = keyObjectsOf(keys);
  const key: KeyName | undefined = timingSafeEqual(createHmac('sha256', current).update(signed).digest(), given)
    ? 'current'
    : timingSafeEqual(createHmac('sha256', next).update(signed).digest(), given)
      ? 'next'
      : undefined;
  if (key === undefined) return undefined;
  const claims = jsonObject(body);
  if (claims === undefined || !numberOrAbsent(claims.exp) || !numberOrAbsent(claims.nbf)) return undefined;
  if (!numberOrAbsent(claims.iat)) return undefined;
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp === 'number' && claims.exp <= now - clockTolerance) return undefined;
  if (typeof claims.nbf === 'number' && claims.nbf > now + clockTolerance) return undefined;
  if (issuer !== undefined && claims.iss !== issuer) return undefined;
  return { key, claims };
}

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
  const check = await checkSignatureClaims(signature, keys, url, body, issuer);
  return check.ok ? { ok: true, key: check.key } : { ok: false, problem: check.problem };
}

/** A base64url text without its `=` padding. */
function unpadded(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

/** The claims' verdict on `sub` and `body`, once the token itself verified. */
function claimsCheck(payload: Record<string, unknown>, key: KeyName, url: string, body: Uint8Array): ClaimedCheck {
  if (payload.sub !== url) return { ok: false, problem: `sub is ${JSON.stringify(payload.sub)}, not the URL called` };
  // One-shot hash: no Hash object per request.
  const digest = hash('sha256', body, 'base64url');
  if (typeof payload.body !== 'string' || unpadded(payload.body) !== digest) {
    return { ok: false, problem: 'the body claim is not the SHA-256 of the body received' };
  }
  return { ok: true, key, claims: payload };
}

/**
 * `checkSignatureClaims` without waiting, for the common case: the verdict when `quickClaims` decides
 * the token (a plain HS256 token one key signed), undefined when jose must judge it.
 */
export function checkSignatureNow(
  signature: string | undefined,
  keys: SigningKeys,
  url: string,
  body: Uint8Array,
): ClaimedCheck | undefined {
  if (signature === undefined || signature === '') return { ok: false, problem: 'no signature header' };
  const quick = quickClaims(signature, keys, undefined);
  return quick === undefined ? undefined : claimsCheck(quick.claims, quick.key, url, body);
}

/** `checkSignature`, with the token's claims when it verified. */
export async function checkSignatureClaims(
  signature: string | undefined,
  keys: SigningKeys | undefined,
  url: string,
  body: Uint8Array,
  issuer?: string,
): Promise<ClaimedCheck> {
  if (keys === undefined) return { ok: false, problem: 'no signing keys to verify with' };
  if (signature === undefined || signature === '') return { ok: false, problem: 'no signature header' };
  const quick = quickClaims(signature, keys, issuer);
  let payload: Record<string, unknown> | undefined = quick?.claims;
  let key: KeyName = quick?.key ?? 'current';
  const failures: KeyFailure[] = [];
  if (payload === undefined) {
    for (const [name, value] of [
      ['current', keys.current],
      ['next', keys.next],
    ] as const) {
      try {
        const options = { clockTolerance, ...(issuer !== undefined && { issuer }) };
        payload = (await jwtVerify(signature, new TextEncoder().encode(value), options)).payload;
        key = name;
        break;
      } catch (error) {
        failures.push(keyFailure(name, error));
      }
    }
  }
  if (payload === undefined) return { ok: false, problem: neitherKeyProblem(failures) };
  return claimsCheck(payload, key, url, body);
}
