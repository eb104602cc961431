/**
 * One sink worker thread: it listens on the sink's port beside the other threads (SO_REUSEPORT: the
 * kernel spreads connections over them), and serves the counting inboxes itself: verifies each
 * signature (keys from the main thread, asked again once after a failure), classifies, answers, and
 * posts batches of arrivals to the main thread. A request for any other token (a conformance inbox,
 * a stray) goes to the main thread, which holds those inboxes and answers for it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { type ClassifierSpec, type CountedArrival, CounterHost, nowMs } from './counting-inbox.ts';
import { matchSinkPath, sinkBase } from './sink-paths.ts';
import { readRequest, type StrayRequest } from './sink-request.ts';
import type { SigningKeys } from './sink-signature.ts';
import { type SignatureScheme, SignatureVerifier } from './sink-verifier.ts';

export interface ThreadInput {
  readonly host: string;
  readonly port: number;
  readonly signatureHeader: string;
  readonly scheme: SignatureScheme;
  readonly maxBodyBytes: number;
}

/** A request the main thread answers (its token is no counting inbox of this thread). */
export interface ForwardedRequest {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Uint8Array;
  readonly at: number;
}

/** The main thread's answer to a forwarded request; `counter`: the token is a counting inbox after all. */
export type ForwardedAnswer =
  | {
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string | Uint8Array;
      readonly delayMs?: number;
    }
  | { readonly counter: true };

export type ToThread =
  /** The advertised base URL (with its path prefix, if any), once the port is known. */
  | { readonly type: 'base'; readonly url: string }
  | { readonly type: 'keys'; readonly id: number; readonly keys: SigningKeys | undefined }
  | { readonly type: 'register'; readonly token: string; readonly classifier: ClassifierSpec }
  | { readonly type: 'close'; readonly token: string }
  | { readonly type: 'flush'; readonly token: string; readonly id: number }
  | { readonly type: 'answer'; readonly id: number; readonly answer: ForwardedAnswer }
  | { readonly type: 'stop' };

export type FromThread =
  | { readonly type: 'listening'; readonly port: number }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'keys?'; readonly id: number }
  | { readonly type: 'batch'; readonly token: string; readonly batch: CountedArrival<unknown>[] }
  | { readonly type: 'flushed'; readonly id: number }
  | { readonly type: 'stray'; readonly stray: StrayRequest }
  | { readonly type: 'problem'; readonly line: string }
  | { readonly type: 'request'; readonly id: number; readonly request: ForwardedRequest }
  | { readonly type: 'stopped' };

const port = parentPort;
if (port === null) throw new Error('sink-thread.ts runs as a worker thread of the sink');
const input = workerData as ThreadInput;
let base = sinkBase('http://127.0.0.1');
const post = (message: FromThread) => port.postMessage(message);

let nextId = 0;
const pending = new Map<number, (value: never) => void>();
/** Asks the main thread something and waits for its reply of the same id. */
function ask<T>(message: (id: number) => FromThread): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve) => {
    pending.set(id, resolve as (value: never) => void);
    post(message(id));
  });
}
const settle = (id: number, value: unknown) => {
  const resolve = pending.get(id);
  pending.delete(id);
  resolve?.(value as never);
};

const verifier = new SignatureVerifier(input.scheme, () =>
  ask<SigningKeys | undefined>((id) => ({ type: 'keys?', id })),
);
const host = new CounterHost({
  signatureHeader: input.signatureHeader,
  verifier,
  emit: (token, batch) => post({ type: 'batch', token, batch }),
  problem: (line) => post({ type: 'problem', line }),
});

const server = createServer((req, res) => {
  readRequest(req, input.maxBodyBytes, (body) => {
    const at = nowMs();
    const path = req.url ?? '/';
    const method = req.method ?? '';
    const match = matchSinkPath(path, base);
    const failed = () => {
      if (res.headersSent) return;
      res.writeHead(500);
      res.end();
    };
    /** Serves a counting inbox's request (at once when it can); false when the token is none of this thread's. */
    const counted = (): boolean => {
      const state = match === undefined ? undefined : host.state(match.token);
      if (match === undefined || state === undefined) return false;
      if (state === 'closed') {
        post({ type: 'stray', stray: { path: path.slice(0, 200), method, at, kind: 'late' } });
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no inbox');
        return true;
      }
      const status = host.receive({ ...match, method, headers: req.headers, body, at });
      if (typeof status === 'number') {
        res.statusCode = status;
        res.end('ok');
      } else {
        status.then((later) => {
          res.statusCode = later;
          res.end('ok');
        }, failed);
      }
      return true;
    };
    const forward = async () => {
      const answer = await ask<ForwardedAnswer>((id) => ({
        type: 'request',
        id,
        request: { path, method, headers: req.headers, body, at },
      }));
      if ('counter' in answer) {
        // Registered on the main thread, its message not yet read here: it is by now.
        if (counted()) return;
        res.writeHead(404);
        res.end('no inbox');
        return;
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { ...answer.headers });
        res.end(answer.body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    };
    try {
      if (!counted()) forward().catch(failed);
    } catch {
      failed();
    }
  });
});
server.keepAliveTimeout = 5000;
server.once('error', (error) => post({ type: 'failed', message: error.message }));
server.listen({ port: input.port, host: input.host, reusePort: true }, () => {
  post({ type: 'listening', port: (server.address() as { port: number }).port });
});

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'base':
      base = sinkBase(message.url);
      break;
    case 'keys':
      settle(message.id, message.keys);
      break;
    case 'answer':
      settle(message.id, message.answer);
      break;
    case 'register':
      host.register(message.token, message.classifier);
      break;
    case 'close':
      host.close(message.token);
      break;
    case 'flush':
      void host.flush(message.token).then(() => post({ type: 'flushed', id: message.id }));
      break;
    case 'stop':
      host.stop();
      server.closeAllConnections();
      server.close(() => {
        post({ type: 'stopped' });
        port.close();
      });
      break;
  }
});
