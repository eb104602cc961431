/**
 * The one HTTP client of the harness, shared by conformance and load: undici underneath, a timeout on
 * every request, timing, and transport failures turned into coded one-line errors.
 */

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher, request } from 'undici';
import type { HttpMethod } from '../protocol/http-method.ts';
import { harnessError, isHarnessError } from '../shared/errors.ts';
import { afterBigAnswer, refusedAnswer } from '../shared/memory-relief.ts';
import { type AnswerMemory, answerMemory, refusedUnread } from './answer-memory.ts';
import { type Exchange, exchangeLogged, recordAnswer, recordExchange, textExcerpt, wholeText } from './exchange-log.ts';

export interface HttpRequest {
  readonly url: string;
  /** @default 'GET' */
  readonly method?: HttpMethod;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Whole-request budget in milliseconds, headers and body. @default 10_000 */
  readonly timeoutMs?: number;
  /**
   * The most an answer's body may hold; a longer one is garbage (SVC_TARGET_GARBAGE), read no further.
   * @default answerCapBytes(): this thread's cap (`defaultMaxAnswerBytes`, 100 MiB, ten times the spec's
   * largest request, unless the thread set its own: the conformance worker's is `judgedAnswerBytes`)
   */
  readonly maxAnswerBytes?: number;
  readonly dispatcher?: Dispatcher;
  /** Whose budget the answer is read within. @default answerMemory (64 MB for the process) */
  readonly answerMemory?: AnswerMemory;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  /** Milliseconds from sending to the last body byte. */
  readonly elapsedMs: number;
}

export const defaultTimeoutMs = 10_000;

let requestTimeout = defaultTimeoutMs;

/** The budget of a request that names none: `defaultTimeoutMs`, or the run's (`conformance --timeout`). */
export function requestTimeoutMs(): number {
  return requestTimeout;
}

/** Sets this thread's budget for requests that name none (the conformance worker, from its run's settings). */
export function setRequestTimeout(ms: number): void {
  requestTimeout = ms;
}
export const defaultMaxAnswerBytes = 100 * 1024 * 1024;

let answerCap = defaultMaxAnswerBytes;

/** The cap of a request that names none: `defaultMaxAnswerBytes`, or the thread's (`setAnswerCap`). */
export function answerCapBytes(): number {
  return answerCap;
}

/** Sets this thread's cap for requests that name none (the conformance worker: `judgedAnswerBytes`). */
export function setAnswerCap(bytes: number): void {
  answerCap = bytes;
}

const sharedAgent = new Agent({ connections: 64, keepAliveTimeout: 4_000 });

/** How to trust a target's certificate: a CA file to add, or none at all (`insecure`). */
export interface TlsTrust {
  readonly ca?: string;
  readonly insecure?: boolean;
}

const tlsAgents = new Map<string, Agent>();

/**
 * The dispatcher for a target's TLS settings: the shared agent when there are none, else one agent
 * per setting (kept for the process), trusting the CA file or, with `insecure`, any certificate.
 */
export function dispatcherFor(tls: TlsTrust | undefined): Dispatcher {
  if (!tls || (tls.ca === undefined && tls.insecure !== true)) return sharedAgent;
  const key = `${tls.ca ?? ''}\0${tls.insecure === true}`;
  let agent = tlsAgents.get(key);
  if (!agent) {
    const ca = tls.ca === undefined ? undefined : [...rootCertificates, readFileSync(tls.ca, 'utf8')];
    agent = new Agent({
      connections: 64,
      keepAliveTimeout: 4_000,
      connect: { ...(ca && { ca }), ...(tls.insecure === true && { rejectUnauthorized: false }) },
    });
    tlsAgents.set(key, agent);
  }
  return agent;
}

/**
 * A dispatcher of its own for a load run: `connections` sockets at most, one request on each at a
 * time (so the number in flight is bounded by it), with the target's TLS trust. The caller closes it.
 */
export function loadDispatcher(connections: number, tls: TlsTrust | undefined): Agent {
  return new Agent({ connections, pipelining: 1, keepAliveTimeout: 10_000, connect: tlsOptions(tls) });
}

/** A target's TLS trust as `tls.connect` options: its CA on top of Node's roots, or no check at all. */
export function tlsOptions(tls: TlsTrust | undefined): { ca?: string[]; rejectUnauthorized?: boolean } {
  const ca = tls?.ca === undefined ? undefined : [...rootCertificates, readFileSync(tls.ca, 'utf8')];
  return { ...(ca && { ca }), ...(tls?.insecure === true && { rejectUnauthorized: false }) };
}

/**
 * Sends one request; throws HarnessError SVC_TARGET_UNREACHABLE on transport failure or timeout (see
 * noAnswerOf), SVC_TARGET_GARBAGE when what came back is not HTTP or passes `maxAnswerBytes`. Any HTTP
 * answer within the cap is returned as it is, whatever its content type says: judging it is a check's job.
 */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  const timeoutMs = req.timeoutMs ?? requestTimeout;
  const started = performance.now();
  try {
    const res = await request(req.url, {
      method: req.method ?? 'GET',
      headers: req.headers ?? {},
      body: req.body ?? null,
      dispatcher: req.dispatcher ?? sharedAgent,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const max = req.maxAnswerBytes ?? answerCap;
    const declared = declaredLength(res.headers);
    const body = await readCapped(
      res.body,
      max,
      refusedUnread(declared, max, res.statusCode, req.method === 'HEAD') ? declared : undefined,
      req.url,
      req.answerMemory ?? answerMemory,
    );
    const answer = { status: res.statusCode, headers: res.headers, body, elapsedMs: performance.now() - started };
    afterBigAnswer(Math.max(sentBytes(req.body), body.length));
    // Inside a case's log: an answer that marks its exchange as the one judged when a check reads it.
    return exchangeLogged() ? recordAnswer(exchangeOf(req, answer), answer) : answer;
  } catch (error) {
    const thrown = isHarnessError(error) ? error : transportError(req.url, error, timeoutMs);
    if (exchangeLogged()) recordExchange(exchangeOf(req, undefined, thrown.message));
    afterBigAnswer(sentBytes(req.body));
    throw thrown;
  }
}

/** The bytes of a request's body as sent (a string as UTF-8). */
function sentBytes(body: string | Uint8Array | undefined): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : (body?.length ?? 0);
}

/** The request and the start of its answer (or why there was none), for a case's log. */
function exchangeOf(req: HttpRequest, res?: HttpResponse, error?: string): Exchange {
  const sent = req.body ?? '';
  // The body whole or not at all: a curl line cut inside its JSON cannot be pasted (issue 36); a longer
  // one is shown as its size (`@body-of-N-bytes`).
  const excerpt = sent === '' ? undefined : wholeText(sent);
  const contentType = res === undefined ? undefined : headerValue(res, 'content-type');
  const answer = res === undefined ? undefined : textExcerpt(res.body);
  return {
    method: req.method ?? 'GET',
    url: req.url,
    // A header the harness sends may carry what a target gave it (a token of megabytes): excerpts only.
    headers: Object.fromEntries(
      Object.entries(req.headers ?? {}).map(([name, value]) => [name, textExcerpt(value) ?? '']),
    ),
    ...(excerpt !== undefined && { body: excerpt }),
    bodyBytes: sentBytes(req.body),
    ...(res !== undefined && { status: res.status, answerBytes: res.body.length }),
    ...(contentType !== undefined && { contentType }),
    ...(answer !== undefined && { answer }),
    ...(error !== undefined && { error }),
  };
}

/** The body's length as its Content-Length declares it, when it is one number. */
function declaredLength(headers: Dispatcher.ResponseData['headers']): number | undefined {
  const value = headers['content-length'];
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The body's bytes, or SVC_TARGET_GARBAGE once it passes `max` (the rest is never read). A body refused
 * at its headers (`refused`: its declared length, past `max`; see `refusedUnread`) is not read at all:
 * it is an answer that ends, only longer than the request reads, so it is not counted as endless
 * (`noAnswerOf`), and says how to read it whole.
 */
async function readCapped(
  body: Dispatcher.ResponseData['body'],
  max: number,
  refused: number | undefined,
  url: string,
  memory: AnswerMemory,
): Promise<Buffer> {
  if (refused !== undefined) {
    // Destroyed unread, the body emits undici's AbortError: nobody reads it, so it must not go unheard.
    body.on('error', () => undefined);
    body.destroy();
    afterBigAnswer(refused, refusedAnswer);
    throw longAnswer(
      'SVC_TARGET_GARBAGE',
      `${safeOrigin(url)} answered ${refused} bytes (its Content-Length), more than the ${max} this request reads; not read (a target file's maxAnswerBytes sets the cap)`,
    );
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let resume = () => {};
  const reader = memory.reader(() => resume());
  try {
    for await (const chunk of body) {
      total += (chunk as Buffer).length;
      if (total > max) {
        body.destroy();
        // What was read of it is garbage now: collect it as after any big answer (at 4 MiB a cut, six
        // cases at a time against a 50 MB answerer held 60 MB of such chunks before V8 collected them).
        chunks.length = 0;
        afterBigAnswer(total);
        const error = longAnswer('SVC_TARGET_GARBAGE', `${safeOrigin(url)} answered more than ${max} bytes`);
        cutAnswers.add(error);
        throw error;
      }
      chunks.push(chunk as Buffer);
      // Past the budget: wait between chunks (undici stops reading the socket meanwhile).
      if (reader.hold((chunk as Buffer).length)) {
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
      }
    }
  } finally {
    reader.release();
  }
  const whole = Buffer.concat(chunks, total);
  chunks.length = 0;
  return whole;
}

/**
 * A socket the target closed or reset before its answer was whole (undici's UND_ERR_SOCKET is "other
 * side closed"): no answer at all, unlike bytes that are not HTTP.
 */
const resetCodes: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const timeoutCodes: ReadonlySet<string> = new Set([
  'TimeoutError',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** How a request got no (whole) answer. */
export type NoAnswer = 'refused' | 'reset' | 'timeout' | 'endless';

/** Errors of answers cut at `maxAnswerBytes`: the answer did not end, as a stalled one does not. */
const cutAnswers = new WeakSet<Error>();

/** Errors of answers longer than `maxAnswerBytes`, whether their length was declared or they were cut. */
const longAnswers = new WeakSet<Error>();

function longAnswer(...args: Parameters<typeof harnessError>): ReturnType<typeof harnessError> {
  const error = harnessError(...args);
  longAnswers.add(error);
  return error;
}

/** Whether an error of httpRequest is an HTTP answer longer than the request's cap (it came, and was not read). */
export function isLongAnswer(error: unknown): boolean {
  return error instanceof Error && longAnswers.has(error);
}

/**
 * Whether an error of httpRequest means the target gave no whole answer: it refused the connection,
 * reset or closed it, let the time run out, or sent a body that did not end before `maxAnswerBytes`
 * (an endless body is a stall that happens to send bytes: it stays an error of its case, SVC_TARGET_GARBAGE,
 * and read further it would have timed out). Anything else (bytes that are not HTTP, an untrusted
 * certificate, an unknown host) came with an answer or is a setting, so a run that meets it goes on
 * judging: a target that answers badly is still answering.
 */
export function noAnswerOf(error: unknown): NoAnswer | undefined {
  if (error instanceof Error && cutAnswers.has(error)) return 'endless';
  if (!isHarnessError(error) || error.code !== 'SVC_TARGET_UNREACHABLE') return undefined;
  const code = errorCode(error.cause);
  if (code === 'ECONNREFUSED') return 'refused';
  if (code !== undefined && resetCodes.has(code)) return 'reset';
  if (code !== undefined && timeoutCodes.has(code)) return 'timeout';
  return undefined;
}

/** OpenSSL's and Node's codes for a certificate the client does not trust. */
const tlsTrustCodes = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT/;

/** undici's parser error may carry no code: its name is what says "this was not HTTP". */
const httpParserError = 'HTTPParserError';

/** Maps undici and socket failures to one readable line. */
export function transportError(url: string, error: unknown, timeoutMs: number) {
  const code = errorCode(error);
  const origin = safeOrigin(url);
  if (code === 'ECONNREFUSED') return harnessError('SVC_TARGET_UNREACHABLE', `${origin} refused the connection`, error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return harnessError('SVC_TARGET_UNREACHABLE', `${origin}: host not found`, error);
  if (code !== undefined && timeoutCodes.has(code))
    return harnessError('SVC_TARGET_UNREACHABLE', `${origin} did not answer within ${timeoutMs} ms`, error);
  if (code !== undefined && resetCodes.has(code))
    return harnessError('SVC_TARGET_UNREACHABLE', `${origin} closed the connection without an answer (${code})`, error);
  // llhttp names every way a response can break HTTP with an HPE_ code (a bad status line, header
  // token, missing CR…): all of them mean the target did not speak HTTP.
  if (code?.startsWith('HPE_') || code === httpParserError)
    return harnessError('SVC_TARGET_GARBAGE', `${origin} did not answer with HTTP (${code})`, error);
  if (code !== undefined && tlsTrustCodes.test(code)) {
    return harnessError(
      'SVC_TARGET_UNREACHABLE',
      `${origin}: its TLS certificate is not trusted (${code}); name its CA in the target file (tls.ca), or set tls.insecure for a staging target`,
      error,
    );
  }
  if (code === 'ERR_INVALID_URL' || code === 'UND_ERR_INVALID_ARG')
    return harnessError('SVC_CONFIG', `invalid URL ${JSON.stringify(url)}`, error);
  const text = error instanceof Error ? error.message : String(error);
  return harnessError('SVC_TARGET_UNREACHABLE', `${origin}: ${text}`, error);
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (current.name === 'TimeoutError') return 'TimeoutError';
    if (current.name === httpParserError) return code ?? httpParserError;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return code;
    current = current.cause;
  }
  return undefined;
}

/** The URL without query or credentials: query strings may hold tokens (`_token`, `svc_token`). */
export function safeOrigin(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the target';
  }
}

/** The body parsed as JSON, or undefined when it is not JSON. */
export function jsonBody(res: HttpResponse): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function headerValue(res: HttpResponse, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
