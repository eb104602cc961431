/**
 * Nested replies (XREAD's streams of entries of fields, EVAL's tables): the spec shows only flat arrays
 * of strings and null, so the JSON form of deeper nesting is not held to one shape (B.observe.nested-json).
 * What any faithful form keeps is the content in the protocol's order; a form that drops, repeats or
 * reorders it is no form of the reply at all.
 */

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
