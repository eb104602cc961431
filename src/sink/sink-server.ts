/**
 * The sink: the HTTP receiver the harness runs for what a messaging target sends back (deliveries,
 * callbacks, failure callbacks, waiter notifications, timeouts). It binds where told and advertises
 * the URL the target must call (a tunnel's, a CI runner's). Each user (a conformance case, later a
 * load scenario) opens an inbox with a unique token that starts every URL it hands out, so requests
 * are matched to their inbox by path, never by timing. Every request is kept with its arrival time
 * and its signature checked against the target's signing keys; a request for no open inbox is a
 * stray, and one for a closed inbox is late: both are counted, never dropped silently.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { checkSignature, type SignatureCheck, type SigningKeys } from './sink-signature.ts';

export interface SinkOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** The base URL the target must call. @default http://<host>:<port> */
  readonly publicUrl?: string;
  /** The header carrying the signature (`Svc-Signature`, `Upstash-Signature`). */
  readonly signatureHeader: string;
  /** The target's signing keys; called again after a verification fails (keys may have rotated). */
  readonly keys: () => Promise<SigningKeys | undefined>;
  /** The most of one request body kept. @default 8 MiB */
  readonly maxBodyBytes?: number;
}

export interface SinkRequest {
  /** The role the inbox URL named: `dest`, `callback`, `failure`, … */
  readonly role: string;
  readonly method: string;
  /** The path after `/<token>/<role>`, with the query. */
  readonly rest: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Unix milliseconds of arrival. */
  readonly at: number;
  readonly signature: SignatureCheck;
  /** The status the sink answered. */
  readonly answered: number;
}

/** How the sink answers one role of an inbox. */
export interface SinkAnswer {
  /** @default 200 */
  readonly status?: number;
  /** Answer 500 to this many requests first. */
  readonly failFirst?: number;
  readonly body?: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering (a slow endpoint, for timeouts). */
  readonly delayMs?: number;
}

/** A request to the sink that no open inbox expected. */
export interface StrayRequest {
  readonly path: string;
  readonly method: string;
  readonly at: number;
  /** `stray`: no inbox has its token; `late`: its inbox was closed. */
  readonly kind: 'stray' | 'late';
}

export class SinkTimeout extends Error {
  override readonly name = 'SinkTimeout';
}

export class Inbox {
  readonly token: string;
  readonly label: string;
  readonly #base: string;
  readonly #requests: SinkRequest[] = [];
  readonly #answers = new Map<string, SinkAnswer>();
  readonly #counts = new Map<string, number>();
  readonly #waiters = new Set<() => void>();
  #closed = false;

  constructor(base: string, label: string) {
    this.token = randomBytes(9).toString('base64url');
    this.label = label;
    this.#base = base;
  }

  /** The URL to hand the target for `role` (letters, digits, `-`). */
  url(role: string, rest = ''): string {
    return `${this.#base}/${this.token}/${role}${rest}`;
  }

  answer(role: string, answer: SinkAnswer): void {
    this.#answers.set(role, answer);
  }

  /** Every request so far, or those of one role, in arrival order. */
  requests(role?: string): SinkRequest[] {
    return role === undefined ? [...this.#requests] : this.#requests.filter((item) => item.role === role);
  }

  /** Waits until `count` requests of `role` arrived; a SinkTimeout says how many did. */
  waitFor(role: string, count: number, timeoutMs: number, signal?: AbortSignal): Promise<SinkRequest[]> {
    return new Promise((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(this.requests(role));
      };
      const check = () => {
        if (this.requests(role).length >= count) done();
      };
      const onAbort = () => done(new SinkTimeout(`the case ended while waiting for ${role}`));
      const timer = setTimeout(() => {
        const got = this.requests(role).length;
        const seconds = Math.round(timeoutMs / 100) / 10;
        done(
          new SinkTimeout(
            count === 1 || got === 0
              ? `never arrived within ${seconds} s`
              : `${got} of ${count} arrived within ${seconds} s`,
          ),
        );
      }, timeoutMs);
      this.#waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  /** Waits `ms` so that requests that should not come have had their chance. */
  async settle(ms: number, signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** One line per request, for a case's details: role, method, status answered, signature, time. */
  describe(started: number): string[] {
    return this.#requests.map(
      (item) =>
        `sink: ${item.method} ${item.role}${item.rest} → ${item.answered} at +${item.at - started} ms, signature ${
          item.signature.ok ? `ok (${item.signature.key} key)` : item.signature.problem
        }`,
    );
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  /** Called by the server: records the request and picks the status to answer. */
  receive(request: Omit<SinkRequest, 'answered'>): { status: number; answer: SinkAnswer } {
    const answer = this.#answers.get(request.role) ?? {};
    const seen = (this.#counts.get(request.role) ?? 0) + 1;
    this.#counts.set(request.role, seen);
    const status = seen <= (answer.failFirst ?? 0) ? 500 : (answer.status ?? 200);
    this.#requests.push({ ...request, answered: status });
    for (const wake of this.#waiters) wake();
    return { status, answer };
  }
}

export interface Sink {
  /** The advertised base URL. */
  readonly url: string;
  /** Where it listens, which differs from `url` behind a tunnel. */
  readonly localUrl: string;
  /** Opens an inbox; `label` names its user in stray reports. */
  open(label: string): Inbox;
  /** Requests that matched no open inbox. */
  strays(): readonly StrayRequest[];
  close(): Promise<void>;
}

const pathPattern = /^\/([A-Za-z0-9_-]+)\/([A-Za-z0-9-]+)(.*)$/s;

export async function startSink(options: SinkOptions): Promise<Sink> {
  const host = options.host ?? '127.0.0.1';
  const maxBody = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const inboxes = new Map<string, Inbox>();
  const strays: StrayRequest[] = [];
  let keys: SigningKeys | undefined;
  let keysRead = false;
  let base = '';

  const verify = async (signature: string | undefined, url: string, body: Buffer): Promise<SignatureCheck> => {
    if (!keysRead) {
      keys = await options.keys().catch(() => undefined);
      keysRead = true;
    }
    const first = await checkSignature(signature, keys, url, body);
    if (first.ok || signature === undefined) return first;
    // The keys may have been rotated since they were read: read them again once.
    keys = await options.keys().catch(() => keys);
    return checkSignature(signature, keys, url, body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBody) chunks.push(chunk);
    });
    req.on('error', () => {});
    req.on('end', () => {
      const at = Date.now();
      const path = req.url ?? '/';
      const match = pathPattern.exec(path);
      const inbox = match ? inboxes.get(match[1] as string) : undefined;
      if (match === null || inbox === undefined || inbox.closed) {
        strays.push({ path: path.slice(0, 200), method: req.method ?? '', at, kind: inbox ? 'late' : 'stray' });
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no inbox');
        return;
      }
      const body = Buffer.concat(chunks);
      const header = req.headers[options.signatureHeader.toLowerCase()];
      verify(Array.isArray(header) ? header[0] : header, `${base}${path}`, body).then(
        (signature) => {
          const { status, answer } = inbox.receive({
            role: match[2] as string,
            method: req.method ?? '',
            rest: match[3] as string,
            headers: req.headers,
            body,
            at,
            signature,
          });
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(status, { ...answer.headers });
            res.end(answer.body ?? 'ok');
          };
          if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
          else send();
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const localUrl = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  base = (options.publicUrl ?? localUrl).replace(/\/+$/, '');
  return {
    url: base,
    localUrl,
    open(label) {
      const inbox = new Inbox(base, label);
      inboxes.set(inbox.token, inbox);
      return inbox;
    },
    strays: () => strays,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
