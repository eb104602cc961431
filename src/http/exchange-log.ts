/**
 * The requests a piece of work sent and what came back, kept for the reports: a conformance case runs
 * inside `logExchanges`, and every request the one HTTP client sends within it (however deep, through
 * whatever helper) lands in the case's log, so a failure can show the request that led to it and an
 * excerpt of the answer. Outside a log nothing is kept (load never pays for it). Only excerpts and
 * the last few exchanges are kept: a hostile target's 10 MB answers must not stay in memory.
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
/** How many exchanges a log keeps: the last ones, the failure's among them. */
const keptExchanges = 20;

const storage = new AsyncLocalStorage<Exchange[]>();

/** Runs `work` with `log` collecting the exchanges it causes. */
export function logExchanges<T>(log: Exchange[], work: () => Promise<T>): Promise<T> {
  return storage.run(log, work);
}

/** Whether a log is collecting here: the client builds an exchange only then. */
export function exchangeLogged(): boolean {
  return storage.getStore() !== undefined;
}

export function recordExchange(exchange: Exchange): void {
  const log = storage.getStore();
  if (log === undefined) return;
  log.push(exchange);
  if (log.length > keptExchanges) log.shift();
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
