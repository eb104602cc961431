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
import { decodeJwt } from 'jose';
import { checkSignature, type SignatureCheck, type SigningKeys } from './sink-signature.ts';

/**
 * A request's signature as the sink saw it: verified, failed with a reason, or not judged (the target
 * declares no scheme the sink knows, or gives no keys), which is never a failure.
 */
export type RequestSignature = SignatureCheck | { readonly ok: 'unchecked'; readonly reason: string };

export interface SinkOptions {
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** The base URL the target must call. @default http://<host>:<port> */
  readonly publicUrl?: string;
  /** The header carrying the signature (`Svc-Signature`, `Upstash-Signature`). */
  readonly signatureHeader: string;
  /** The target's signature scheme; `none` leaves every signature unchecked. @default 'jwt-hs256' */
  readonly scheme?: 'jwt-hs256' | 'none';
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
  readonly signature: RequestSignature;
  /** The status the sink answered. */
  readonly answered: number;
  /** The headers and body the sink answered with, to compare with what a callback reports. */
  readonly answeredWith: { readonly headers: Readonly<Record<string, string>>; readonly body: Buffer };
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

/** What the sink answers when a role sets no body. */
const defaultAnswerBody = 'ok';

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
    return this.waitUntil(
      () => this.requests(role).length >= count,
      timeoutMs,
      () => {
        const got = this.requests(role).length;
        const seconds = Math.round(timeoutMs / 100) / 10;
        return count === 1 || got === 0
          ? `never arrived within ${seconds} s`
          : `${got} of ${count} arrived within ${seconds} s`;
      },
      signal,
    ).then(() => this.requests(role));
  }

  /**
   * Waits until `done()` holds, checked at once and after every request; `evidence()`, checked at the
   * same moments, ends the wait early with the error it gives (a request that already decides the
   * case). A timeout rejects with a SinkTimeout saying `shortfall()`.
   */
  waitUntil(
    done: () => boolean,
    timeoutMs: number,
    shortfall: () => string,
    signal?: AbortSignal,
    evidence: () => Error | undefined = () => undefined,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        let early: Error | undefined;
        try {
          early = evidence();
        } catch (error) {
          early = error instanceof Error ? error : new Error(String(error));
        }
        if (early !== undefined) finish(early);
        else if (done()) finish();
      };
      const onAbort = () => finish(new SinkTimeout('the case ended while waiting'));
      const timer = setTimeout(() => finish(new SinkTimeout(shortfall())), timeoutMs);
      this.#waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  /** Checks the pending waits again (a condition outside the inbox changed). */
  recheck(): void {
    for (const wake of this.#waiters) wake();
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
          item.signature.ok === true
            ? `ok (${item.signature.key} key)`
            : item.signature.ok === false
              ? item.signature.problem
              : `not checked (${item.signature.reason})`
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
  receive(request: Omit<SinkRequest, 'answered' | 'answeredWith'>): { status: number; answer: SinkAnswer } {
    const answer = this.#answers.get(request.role) ?? {};
    const seen = (this.#counts.get(request.role) ?? 0) + 1;
    this.#counts.set(request.role, seen);
    const status = seen <= (answer.failFirst ?? 0) ? 500 : (answer.status ?? 200);
    const answeredWith = { headers: { ...answer.headers }, body: Buffer.from(answer.body ?? defaultAnswerBody) };
    this.#requests.push({ ...request, answered: status, answeredWith });
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
  /** Unix milliseconds of the last request of any kind (inbox, stray or late); 0 before the first. */
  lastArrivalAt(): number;
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
  let lastArrivalAt = 0;
  /** Token ids already presented, each with the first request's path: a second use is a replay. */
  const seenIds = new Map<string, string>();

  const check = async (signature: string | undefined, url: string, body: Buffer): Promise<SignatureCheck> => {
    const first = await checkSignature(signature, keys, url, body);
    if (first.ok || signature === undefined) return first;
    // The keys may have been rotated since they were read: read them again once.
    keys = await options.keys().catch(() => keys);
    return checkSignature(signature, keys, url, body);
  };

  const verify = async (signature: string | undefined, url: string, body: Buffer): Promise<RequestSignature> => {
    if (options.scheme === 'none') return { ok: 'unchecked', reason: 'the target declares no signature scheme' };
    if (!keysRead) {
      keys = await options.keys().catch(() => undefined);
      keysRead = true;
    }
    if (keys === undefined) return { ok: 'unchecked', reason: 'the target gives no signing keys' };
    const result = await check(signature, url, body);
    if (!result.ok || signature === undefined) return result;
    // A token is made for one request (RFC 7519's jti): one presented again (a retry that reuses the
    // first attempt's token) is a replay a receiver must refuse.
    const id = jtiOf(signature);
    if (id === undefined) return result;
    const first = seenIds.get(id);
    if (first !== undefined)
      return { ok: false, problem: `the token (jti ${id}) was already used on ${first}: a replay` };
    seenIds.set(id, new URL(url).pathname.split('/').slice(2).join('/') || '/');
    return result;
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
      lastArrivalAt = at;
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
            res.end(answer.body ?? defaultAnswerBody);
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
    lastArrivalAt: () => lastArrivalAt,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The `jti` of a JWT, when it has one (its signature is checked elsewhere). */
function jtiOf(token: string): string | undefined {
  try {
    const { jti } = decodeJwt(token);
    return typeof jti === 'string' && jti !== '' ? jti : undefined;
  } catch {
    return undefined;
  }
}
