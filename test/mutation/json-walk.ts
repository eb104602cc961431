/**
 * JSON values for the JSON operators: parse a body if it is JSON, rebuild it with every node visited
 * (children first, with its key and depth), and write numbers the way a careless serializer does.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Bodies above this are passed on unchanged: the suites' large bodies test size limits, not JSON. */
const maxJsonBytes = 1 << 20;

/** The body as JSON, or undefined when it is not an object or an array (or is too large). */
export function parseBody(body: Buffer): Json | undefined {
  if (body.length === 0 || body.length > maxJsonBytes) return undefined;
  try {
    const value = JSON.parse(body.toString('utf8')) as Json;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `visit` sees each node after its children, with the key it sits under and its depth (root 0). */
export type Visit = (value: Json, key: string | undefined, depth: number) => Json;

export function rebuild(value: Json, visit: Visit, key?: string, depth = 0): Json {
  let next: Json = value;
  if (Array.isArray(value)) next = value.map((item) => rebuild(item, visit, undefined, depth + 1));
  else if (typeof value === 'object' && value !== null) {
    next = Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, rebuild(item, visit, name, depth + 1)]),
    );
  }
  return visit(next, key, depth);
}

/** Every node with its key and depth. */
export function* nodes(value: Json, key?: string, depth = 0): Generator<[Json, string | undefined, number]> {
  yield [value, key, depth];
  if (Array.isArray(value)) for (const item of value) yield* nodes(item, undefined, depth + 1);
  else if (typeof value === 'object' && value !== null) {
    for (const [name, item] of Object.entries(value)) yield* nodes(item, name, depth + 1);
  }
}

/** JSON text with every integer written as a double (`1` → `1.0`), as a float-only serializer does. */
export function stringifyIntegersAsDoubles(value: Json): string {
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}.0` : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stringifyIntegersAsDoubles).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([name, item]) => `${JSON.stringify(name)}:${stringifyIntegersAsDoubles(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function sameJson(a: Json, b: Json): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
