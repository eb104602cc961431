/**
 * Secrets never reach a report or a log: every string the harness writes passes through a redactor
 * built from the target's secrets, in the forms they travel in (as is, percent-encoded, base64).
 */

export const redactedMark = '[redacted]';

/** The forms a secret may take in a message: as given, in a query string, in a base64 body. */
export function secretForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')];
  return [...new Set(forms)].filter((form) => form.length > 0);
}

export type Redactor = (text: string) => string;

export function createRedactor(secrets: Iterable<string>): Redactor {
  // Longest first, so a secret that contains another is replaced whole.
  const forms = [...new Set([...secrets].flatMap(secretForms))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  return (text) => forms.reduce((current, form) => current.replaceAll(form, redactedMark), text);
}
