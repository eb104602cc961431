/**
 * A check is a small named function that returns nothing or throws one CheckFailure carrying the
 * rule id and a "received … / expected …" message (after Schemathesis' checks and k6's named checks).
 */
import { excerpt } from '../../shared/excerpt.ts';
/** How much of each part of a failure's text is kept. */
export const partChars = 2000;

export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  readonly rule: string;
  readonly received: string;
  readonly expected: string;

  constructor(rule: string, received: string, expected: string, context?: string) {
    // A case may describe what it received in full (a target's 10 MB answer): verdicts keep excerpts.
    const shown = excerpt(received, partChars);
    const wanted = excerpt(expected, partChars);
    super(`${context ? `${excerpt(context, partChars)}: ` : ''}received ${shown} / expected ${wanted} [${rule}]`);
    this.rule = rule;
    this.received = shown;
    this.expected = wanted;
  }
}

/**
 * A step the case needs only as a means did not work (set-up, read-back, another request form, the
 * positive a refusal is compared with): the case ends `blocked`, naming the step's rule, since its own
 * rule could not be checked.
 */
export class Blocked extends Error {
  override readonly name = 'Blocked';
  readonly rule: string;

  constructor(rule: string, message: string) {
    super(`${excerpt(message, 2 * partChars)} [${rule}]`);
    this.rule = rule;
  }
}

/**
 * Runs a step that is only a means to the case's own check: a check that fails inside it blocks the
 * case (naming the check's rule) instead of failing it.
 */
export async function means<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof CheckFailure) {
      throw new Blocked(error.rule, `a step it needs did not work: ${error.message.replace(/ \[[^\]]+\]$/, '')}`);
    }
    throw error;
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
  // A long string or buffer is cut before it is quoted: quoting 10 MB to keep 200 characters costs 10 MB more.
  const cut = typeof value === 'string' && value.length > max ? value.slice(0, max + 1) : value;
  const text = Buffer.isBuffer(cut) ? JSON.stringify(cut.subarray(0, max + 1).toString('latin1')) : JSON.stringify(cut);
  const shown = text === undefined ? String(value) : text;
  return excerpt(shown, max);
}
