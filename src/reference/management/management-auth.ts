/**
 * Area C authentication (spec "Authentication"): HTTP Basic, `Authorization: Basic base64(user:password)`,
 * the user being the account's customer_id and the password its management API key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export interface BasicCredentials {
  readonly username: string;
  /** Secret. */
  readonly password: string;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether the header carries exactly these credentials. Both sides are hashed first, so the
 * comparison takes the same time whatever was sent (timingSafeEqual wants equal lengths, and a
 * length check would tell how long the key is). The scheme name is case-insensitive (RFC 7617).
 */
export function basicCredentialsMatch(header: string | undefined, expected: BasicCredentials): boolean {
  const match = /^basic +([A-Za-z0-9+/=_-]+) *$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1], 'base64').toString('utf8');
  return timingSafeEqual(digest(given), digest(`${expected.username}:${expected.password}`));
}
