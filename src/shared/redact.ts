/**
 * Secrets never reach a report or a log: every string the harness writes passes through a redactor
 * built from the target's secrets, in the forms they travel in (as is, percent-encoded, base64), and
 * URLs are shown without their credentials.
 */

export const redactedMark = '[redacted]';

/** The forms a secret may take in a message: as given, in a query string, in a base64 body. */
export function secretForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')];
  return [...new Set(forms)].filter((form) => form.length > 0);
}

export type Redactor = (text: string) => string;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces each secret where it stands as a whole value: not inside a longer word or token, so a
 * short token (`t`) never mangles the text around it (`target`, JSON keys), while `Bearer t`,
 * `"t"` and `_token=t` are still caught.
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const forms = [...secrets].flatMap(secretForms);
  // A long value (a hostile target's 10 MB "token") is no word inside another: it is replaced wherever
  // it stands, without a pattern (a pattern of megabytes fails to compile, or compiles slowly), which
  // wholeValuePattern leaves them out of.
  const long = [...new Set(forms.filter((form) => form.length > longSecretChars))].sort((a, b) => b.length - a.length);
  const pattern = wholeValuePattern(forms);
  if (pattern === undefined && long.length === 0) return (text) => text;
  return (text) => {
    let out = pattern === undefined ? text : text.replace(pattern, redactedMark);
    for (const value of long) out = out.replaceAll(value, redactedMark);
    return out;
  };
}

/** Secrets longer than this are matched as plain text, not in the whole-value pattern. */
const longSecretChars = 1024;

/**
 * A global pattern for any of `values` where it stands as a whole value (as `createRedactor` finds
 * secrets); undefined when there is none. Longest first, so a value that contains another is matched
 * whole.
 */
export function wholeValuePattern(values: Iterable<string>): RegExp | undefined {
  const sorted = [...new Set(values)]
    .filter((value) => value.length > 0 && value.length <= longSecretChars)
    .sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return undefined;
  return new RegExp(`(?<![A-Za-z0-9])(?:${sorted.map(escapeRegExp).join('|')})(?![A-Za-z0-9])`, 'g');
}

/** Query parameters that carry credentials in the service's URLs (and common ones elsewhere). */
const credentialParameters = new Set([
  '_token',
  'svc_token',
  'qstash_token',
  'token',
  'access_token',
  'password',
  'key',
]);

/** A URL with its user information and credential query parameters replaced; unparsable text as is. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const names = [...parsed.searchParams.keys()].filter((name) => credentialParameters.has(name.toLowerCase()));
  // Unchanged URLs keep their spelling (no trailing slash added by the parser).
  if (!parsed.username && !parsed.password && names.length === 0) return url;
  if (parsed.username) parsed.username = redactedMark;
  if (parsed.password) parsed.password = redactedMark;
  for (const name of names) parsed.searchParams.set(name, redactedMark);
  return parsed.toString();
}

/** The secrets a URL carries: its password and the values of its credential query parameters. */
export function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    const values = [...parsed.searchParams.entries()]
      .filter(([name]) => credentialParameters.has(name.toLowerCase()))
      .map(([, value]) => value);
    return [decodeURIComponent(parsed.password), ...values].filter((value) => value.length > 0);
  } catch {
    return [];
  }
}
