/**
 * Nested replies (XREAD's streams of entries of fields, EVAL's tables): the spec shows only flat arrays
 * of strings and null, so the JSON form of deeper nesting is not held to one shape (B.observe.nested-json).
 * What any faithful form keeps is the content in the protocol's order; a form that drops, repeats or
 * reorders it is no form of the reply at all.
 */
import { isDeepStrictEqual } from 'node:util';
import { type CaseContext, show } from '../../src/suite-kit/suite-api.ts';
import { checkThat } from './checks.ts';

/** The scalars of a JSON value in order: depth first, an object's keys before their values. */
export function jsonLeaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(jsonLeaves);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => [key, ...jsonLeaves(item)]);
  return [value];
}

/**
 * Does `value`, nested any way, hold `reply`'s scalars in order? `same` compares one scalar of the
 * value with one of the reply; an integer may be written as its digits in a form of the caller's choosing.
 */
export function sameLeaves<Leaf>(
  value: unknown,
  replyLeaves: readonly Leaf[],
  same: (got: unknown, leaf: Leaf) => boolean,
): boolean {
  const got = jsonLeaves(value);
  return got.length === replyLeaves.length && replyLeaves.every((leaf, i) => same(got[i], leaf));
}

/** Two scalars alike, an integer equal to its digits (a form may write either). */
export function sameScalar(got: unknown, want: unknown): boolean {
  if (typeof want === 'number') return got === want || got === String(want);
  return got === want;
}

/**
 * A nested reply read in JSON against the reply's plain JSON form (`expected`): the same value passes;
 * another nesting of the same content in order is recorded; anything else fails `rule`. `name` is the
 * command, for the record and the failure.
 */
export function checkNestedForm(ctx: CaseContext, rule: string, got: unknown, expected: unknown, name: string): void {
  if (isDeepStrictEqual(got, expected)) return;
  checkThat(
    rule,
    sameLeaves(got, jsonLeaves(expected), sameScalar),
    `result ${show(got, 160)}`,
    `result ${show(expected, 160)}, or any nesting of the same content in that order`,
    name,
  );
  ctx.observe(`${name} in JSON: ${show(got, 160)} (the nested form is not shown by the spec)`);
}
