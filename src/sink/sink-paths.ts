/**
 * The sink's URLs: every URL handed to a target is `<sink.url>/<token>/<role><rest>`, and `sink.url`
 * may carry a path (`https://tunnel.example/h/sink`, a proxy's mount point). A proxy may pass that
 * prefix on or strip it, so a request's path is matched with or without it; its signature is checked
 * against the public URL the target was given (the JWT's `sub`), whichever form reached the sink.
 */

/** The advertised base URL, split for matching. */
export interface SinkBase {
  /** Without a trailing `/`. */
  readonly url: string;
  /** The base URL's path without a trailing `/`: empty, or `/h/sink`. */
  readonly prefix: string;
}

/** A request's path matched to an inbox. */
export interface SinkPath {
  readonly token: string;
  /** Letters, digits and `-`. */
  readonly role: string;
  /** The path after `/<token>/<role>`, with the query. */
  readonly rest: string;
  /** The URL the target was handed for it: what a signature's `sub` names. */
  readonly publicUrl: string;
}

const pathPattern = /^\/([A-Za-z0-9_-]+)\/([A-Za-z0-9-]+)(.*)$/s;

export function sinkBase(url: string): SinkBase {
  const trimmed = url.replace(/\/+$/, '');
  return { url: trimmed, prefix: new URL(trimmed).pathname.replace(/\/+$/, '') };
}

/** The inbox a request path names, with or without the base URL's prefix; undefined for any other path. */
export function matchSinkPath(path: string, base: SinkBase): SinkPath | undefined {
  const unprefixed = base.prefix !== '' && path.startsWith(`${base.prefix}/`) ? path.slice(base.prefix.length) : path;
  const match = pathPattern.exec(unprefixed);
  if (match === null) return undefined;
  const [, token, role, rest] = match as unknown as [string, string, string, string];
  return { token, role, rest, publicUrl: `${base.url}/${token}/${role}${rest}` };
}

/** The URL of `role` in the inbox `token`: `rest` is a path starting with `/` (and a query), or empty. */
export function inboxUrl(base: SinkBase, token: string, role: string, rest = ''): string {
  return `${base.url}/${token}/${role}${rest}`;
}
