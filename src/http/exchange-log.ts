/**
 * The requests a piece of work sent and what came back, kept for the reports: a conformance case runs
 * inside `logExchanges`, and every request the one HTTP client sends within it (however deep, through
 * whatever helper) lands in the case's log, so a failure can show the request that led to it and an
 * excerpt of the answer. Outside a log nothing is kept (load never pays for it). Only excerpts and
 * the last few exchanges are kept: a hostile target's 10 MB answers must not stay in memory.
 *
 * The log also knows which exchange a check judged: an answer the client hands back inside a log
 * marks its exchange as judged whenever one of its fields is read, and a check reads the answer it
 * judges right before it throws (in the same synchronous stretch, so cases and cells running beside
 * it cannot interleave). A failure built then takes `judgedExchange()`; the report's curl line is that
 * exchange, not merely the last one sent (a case that sends four requests and then checks the first
 * two would otherwise show the fourth).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { excerpt } from '../shared/excerpt.ts';

export interface Exchange {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The request body as sent, when it is text of at most `bodyChars` characters. */
  readonly body?: string;
  /** The request body's size in bytes (0 without one). */
  readonly bodyBytes: number;
  /** The answer: its status, content type and the start of its body; or why there was none. */
  readonly status?: number;
  readonly contentType?: string;
  readonly answer?: string;
  readonly answerBytes?: number;
  readonly error?: string;
}

/** How much of a body an exchange keeps. */
export const bodyChars = 2000;
/** How many exchanges a log keeps: the last ones (the judged one is kept apart, however old). */
const keptExchanges = 20;

/** The exchanges of one piece of work (a case), the one judged last, and when answers came and stopped coming. */
export class ExchangeLog {
  readonly #kept: Exchange[] = [];
  #judged: Exchange | undefined;
  #lastAnswerAt: number | undefined;
  #silentSince: number | undefined;

  /** The last exchanges, oldest first. */
  get exchanges(): readonly Exchange[] {
    return this.#kept;
  }

  /** The exchange whose answer was read last, or the last that got no answer, whichever came later. */
  get judged(): Exchange | undefined {
    return this.#judged;
  }

  /** When the last answer came (ms since the epoch); undefined when none came. */
  get lastAnswerAt(): number | undefined {
    return this.#lastAnswerAt;
  }

  /**
   * Since when no request got an answer: the first that got none after the last answer (ms since the
   * epoch); undefined while the latest request got one.
   */
  get silentSince(): number | undefined {
    return this.#silentSince;
  }

  record(exchange: Exchange, at: number = Date.now()): void {
    this.#kept.push(exchange);
    if (this.#kept.length > keptExchanges) this.#kept.shift();
    if (exchange.status !== undefined) {
      this.#lastAnswerAt = at;
      this.#silentSince = undefined;
    } else {
      this.#silentSince ??= at;
      // No answer: the error its request throws is what the work meets next, so it is the one judged.
      this.#judged = exchange;
    }
  }

  judge(exchange: Exchange): void {
    this.#judged = exchange;
  }
}

const storage = new AsyncLocalStorage<ExchangeLog>();
/** Set inside `unjudged`: answers read there are no check's. */
const quiet = new AsyncLocalStorage<true>();

/** Runs `work` with `log` collecting the exchanges it causes. */
export function logExchanges<T>(log: ExchangeLog, work: () => Promise<T>): Promise<T> {
  return storage.run(log, work);
}

/** Whether a log is collecting here: the client builds an exchange only then. */
export function exchangeLogged(): boolean {
  return storage.getStore() !== undefined;
}

/** Records an exchange that got no answer (or whose answer is not handed to anyone). */
export function recordExchange(exchange: Exchange): void {
  storage.getStore()?.record(exchange);
}

/**
 * Records an answered exchange and returns `answer` as a copy whose every field, when read, marks the
 * exchange as the one judged in the log it was recorded in. Outside a log, `answer` itself.
 */
export function recordAnswer<T extends object>(exchange: Exchange, answer: T): T {
  const log = storage.getStore();
  if (log === undefined) return answer;
  log.record(exchange);
  const marked = {} as T;
  for (const [key, value] of Object.entries(answer)) {
    Object.defineProperty(marked, key, {
      enumerable: true,
      get: () => {
        if (quiet.getStore() === undefined) log.judge(exchange);
        return value;
      },
    });
  }
  return marked;
}

/**
 * Runs `work` (a means the harness needs, not a check: the signing keys a sink verifies with) with its
 * requests still logged, but the answers it reads not marked as judged, so a failure the case meets
 * after it is shown with the exchange its check read, not with the keys read meanwhile.
 */
export function unjudged<T>(work: () => Promise<T>): Promise<T> {
  return quiet.run(true, work);
}

/** The exchange the work running here judged last: what a failure built now is about. */
export function judgedExchange(): Exchange | undefined {
  return storage.getStore()?.judged;
}

/** The whole text when it is UTF-8 of at most `bodyChars` characters, else undefined: never a cut copy. */
export function wholeText(bytes: Uint8Array | string): string | undefined {
  if (typeof bytes === 'string') return bytes.length <= bodyChars ? bytes : undefined;
  if (bytes.length > bodyChars * 4) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.length <= bodyChars ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Text of at most `bodyChars` characters, or undefined for bytes that are not UTF-8 text. */
export function textExcerpt(bytes: Uint8Array | string): string | undefined {
  if (typeof bytes === 'string') return excerpt(bytes, bodyChars);
  const head = bytes.subarray(0, bodyChars * 4);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: head.length < bytes.length });
  } catch {
    return undefined;
  }
  return text.length > bodyChars || head.length < bytes.length ? `${text.slice(0, bodyChars)}…` : text;
}
