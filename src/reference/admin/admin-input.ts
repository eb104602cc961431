/** Reading an admin request's JSON body: every problem is an AdminInputError, answered 400. */

export class AdminInputError extends Error {}

export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AdminInputError('the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

export function requiredString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '' || /\s/.test(value)) {
    throw new AdminInputError(`${name} must be a non-empty string without spaces`);
  }
  return value;
}

export function stringList(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) {
    throw new AdminInputError(`${name} must be an array of ACL rule strings`);
  }
  return value;
}

export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
