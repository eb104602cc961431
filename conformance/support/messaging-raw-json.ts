/**
 * Integer fields judged on the raw JSON text. JSON.parse turns `200.0` and `2e2` into 200, so a
 * target that writes an integer field as a double passes a check of the parsed value; the spec says
 * "integer", and a strict client (Go, Rust, Java decoding into an integer type) refuses `200.0`. The
 * source text of each number comes from JSON.parse's own reviver context (the "source text access"
 * of ECMAScript, in Node since 21), so no hand-written tokenizer is needed.
 */
import { CheckFailure, show } from '../../src/suite-kit/suite-api.ts';

type SourceReviver = (this: unknown, key: string, value: unknown, context: { readonly source?: string }) => unknown;

/** An integer literal: optional minus, digits, no fraction, no exponent. */
const integerLiteral = /^-?(?:0|[1-9]\d*)$/;

/**
 * The fields of the top-level object of `text` (of any object in it, with `anyDepth`), among
 * `fields`, whose value is a number not written as an integer literal, as `name 200.0`. A text that is not JSON, or fields that are absent or not
 * numbers, give nothing here: other checks judge those.
 */
export function nonIntegerLiterals(text: string, fields: readonly string[], anyDepth = false): string[] {
  const seen: { holder: unknown; key: string; source: string }[] = [];
  const reviver: SourceReviver = function (this: unknown, key, value, context) {
    if (typeof value === 'number' && context.source !== undefined && fields.includes(key)) {
      seen.push({ holder: this, key, source: context.source });
    }
    return value;
  };
  let root: unknown;
  try {
    root = JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]);
  } catch {
    return [];
  }
  return seen
    .filter((item) => (anyDepth || item.holder === root) && !integerLiteral.test(item.source))
    .map((item) => `${item.key} ${item.source}`);
}

/** A JSON text parsed once, with every number in it that is not written as an integer literal. */
export interface ParsedWithNumbers {
  readonly value: unknown;
  /** Those numbers as written (`1.0`), at any depth (object fields and array items alike). */
  readonly nonInteger: readonly string[];
}

/**
 * `text` parsed, noting every number not written as an integer literal; undefined when it is not JSON.
 * One parse gives both: against a target answering 10 MB, each further parse of an answer is another
 * 20 MB (the text and its value) for the collector (issue 25).
 */
export function parseWithNumbers(text: string): ParsedWithNumbers | undefined {
  const nonInteger: string[] = [];
  const reviver: SourceReviver = (_key, value, context) => {
    if (typeof value === 'number' && context.source !== undefined && !integerLiteral.test(context.source)) {
      nonInteger.push(context.source);
    }
    return value;
  };
  try {
    return { value: JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]), nonInteger };
  } catch {
    return undefined;
  }
}

/**
 * Each of `fields` that the raw JSON `text` holds as a number (at the top level, or in any object
 * with `anyDepth`) is written as an integer literal.
 */
export function checkIntegerLiterals(
  rule: string,
  text: string | Buffer,
  fields: readonly string[],
  context?: string,
  anyDepth = false,
): void {
  const problems = nonIntegerLiterals(text.toString(), fields, anyDepth);
  if (problems.length > 0) {
    throw new CheckFailure(
      rule,
      `${show(problems.join(', '), 160)} (as written)`,
      `${fields.join(', ')} written as integer literals (the spec says integer; no fraction or exponent)`,
      context,
    );
  }
}
