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
 * Forms shorter than this are too short to replace safely in free text: `x` stands inside an encoded
 * histogram (`/x/`), `wrong` in a server's own message ("missing or wrong credentials"), and
 * replacing them there changes data and ordinary words. They are replaced only where credentials
 * travel (`credentialPosition`), and `shortSecretNotice` says so once.
 */
export const minFreeTextChars = 8;

/**
 * Where a credential travels, whatever its length: after `Bearer ` or `Basic `, as the value of a
 * credential query parameter (`_token=`), and as the value of a credential-named JSON field (`"token":"`).
 */
const credentialPosition =
  '(?<=(?:Bearer|Basic)\\s+|(?<![A-Za-z0-9])(?:_token|svc_token|qstash_token|token|access_token|password|key)=|"[\\w-]*(?:token|password|secret|key)[\\w-]*"\\s*:\\s*")';

/**
 * Replaces each secret where it stands as a whole value: not inside a longer word or token. A form of
 * `minFreeTextChars` or more is replaced wherever it stands so; a shorter one only in a credential's
 * position (`Bearer t`, `_token=t`, `"token":"t"`), never in a word, a path or an encoding of the harness.
 */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const forms = [...secrets].flatMap(secretForms);
  // A long value (a hostile target's 10 MB "token") is no word inside another: it is replaced wherever
  // it stands, without a pattern (a pattern of megabytes fails to compile, or compiles slowly), which
  // wholeValuePattern leaves them out of.
  const long = [...new Set(forms.filter((form) => form.length > longSecretChars))].sort((a, b) => b.length - a.length);
  const pattern = wholeValuePattern(forms.filter((form) => form.length >= minFreeTextChars));
  const short = [...new Set(forms.filter((form) => form.length < minFreeTextChars))].sort(
    (a, b) => b.length - a.length,
  );
  const positioned =
    short.length === 0
      ? undefined
      : new RegExp(`${credentialPosition}(?:${short.map(escapeRegExp).join('|')})(?![A-Za-z0-9])`, 'g');
  if (pattern === undefined && positioned === undefined && long.length === 0) return (text) => text;
  return (text) => {
    let out = pattern === undefined ? text : text.replace(pattern, redactedMark);
    if (positioned !== undefined) out = out.replace(positioned, redactedMark);
    for (const value of long) out = out.replaceAll(value, redactedMark);
    return out;
  };
}

/**
 * The one line a run says when a secret is too short to replace in free text (undefined when none is):
 * it is still replaced where credentials travel, and an answer echoing it elsewhere keeps it.
 */
export function shortSecretNotice(secrets: Iterable<string>): string | undefined {
  const short = [...new Set(secrets)].filter((secret) => secret.length > 0 && secret.length < minFreeTextChars);
  if (short.length === 0) return undefined;
  const lengths = short.map((secret) => secret.length).sort((a, b) => a - b);
  return `redaction: ${short.length === 1 ? 'a secret' : `${short.length} secrets`} of ${lengths.join(', ')} characters ${short.length === 1 ? 'is' : 'are'} too short to replace safely in free text (fewer than ${minFreeTextChars}): replaced only after Bearer or Basic, in token parameters and credential fields`;
}

/** Keys whose string values the harness encoded itself (HDR histograms) or named itself (its report folder). */
const harnessOwnKeys = new Set(['histogram', 'reportDir']);

/**
 * A `JSON.stringify` replacer that redacts every string but those the harness produced itself: an
 * encoded histogram holds no secret, and replacing text inside one makes it undecodable.
 */
export function redactingReplacer(redact: Redactor): (key: string, value: unknown) => unknown {
  return (key, value) => (typeof value === 'string' && !harnessOwnKeys.has(key) ? redact(value) : value);
}

/** A copy of `value` (plain JSON data) with its strings redacted as `redactingReplacer` does. */
export function redactStrings<T>(value: T, redact: Redactor): T {
  return JSON.parse(JSON.stringify(value, redactingReplacer(redact))) as T;
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
