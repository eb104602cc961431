/** Reading one request's body on any sink thread, and what a request for no open inbox leaves behind. */
import type { IncomingMessage } from 'node:http';

/** A request to the sink that no open inbox expected. */
export interface StrayRequest {
  readonly path: string;
  readonly method: string;
  readonly at: number;
  /** `stray`: no inbox has its token; `late`: its inbox was closed. */
  readonly kind: 'stray' | 'late';
}

/** Calls `done` with the body (the first `maxBytes` of it) once the request ended. */
export function readRequest(req: IncomingMessage, maxBytes: number, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  });
  req.on('error', () => {});
  req.on('end', () => done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
}
