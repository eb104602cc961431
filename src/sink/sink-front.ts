/**
 * The sink's HTTP front: where requests come in. With no threads it is one server on the calling
 * thread (here), which serves the counting inboxes itself and answers every other request from the
 * conformance inboxes; with threads it is the pool of `sink-pool.ts`. Either way the rest of the sink
 * talks to it through `SinkFront`, so `startSink` never branches on which it is.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { defaultAnswerBody } from './conformance-inbox.ts';
import type { CounterListeners } from './counter-listeners.ts';
import { type ClassifierSpec, CounterHost, nowMs } from './counting-inbox.ts';
import type { InboxRegistry } from './inbox-registry.ts';
import type { SinkLog } from './sink-log.ts';
import { matchSinkPath, type SinkBase } from './sink-paths.ts';
import { failedReply, noInbox, send } from './sink-reply.ts';
import { readRequest } from './sink-request.ts';
import type { SignatureScheme, SignatureVerifier } from './sink-verifier.ts';

/** Where the front listens and how it reads requests. */
export interface FrontOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly signatureHeader: string;
  readonly scheme: SignatureScheme;
  readonly maxBodyBytes: number;
}

/** What a front hands on to the calling thread. */
export interface SinkDesk {
  /** The advertised base URL; set once the port is known, before any inbox hands out a URL. */
  readonly base: () => SinkBase;
  readonly inboxes: InboxRegistry;
  readonly counters: CounterListeners;
  readonly log: SinkLog;
}

export interface SinkFront {
  /** The port the front listens on (every thread the same one). */
  readonly port: number;
  /** Tells the front the advertised base URL, once the port is known. */
  announce(base: SinkBase): void;
  /** Serves a counting inbox: its classifier, loaded where its requests arrive. */
  register(token: string, classifier: ClassifierSpec): void;
  /** Hands on every arrival of `token` the front still holds. */
  flush(token: string): Promise<void>;
  /** Counts `token`'s requests as late from now on. */
  close(token: string): void;
  /** Stops taking requests: the sink closes. */
  stop(): Promise<void>;
}

/** One request on this thread: a counting inbox's is counted and answered here, any other by the desk. */
function serve(counting: CounterHost, desk: SinkDesk, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const at = nowMs();
  const path = req.url ?? '/';
  const method = req.method ?? '';
  const match = matchSinkPath(path, desk.base());
  const state = match === undefined ? undefined : counting.state(match.token);
  if (match !== undefined && state === 'open') {
    const status = counting.receive({ ...match, method, headers: req.headers, body, at });
    if (typeof status === 'number') {
      res.statusCode = status;
      res.end(defaultAnswerBody);
    } else {
      status.then(
        (later) => send(res, { status: later, headers: {}, body: defaultAnswerBody }),
        () => send(res, failedReply),
      );
    }
    return;
  }
  const replied =
    state === 'closed'
      ? Promise.resolve(noInbox).finally(() =>
          desk.log.stray({ path: path.slice(0, 200), method, at: Math.floor(at), kind: 'late' }),
        )
      : desk.inboxes.answer({ path, method, headers: req.headers, body, at });
  replied.then(
    (reply) => send(res, reply),
    () => send(res, failedReply),
  );
}

/** The front with no threads: one HTTP server on the calling thread. */
export async function listenOnThisThread(
  options: FrontOptions,
  desk: SinkDesk,
  verifier: SignatureVerifier,
): Promise<SinkFront> {
  const counting = new CounterHost({
    signatureHeader: options.signatureHeader,
    verifier,
    emit: (token, batch) => desk.counters.deliver(token, batch),
    problem: (line) => desk.log.problem(line),
  });
  const server = createServer((req, res) => {
    readRequest(req, options.maxBodyBytes, (body) => serve(counting, desk, req, res, body));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    announce: () => {},
    register: (token, classifier) => counting.register(token, classifier),
    flush: (token) => counting.flush(token),
    close: (token) => counting.close(token),
    async stop() {
      counting.stop();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
