/**
 * The event streams of area B (/monitor, /subscribe/{channel}) opened for a case: closed in its
 * cleanup, every wait bounded, and events collected until a predicate holds or time runs out.
 */
import {
  type CaseContext,
  dispatcherFor,
  openSse,
  requestTimeoutMs,
  type SseStream,
} from '../../src/suite-kit/suite-api.ts';
import { type Credentials, standard, wireCredentials } from './credentials.ts';
import type { KvClient } from './kv-client.ts';

export interface OpenedStream extends SseStream {
  /** Events taken so far by `collectUntil` and `first`. */
  readonly seen: string[];
}

/** Opens `POST {kv}/{path}` as an event stream (Accept: text/event-stream); closed after the case. */
export async function openKvStream(
  ctx: CaseContext,
  kv: KvClient,
  path: string,
  credentials?: Credentials,
): Promise<OpenedStream> {
  const chosen = credentials ?? standard;
  const wire = wireCredentials(ctx, chosen);
  const headers = kv.headers({ credentials: chosen });
  // The run's request timeout (10 s, generous for a slow or remote target, or --timeout); a stream that
  // never opens still ends the case in time.
  const stream = await openSse({
    url: kv.url(path, wire.query),
    method: 'POST',
    headers,
    openTimeoutMs: requestTimeoutMs(),
    dispatcher: dispatcherFor(ctx.target.tls),
  });
  ctx.onCleanup(() => stream.close());
  ctx.signal?.addEventListener('abort', () => stream.close(), { once: true });
  return Object.assign(stream, { seen: [] as string[] });
}

/**
 * Takes events until `done(seen)` holds; returns all events taken. Stops at `timeoutMs` overall
 * (returning what arrived, so the caller's check reports what is missing), never hangs.
 */
export async function collectUntil(
  stream: OpenedStream,
  done: (seen: readonly string[]) => boolean,
  timeoutMs = 5_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  while (!done(stream.seen)) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    try {
      stream.seen.push(await stream.next(left));
    } catch {
      break;
    }
  }
  return stream.seen;
}

/** The next event, or undefined when none arrives within `timeoutMs` (or the stream ended). */
export async function nextEvent(stream: OpenedStream, timeoutMs = 5_000): Promise<string | undefined> {
  try {
    const event = await stream.next(timeoutMs);
    stream.seen.push(event);
    return event;
  } catch {
    return undefined;
  }
}

/**
 * The spec shows the parts of a monitor item (timestamp, client tag, quoted command and arguments),
 * not their punctuation: a timestamp (one word: Redis writes seconds with microseconds, another may
 * write ISO 8601), then a non-empty tag (Redis writes `[<db> <client>]`), then the quoted tokens up to
 * the end of the line.
 */
export const monitorLine =
  /^(\S+)\s+(\S.*?)\s+((?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')(?:\s+(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'))*)$/s;

/** A monitor timestamp in seconds: Unix seconds (fractions allowed) or an ISO 8601 date; NaN otherwise. */
export function timestampSeconds(word: string): number {
  if (/^\d+(?:\.\d+)?$/.test(word)) return Number(word);
  return /^\d{4}-\d{2}-\d{2}T/.test(word) ? Date.parse(word) / 1000 : Number.NaN;
}
/** A quoted token: double quotes (Redis's) or single quotes, a backslash escaping the next character. */
const quotedToken = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/gy;
export const redisTag = /^\[\d+ [^\]]+\]$/;

/**
 * The quoted command and arguments of a monitor line, unescaped for \" \' and \\; undefined when not all
 * quoted. "Quoted" is the spec's word; which quotes, and the escapes of other bytes, it does not show.
 */
export function quotedArgs(rest: string): string[] | undefined {
  const args: string[] = [];
  let at = 0;
  while (at < rest.length) {
    quotedToken.lastIndex = at;
    const match = quotedToken.exec(rest);
    if (!match) return undefined;
    args.push((match[1] ?? match[2] ?? '').replace(/\\(["'\\])/g, '$1'));
    at = quotedToken.lastIndex;
    if (at < rest.length) {
      if (!/\s/.test(rest[at] ?? '')) return undefined;
      while (at < rest.length && /\s/.test(rest[at] ?? '')) at++;
    }
  }
  return args;
}

/** The command and arguments of a monitor item (the command upper-cased), or undefined when it is not one. */
export function monitorArgs(event: string): string[] | undefined {
  const match = monitorLine.exec(event);
  const args = match ? quotedArgs(match[3] ?? '') : undefined;
  return args === undefined ? undefined : [String(args[0]).toUpperCase(), ...args.slice(1)];
}
