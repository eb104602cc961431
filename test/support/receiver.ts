/**
 * A real HTTP receiver on loopback for area A's tests: destinations, callbacks, failure callbacks,
 * waiters and timeouts. It records every request (path, method, headers, raw body, arrival time)
 * and answers by path: a status per path prefix, a fixed number of failures first, or a delay.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly at: number;
}

/** How the receiver answers one path prefix. */
export interface Answer {
  /** @default 200 */
  readonly status?: number;
  /** Answer 500 to this many requests first, then `status`. */
  readonly failFirst?: number;
  /** Wait this long before answering. */
  readonly delayMs?: number;
  readonly body?: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Sets the answer for every path starting with `prefix` (the longest prefix wins). */
  answer(prefix: string, answer: Answer): void;
  /** Requests whose path starts with `prefix`. */
  on(prefix: string): Received[];
  /** Waits until `count` requests whose path starts with `prefix` arrived; throws after `timeoutMs`. */
  waitFor(prefix: string, count?: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, Answer>();
  const seen = new Map<string, number>();
  const waiting = new Set<() => void>();
  const answerFor = (path: string): [string, Answer] => {
    let best: [string, Answer] = ['', {}];
    for (const [prefix, answer] of answers) {
      if (path.startsWith(prefix) && prefix.length >= best[0].length) best = [prefix, answer];
    }
    return best;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      });
      for (const wake of waiting) wake();
      const [prefix, answer] = answerFor(path);
      const count = (seen.get(prefix) ?? 0) + 1;
      seen.set(prefix, count);
      const status = count <= (answer.failFirst ?? 0) ? 500 : (answer.status ?? 200);
      const send = () => {
        res.writeHead(status, { ...answer.headers });
        res.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const on = (prefix: string) => received.filter((item) => item.path.startsWith(prefix));
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (prefix, answer) => answers.set(prefix, answer),
    on,
    waitFor(prefix, count = 1, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = on(prefix);
          if (got.length < count) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve(got);
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`receiver: ${on(prefix).length} of ${count} requests to ${prefix} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
