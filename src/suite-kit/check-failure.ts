/**
 * A check is a small named function that returns nothing or throws one CheckFailure carrying the
 * rule id and a "received … / expected …" message (after Schemathesis' checks and k6's named checks).
 */
import { type Exchange, judgedExchange } from '../http/exchange-log.ts';
import { excerpt } from '../shared/excerpt.ts';

/**
 * The exchange each failure judged, taken when it is built (the answer a check read last, see
 * exchange-log.ts). Kept beside the error, not on it: vitest prints an error's own fields, and an
 * exchange holds the request's credentials.
 */
const judged = new WeakMap<Error, Exchange>();

function rememberJudged(failure: Error, from?: Error): void {
  const exchange = (from && judged.get(from)) ?? judgedExchange();
  if (exchange !== undefined) judged.set(failure, exchange);
}

/** The exchange a CheckFailure or Blocked judged when it was built; undefined for any other error. */
export function exchangeJudgedBy(error: unknown): Exchange | undefined {
  return error instanceof Error ? judged.get(error) : undefined;
}

/**
 * `failure`, judging the exchange `source` judged: for a failure that sums up others built earlier
 * (a batch of cells names its first failing cell), whose own moment of building says nothing.
 */
export function judgingAs<E extends Error>(source: unknown, failure: E): E {
  const exchange = exchangeJudgedBy(source);
  if (exchange !== undefined) judged.set(failure, exchange);
  return failure;
}

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
    rememberJudged(this);
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

  /** `step`: the step's own failure, whose judged exchange this one keeps. */
  constructor(rule: string, message: string, step?: Error) {
    super(`${excerpt(message, 2 * partChars)} [${rule}]`);
    this.rule = rule;
    rememberJudged(this, step);
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
      throw new Blocked(
        error.rule,
        `a step it needs did not work: ${error.message.replace(/ \[[^\]]+\]$/, '')}`,
        error,
      );
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
