/**
 * A conformance case's inbox: every request it got, with its body, arrival time, signature and the
 * answer the sink gave, kept on the calling thread so a case's waits, answers and replay checks see all
 * of them in one place. Its token starts every URL it hands out, so requests find it by path.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { inboxUrl, type SinkBase } from './sink-paths.ts';
import type { RequestSignature } from './sink-verifier.ts';

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
  /**
   * Where the same token (its `jti`) was presented first, when this request presents one again: a
   * re-send with the token it was signed with. Recorded, never refused: the spec shows no signature
   * scheme, and RFC 7519 makes `jti` optional, so a replay is an observation, not a failure.
   */
  readonly replayOf?: string;
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

/** A token no one can guess: it starts every URL of one inbox. */
export const newToken = (): string => randomBytes(9).toString('base64url');

/** What the sink answers when a role sets no body. */
export const defaultAnswerBody = 'ok';

export class SinkTimeout extends Error {
  override readonly name = 'SinkTimeout';
}

export class Inbox {
  readonly token: string;
  readonly label: string;
  readonly #base: SinkBase;
  readonly #requests: SinkRequest[] = [];
  readonly #answers = new Map<string, SinkAnswer>();
  readonly #counts = new Map<string, number>();
  readonly #waiters = new Set<() => void>();
  #closed = false;

  constructor(base: SinkBase, label: string) {
    this.token = newToken();
    this.label = label;
    this.#base = base;
  }

  /** The URL to hand the target for `role` (letters, digits, `-`). */
  url(role: string, rest = ''): string {
    return inboxUrl(this.#base, this.token, role, rest);
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
        }${item.replayOf === undefined ? '' : ` (its token was presented before, on ${item.replayOf})`}`,
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
