/**
 * A scenario writes vendor headers as the spec names them (`Svc-Callback`); a target of another
 * dialect calls them `Upstash-Callback`. Pure, with no Node module: the node engine and the k6
 * script rename them the same way.
 */

/** The spec's prefix of every vendor header. */
export const specHeaderPrefix = 'Svc-';

/**
 * The headers with the spec's `Svc-` prefix (any case) renamed to `prefix` (the dialect's
 * `headerPrefix`); other headers as they are. Later names win when two end up the same.
 */
export function dialectHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  prefix: string,
): Record<string, string> {
  const renamed: Record<string, string> = {};
  if (headers === undefined) return renamed;
  for (const [name, value] of Object.entries(headers)) {
    const vendor = name.toLowerCase().startsWith(specHeaderPrefix.toLowerCase());
    renamed[vendor ? `${prefix}${name.slice(specHeaderPrefix.length)}` : name] = value;
  }
  return renamed;
}
