/**
 * Whether an answer that says it is JSON looks like JSON, the same test on every engine (the node
 * engine's exchange, the k6 adapter): one that does not is a `garbage` answer, never a completed one.
 */
/** A cheap test of its ends, not a second parse: this runs on every answer of a load run. */
export function looksLikeJson(body: string): boolean {
  const text = body.trim();
  if (text.length === 0) return false;
  const first = text[0];
  const last = text[text.length - 1];
  if (first === '{') return last === '}';
  if (first === '[') return last === ']';
  if (first === '"') return last === '"';
  return /^(-?\d|true|false|null)/.test(text);
}
