/**
 * A check is a small named function that returns nothing or throws one CheckFailure carrying the
 * rule id and a "received … / expected …" message (after Schemathesis' checks and k6's named checks).
 */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  readonly rule: string;
  readonly received: string;
  readonly expected: string;

  constructor(rule: string, received: string, expected: string, context?: string) {
    super(`${context ? `${context}: ` : ''}received ${received} / expected ${expected} [${rule}]`);
    this.rule = rule;
    this.received = received;
    this.expected = expected;
  }
}

/** Thrown by a case to end with a skip verdict (a capability the target lacks). */
export class CaseSkipped extends Error {
  override readonly name = 'CaseSkipped';
}

export function isCheckFailure(value: unknown): value is CheckFailure {
  return value instanceof CheckFailure;
}

/** Short printable form of a value for received/expected texts; long values are cut. */
export function show(value: unknown, max = 200): string {
  const text = Buffer.isBuffer(value) ? JSON.stringify(value.toString('latin1')) : JSON.stringify(value);
  const shown = text === undefined ? String(value) : text;
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}
