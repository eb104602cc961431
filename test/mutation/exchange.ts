/**
 * What the mutating proxy sees: one HTTP exchange, buffered (an SSE answer is kept as its events),
 * and the route class it belongs to. A mutant targets a class, never one exchange, so the classes are
 * coarse on purpose: the path form of area B is one class, the id in `/v2/queues/<name>` is a `*`.
 */

export type Area = 'kv' | 'messaging' | 'management';
/** `front`: the harness → the target; `delivery`: the target → the sink. */
export type Side = 'front' | 'delivery';
export type Headers = Record<string, string>;

export interface Message {
  readonly headers: Headers;
  readonly body: Buffer;
}

export interface RequestMessage extends Message {
  readonly method: string;
  /** The raw path with its query, as the client sent it. */
  readonly path: string;
}

export interface ResponseMessage extends Message {
  readonly status: number;
}

/** One exchange as the proxy recorded it. */
export interface Exchange {
  readonly side: Side;
  readonly area: Area;
  /** `kv POST /pipeline`, `messaging POST /v2/publish/*`, `delivery callback`. */
  readonly routeClass: string;
  readonly request: RequestMessage;
  readonly response: ResponseMessage;
  /** The events of an SSE answer (each without its blank line); undefined for other answers. */
  readonly events?: readonly string[];
  /** Milliseconds since the epoch when the request arrived. */
  readonly at: number;
}

const kvFixedRoutes = new Set(['pipeline', 'multi-exec', 'monitor', 'subscribe', 'psubscribe']);
/** Segments of areas A and C that are a route's name rather than an id. */
const routeWords = new Set(['pause', 'resume', 'rotate', 'run', 'keys', 'queues', 'dlq', 'user', 'search']);

function pathOnly(path: string): string {
  const at = path.indexOf('?');
  return at < 0 ? path : path.slice(0, at);
}

/** Methods a route class keeps; the rest (LOCK, PROPFIND, OPTIONS …, sent to see 405) are one `OTHER`. */
const classMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH']);
const kvMethods = new Set(['GET', 'HEAD', 'POST', 'PUT']);

/** The route class of a request to an area: the method and the path with its ids as `*`. */
export function routeClassOf(side: Side, area: Area, request: RequestMessage): string {
  const { method: anyMethod, path } = request;
  if (side === 'delivery') return `delivery ${deliveryKind(request)}`;
  const method = (area === 'kv' ? kvMethods : classMethods).has(anyMethod) ? anyMethod : 'OTHER';
  const segments = pathOnly(path).split('/').slice(1);
  if (area === 'kv') {
    const first = (segments[0] ?? '').toLowerCase();
    if (first === '') return `kv ${method} /`;
    if (kvFixedRoutes.has(first)) return `kv ${method} /${first}${segments.length > 1 ? '/*' : ''}`;
    return `kv ${method} /{command}/*`;
  }
  // Areas A and C: the version (`v2`) and the route literal, then ids as `*`; a publish's
  // destination URL (which contains slashes) is one `*`.
  const literal = /^v\d+$/.test(segments[0] ?? '') ? 2 : 1;
  const tail: string[] = [];
  for (const segment of segments.slice(literal)) {
    const word = routeWords.has(segment) ? segment : '*';
    if (word === '*' && tail.at(-1) === '*') continue;
    tail.push(word);
  }
  return `${area} ${method} /${[...segments.slice(0, literal), ...tail].filter((part) => part !== '').join('/')}`;
}

/**
 * What the target is sending to the sink, from the request alone (the sink's paths name a case's own
 * roles, not kinds): a callback or failure callback (a JSON body naming its source message), a message
 * (it carries its message id), or a waiter's notification or timeout call.
 */
function deliveryKind(request: RequestMessage): string {
  const text = request.body.length < 65_536 ? request.body.toString('utf8') : '';
  if (text.includes('"sourceMessageId"')) return text.includes('"dlqId"') ? 'failure-callback' : 'callback';
  if (Object.keys(request.headers).some((name) => name.endsWith('-message-id'))) return 'message';
  return 'waiter-call';
}

/** Lower-cased header names, one value each (repeated headers joined as node does). */
export function plainHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function contentType(message: Message): string {
  return (message.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** One line naming an exchange, with no secret: method, path without its query, status. */
export function describeExchange(exchange: Exchange): string {
  const path = pathOnly(exchange.request.path);
  const shown = path.length > 90 ? `${path.slice(0, 87)}…` : path;
  return `${exchange.request.method} ${shown} → ${exchange.response.status}`;
}
