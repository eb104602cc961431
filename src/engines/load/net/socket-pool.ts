/**
 * The load engine's raw-socket HTTP/1.1 client: at most `connections` sockets, one request at a time
 * on each (no pipelining, as the undici path), requests written as one pre-encoded string, answers read
 * by http-parser-js (the maintained parser autocannon uses; no parser is written here). It exists for
 * cost: undici's per-request machinery (a handler object, a request object, header validation, its
 * timers) was the floor of the engine's CPU per request. Correctness-first callers keep undici.
 *
 * One answer is timed inside the parser's callback, as `exchange.ts` does on the undici path. Every
 * request has a deadline (the headers, then each piece of body, within `timeoutMs`), checked by one
 * timer for the whole pool instead of a timer per request. A request ends exactly once, with an
 * answer, an answer too long, or an error whose `code` `classifyError` knows (the same classes as the
 * undici path: refused, reset, timeout, garbage).
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import { HTTPParser } from 'http-parser-js';
import { AnswerMemory, type AnswerReader, refusedUnread } from '../../../http/answer-memory.ts';
import { afterBigAnswer, refusedAnswer, underLoad } from '../../../shared/memory-relief.ts';
import type { ExchangeResult } from '../exchange.ts';

export interface SocketPoolOptions {
  /** `http:` or `https:` origin. */
  readonly origin: URL;
  readonly connections: number;
  readonly timeoutMs: number;
  readonly maxAnswerBytes: number;
  /** What the answers being read may hold together before all but one pause. @default answerBudgetBytes */
  readonly answerBudgetBytes?: number;
  /** `tls.connect`'s trust options (`tlsOptions` of the target's TLS settings). */
  readonly tls?: { readonly ca?: readonly string[]; readonly rejectUnauthorized?: boolean };
}

/** Told once per request, with the context the request was sent with. */
export type AnswerListener<Context> = (context: Context, result: ExchangeResult) => void;

const decoder = new TextDecoder();

/**
 * What the answers being read may hold together (`AnswerMemory`: past it, one reads on and the others'
 * sockets pause). A paused answer's deadline waits too: the harness, not the target, is the cause.
 */
export const answerBudgetBytes = 32 * 1024 * 1024;

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

interface HeadersInfo {
  readonly statusCode: number;
  readonly headers: readonly string[];
  readonly shouldKeepAlive: boolean;
}

class Connection<Context> {
  readonly socket: Socket;
  readonly parser: InstanceType<typeof HTTPParser>;
  /** The request in flight; undefined while idle. */
  context: Context | undefined;
  skipBody = false;
  deadline = 0;
  status = 0;
  contentType = '';
  keepAlive = true;
  chunks: Buffer[] = [];
  size = 0;
  /** Set by the parser's message-complete callback; delivered after `execute` returns. */
  completedAt = 0;
  closed = false;
  /** Counted out of the pool's open connections (once). */
  forgotten = false;
  /** Whether the chunk being parsed is the pool's read buffer (copy what is kept) or the socket's own. */
  reading: 'reused' | 'owned' = 'owned';
  /** The first of `chunks` that is a view of the pool's read buffer (copied when the read ends); -1 for none. */
  borrowedFrom = -1;
  /** This connection's answers within the pool's memory budget. */
  readonly reader: AnswerReader;

  readonly pool: SocketPool<Context>;

  constructor(pool: SocketPool<Context>) {
    this.pool = pool;
    // Plain sockets read into the pool's one buffer and call back straight from the read (`onread`):
    // no Readable stream pushes, buffers or 'data' events per answer, which were a third of the
    // engine's CPU per answer. TLS sockets keep 'data' (their reads are the decrypted stream's).
    const socket = pool.connectSocket((length, buffer) => this.onRead(length, buffer as Buffer));
    this.socket = socket;
    this.reader = pool.memory.reader(() => this.resume());
    this.parser = new HTTPParser(HTTPParser.RESPONSE);
    this.parser[HTTPParser.kOnHeadersComplete] = (info: unknown) => this.onHeaders(info as HeadersInfo);
    this.parser[HTTPParser.kOnBody] = (chunk: Buffer, offset: number, length: number) =>
      this.onBody(chunk, offset, length);
    this.parser[HTTPParser.kOnMessageComplete] = () => this.onComplete();
    socket.setNoDelay(true);
    if (!pool.reusesReads) socket.on('data', (chunk: Buffer) => this.onData(chunk, false));
    socket.on('end', () => this.onEnd());
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.onClose());
  }

  begin(context: Context, payload: string, skipBody: boolean, now: number): void {
    this.context = context;
    this.skipBody = skipBody;
    this.deadline = now + this.pool.timeoutMs;
    this.status = 0;
    this.contentType = '';
    this.keepAlive = true;
    this.size = 0;
    this.completedAt = 0;
    this.socket.write(payload);
  }

  private onHeaders(info: HeadersInfo): number {
    this.status = info.statusCode;
    this.keepAlive = info.shouldKeepAlive;
    const headers = info.headers;
    let declared = 0;
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i] as string;
      if (name.length === 12 && name.toLowerCase() === 'content-type') this.contentType = headers[i + 1] ?? '';
      else if (name.length === 14 && name.toLowerCase() === 'content-length') declared = Number(headers[i + 1]);
    }
    // A body its Content-Length says is over the cap is not read at all (as the HTTP client does).
    if (this.context !== undefined && refusedUnread(declared, this.pool.maxAnswerBytes, this.status, this.skipBody)) {
      const end = performance.now();
      this.destroy();
      this.finish({ kind: 'too-long', status: this.status, limit: this.pool.maxAnswerBytes, end });
      // Nothing of it was read, but refused at this pace the dropped sockets and their first reads pile up.
      afterBigAnswer(declared, refusedAnswer);
      return 1;
    }
    // The body, from here on, must keep coming within the timeout (undici's bodyTimeout).
    this.deadline = performance.now() + this.pool.timeoutMs;
    return this.skipBody ? 1 : 0;
  }

  private onBody(chunk: Buffer, offset: number, length: number): void {
    if (this.context === undefined) return;
    this.size += length;
    if (this.size > this.pool.maxAnswerBytes) {
      this.chunks = [];
      this.borrowedFrom = -1;
      const end = performance.now();
      this.destroy();
      this.finish({ kind: 'too-long', status: this.status, limit: this.pool.maxAnswerBytes, end });
      afterBigAnswer(this.size, underLoad);
      return;
    }
    // A piece of the pool's read buffer is borrowed: read whole within this read, the answer is decoded
    // from it; one that goes on past it is copied when the read ends (ownPieces), as the next overwrites it.
    if (this.reading === 'reused' && this.borrowedFrom === -1) this.borrowedFrom = this.chunks.length;
    this.chunks.push(offset === 0 && length === chunk.length ? chunk : chunk.subarray(offset, offset + length));
    this.deadline = performance.now() + this.pool.timeoutMs;
    if (this.reader.hold(length)) {
      // Stops reading until the pool has room; its deadline waits too (the harness is the cause).
      this.deadline = Number.POSITIVE_INFINITY;
      this.socket.pause();
    }
  }

  /** Reads on after a pause for the pool's memory. */
  private resume(): void {
    this.deadline = performance.now() + this.pool.timeoutMs;
    this.socket.resume();
  }

  private onComplete(): void {
    // An informational answer (100 Continue) is not the answer: keep waiting for the real one.
    if (this.status < 200) {
      this.status = 0;
      return;
    }
    if (this.context !== undefined) this.completedAt = performance.now();
  }

  /** `onread`'s callback: `length` bytes of the pool's read buffer (valid until this returns). */
  private onRead(length: number, buffer: Buffer): boolean {
    this.onData(buffer.subarray(0, length), true);
    this.ownPieces();
    // True: reading goes on (a pause for the memory budget is the socket's own `pause()`).
    return true;
  }

  private onData(chunk: Buffer, reused: boolean): void {
    this.reading = reused ? 'reused' : 'owned';
    const parsed = this.parser.execute(chunk);
    if (this.completedAt !== 0 && this.context !== undefined) this.deliver();
    if (parsed instanceof Error) {
      const code = (parsed as Error & { code?: string }).code;
      this.fail(codedError(code?.startsWith('HPE_') ? code : 'HPE_INVALID', `not HTTP: ${parsed.message}`));
      this.destroy();
    }
  }

  /** Copies the pieces still borrowed from the pool's read buffer: the next read overwrites it. */
  private ownPieces(): void {
    if (this.borrowedFrom === -1) return;
    for (let i = this.borrowedFrom; i < this.chunks.length; i++) {
      const piece = this.chunks[i] as Buffer;
      this.chunks[i] = Buffer.copyBytesFrom(piece, 0, piece.length);
    }
    this.borrowedFrom = -1;
  }

  private deliver(): void {
    const end = this.completedAt;
    const chunks = this.chunks;
    // The pieces are let go before the text is made: a big answer is held twice at most, not three times.
    this.chunks = [];
    this.borrowedFrom = -1;
    const whole = chunks.length <= 1 ? chunks[0] : Buffer.concat(chunks, this.size);
    chunks.length = 0;
    const body = whole === undefined ? '' : decoder.decode(whole);
    const { status, contentType } = this;
    const reusable = this.keepAlive;
    // Idle before the listener runs: it may send the next request on this very connection.
    if (!reusable) this.destroy();
    this.finish({ kind: 'answer', status, contentType, body, end }, reusable);
    // Judged by now: the answer's copies are garbage, and a big one's are collected before they pile up.
    afterBigAnswer(whole?.length ?? 0, underLoad);
  }

  private onEnd(): void {
    // An answer without a length ends with the connection.
    if (this.context !== undefined) {
      this.parser.finish();
      if (this.completedAt !== 0 && this.context !== undefined) this.deliver();
    }
    this.fail(codedError('ECONNRESET', 'the connection closed before the answer'));
    this.destroy();
  }

  private onClose(): void {
    this.fail(codedError('ECONNRESET', 'the connection closed before the answer'));
    this.closed = true;
    this.pool.forget(this);
  }

  /** Ends the request in flight, if any, with this error. */
  fail(error: Error): void {
    if (this.context === undefined) return;
    const end = performance.now();
    // Out of the pool first: the listener may send the next request, which then gets a new connection.
    this.destroy();
    this.finish({ kind: 'error', error, end });
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.chunks = [];
    this.borrowedFrom = -1;
    this.pool.forget(this);
    this.socket.destroy();
  }

  private finish(result: ExchangeResult, reusable = false): void {
    const context = this.context as Context;
    this.context = undefined;
    this.reader.release();
    this.pool.ended(this, context, result, reusable && !this.closed);
  }
}

export class SocketPool<Context> {
  readonly timeoutMs: number;
  readonly maxAnswerBytes: number;
  private readonly idle: Connection<Context>[] = [];
  private readonly busy = new Set<Connection<Context>>();
  private open = 0;
  private wheel: NodeJS.Timeout | undefined;
  private readonly wheelMs: number;
  /** Opens a socket; a plain one calls `onRead` from its reads into the pool's buffer (`reusesReads`). */
  readonly connectSocket: (onRead: (length: number, buffer: Buffer) => boolean) => Socket;
  /** Plain sockets read through `onread` into one buffer the pool's connections share. */
  readonly reusesReads: boolean;

  private readonly options: SocketPoolOptions;
  private readonly listener: AnswerListener<Context>;
  /** The answers being read: what they hold, how many waited for room. */
  readonly memory: AnswerMemory;

  constructor(options: SocketPoolOptions, listener: AnswerListener<Context>) {
    this.options = options;
    this.listener = listener;
    this.timeoutMs = options.timeoutMs;
    this.maxAnswerBytes = options.maxAnswerBytes;
    this.memory = new AnswerMemory(options.answerBudgetBytes ?? answerBudgetBytes);
    // A deadline is seen at most a tenth of the timeout late (between 5 and 100 ms).
    this.wheelMs = Math.min(100, Math.max(5, Math.floor(options.timeoutMs / 10)));
    const { origin, tls } = options;
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    const secure = origin.protocol === 'https:';
    const port = Number(origin.port || (secure ? 443 : 80));
    this.reusesReads = !secure;
    // One read at a time on this thread: every plain connection reads into the same buffer.
    const readBuffer = Buffer.allocUnsafe(64 * 1024);
    this.connectSocket = secure
      ? () =>
          tlsConnect({
            host,
            port,
            // SNI names a host, never an address (RFC 6066; Node warns on stderr when given one).
            ...(isIP(host) === 0 && { servername: host }),
            ...(tls?.ca && { ca: [...tls.ca] }),
            ...(tls?.rejectUnauthorized === false && { rejectUnauthorized: false }),
          })
      : (onRead) => netConnect({ host, port, onread: { buffer: readBuffer, callback: onRead } });
  }

  /** Requests in flight. */
  get inFlight(): number {
    return this.busy.size;
  }

  /**
   * Sends one pre-encoded request on an idle connection, or a new one while fewer than `connections`
   * are open. False when every connection is busy: the caller counts the request as dropped.
   */
  send(payload: string, context: Context, skipBody = false): boolean {
    let connection = this.idle.pop();
    if (connection === undefined) {
      if (this.open >= this.options.connections) return false;
      connection = new Connection(this);
      this.open++;
    }
    this.busy.add(connection);
    connection.begin(context, payload, skipBody, performance.now());
    // One timer for the pool, from its first request until it closes (not armed and cleared per request).
    this.wheel ??= setInterval(() => this.expire(), this.wheelMs).unref();
    return true;
  }

  /** From a connection: its request ended; it is idle again when reusable. */
  ended(connection: Connection<Context>, context: Context, result: ExchangeResult, reusable: boolean): void {
    this.busy.delete(connection);
    if (reusable) this.idle.push(connection);
    this.listener(context, result);
  }

  /** From a connection that closed: it is neither idle nor open any more. */
  forget(connection: Connection<Context>): void {
    if (connection.forgotten) return;
    connection.forgotten = true;
    this.open--;
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
  }

  private expire(): void {
    const now = performance.now();
    for (const connection of this.busy) {
      if (connection.deadline <= now) {
        connection.fail(codedError('ETIMEDOUT', `no answer within ${this.timeoutMs} ms`));
      }
    }
  }

  /** Closes every connection; a request still in flight ends as reset. */
  close(): void {
    if (this.wheel !== undefined) clearInterval(this.wheel);
    this.wheel = undefined;
    for (const connection of [...this.busy, ...this.idle]) connection.destroy();
  }
}
