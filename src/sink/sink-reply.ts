/** How the sink answers one request, on any thread, and the answers every front shares. */
import type { ServerResponse } from 'node:http';

export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  /** Wait this long before answering (a slow endpoint, for timeouts). */
  readonly delayMs?: number;
}

/** A request no open inbox expected (a stray, a late one). */
export const noInbox: Reply = { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no inbox' };

/** The sink's own failure to answer (a verification or classifier that threw). */
export const failedReply: Reply = { status: 500, headers: {}, body: '' };

export function send(res: ServerResponse, reply: Reply): void {
  const write = () => {
    if (res.destroyed) return;
    // Status and headers set, not written: `end` then sends head and body in one write.
    res.statusCode = reply.status;
    for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
    res.end(reply.body);
  };
  if (reply.delayMs) setTimeout(write, reply.delayMs).unref();
  else write();
}
