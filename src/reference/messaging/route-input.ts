/** Reading area A's requests: raw and JSON bodies, header lists, queue names and event ids. */
import { MessagingError } from './messaging-error.ts';

export const queueNamePattern = /^[A-Za-z0-9._-]{1,100}$/;
export const defaultWaitTimeout = '7d';

/** An event id the service refuses with 400: empty, longer than 256 bytes, or with spaces or control characters. */
export function invalidEventId(id: string): boolean {
  return id.length === 0 || Buffer.byteLength(id) > 256 || /[\s\p{Cc}]/u.test(id);
}

export function jsonBody(body: unknown): Record<string, unknown> {
  const raw = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MessagingError(400, 'the body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MessagingError(400, 'the body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

export function rawBody(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/** Header lists as the Waiter type has them: name → array of strings. */
export function headerLists(value: unknown, what: string): Record<string, string[]> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new MessagingError(400, `${what} must be an object`);
  const out: Record<string, string[]> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string') out[name] = [item];
    else if (Array.isArray(item) && item.every((v) => typeof v === 'string')) out[name] = item as string[];
    else throw new MessagingError(400, `${what}.${name} must be a string or an array of strings`);
  }
  return out;
}
