/**
 * Server-sent event streams (area B's /monitor and /subscribe): undici for the request,
 * eventsource-parser for the framing, and a timeout on opening and on every wait for an event.
 */
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { type Dispatcher, request } from 'undici';
import { harnessError } from '../shared/errors.ts';
import { type Exchange, exchangeLogged, recordAnswer, recordExchange, textExcerpt } from './exchange-log.ts';
import { defaultMaxAnswerBytes, transportError } from './http-client.ts';

export interface SseOpenOptions {
  readonly url: string;
  /** @default 'POST' */
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  /** Budget for the response headers, in milliseconds. @default 5_000 */
  readonly openTimeoutMs?: number;
  /**
   * The most the stream may hold in events not yet taken; past it the stream ends as garbage, so a
   * target that floods a reader cannot grow the harness's memory. @default 100 MiB
   */
  readonly maxBufferedBytes?: number;
  readonly dispatcher?: Dispatcher;
}

export interface SseStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The next event's data, or throws SVC_TARGET_UNREACHABLE after `timeoutMs` (default 5000). */
  next(timeoutMs?: number): Promise<string>;
  /** Events received but not yet taken by `next`. */
  pending(): readonly string[];
  close(): void;
}

export async function openSse(options: SseOpenOptions): Promise<SseStream> {
  const controller = new AbortController();
  const openTimeoutMs = options.openTimeoutMs ?? 5_000;
  const timer = setTimeout(() => controller.abort(new Error('open timeout')), openTimeoutMs);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(options.url, {
      method: options.method ?? 'POST',
      headers: { accept: 'text/event-stream', ...options.headers },
      signal: controller.signal,
      headersTimeout: openTimeoutMs,
      bodyTimeout: 0,
      ...(options.dispatcher && { dispatcher: options.dispatcher }),
    });
  } catch (error) {
    const thrown = transportError(options.url, error, openTimeoutMs);
    if (exchangeLogged()) recordExchange(streamExchange(options, undefined, thrown.message));
    throw thrown;
  } finally {
    clearTimeout(timer);
  }

  const queue: string[] = [];
  const waiters: Array<(data: string | Error) => void> = [];
  let ended: Error | undefined;
  let queuedBytes = 0;
  const maxBufferedBytes = options.maxBufferedBytes ?? defaultMaxAnswerBytes;
  const deliver = (item: string | Error) => {
    const waiter = waiters.shift();
    if (waiter) waiter(item);
    else if (typeof item === 'string') {
      queue.push(item);
      queuedBytes += item.length;
      if (queuedBytes > maxBufferedBytes) {
        ended ??= harnessError(
          'SVC_TARGET_GARBAGE',
          `event stream sent more than ${maxBufferedBytes} bytes not yet read`,
        );
        res.body.destroy();
      }
    }
  };
  const contentType = res.headers['content-type'];
  if (
    res.statusCode < 200 ||
    res.statusCode > 299 ||
    typeof contentType !== 'string' ||
    !/^text\/event-stream\b/i.test(contentType.trim())
  ) {
    // Not an event stream: the caller judges its status and content type, and no event can come of it.
    // Its body is never parsed (a 50 MB JSON answer to /monitor would sit whole in the parser's
    // unfinished line) nor read.
    ended = harnessError(
      'SVC_TARGET_UNREACHABLE',
      `not an event stream (status ${res.statusCode}, content type ${contentType ?? 'none'})`,
    );
    res.body.on('error', () => undefined);
    res.body.destroy();
  }
  const parser = createParser({
    onEvent: (event: EventSourceMessage) => deliver(event.data),
    // What waits in the parser for the end of its line or event is bounded like the events not yet read.
    maxBufferSize: maxBufferedBytes,
    onError: (error: ParseError) => {
      if (error.type !== 'max-buffer-size-exceeded') return;
      ended ??= harnessError(
        'SVC_TARGET_GARBAGE',
        `event stream sent more than ${maxBufferedBytes} bytes of one event`,
      );
      res.body.destroy();
    },
  });
  res.body.on('data', (chunk: Buffer) => {
    if (ended === undefined) parser.feed(chunk.toString('utf8'));
  });
  const finish = (reason: string) => {
    ended ??= harnessError('SVC_TARGET_UNREACHABLE', `event stream ${reason}`);
    for (const waiter of waiters.splice(0)) waiter(ended);
  };
  res.body.on('end', () => finish('ended'));
  res.body.on('error', () => finish('was closed'));

  const stream: SseStream = {
    status: res.statusCode,
    headers: res.headers,
    pending: () => [...queue],
    next(timeoutMs = 5_000) {
      const queued = queue.shift();
      if (queued !== undefined) {
        queuedBytes -= queued.length;
        return Promise.resolve(queued);
      }
      if (ended) return Promise.reject(ended);
      return new Promise<string>((resolve, reject) => {
        const onItem = (item: string | Error) => {
          clearTimeout(wait);
          if (typeof item === 'string') resolve(item);
          else reject(item);
        };
        const wait = setTimeout(() => {
          waiters.splice(waiters.indexOf(onItem), 1);
          reject(harnessError('SVC_TARGET_UNREACHABLE', `no event within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(onItem);
      });
    },
    close() {
      ended ??= harnessError('SVC_TARGET_UNREACHABLE', 'event stream closed');
      controller.abort();
      res.body.destroy();
    },
  };
  // Inside a case's log: the stream's opening is an exchange, judged when a check reads the stream.
  return exchangeLogged() ? recordAnswer(streamExchange(options, res), stream) : stream;
}

/** The opening of a stream (its answer's status and content type, never its events), for a case's log. */
function streamExchange(options: SseOpenOptions, res?: Dispatcher.ResponseData, error?: string): Exchange {
  const contentType = res?.headers['content-type'];
  return {
    method: options.method ?? 'POST',
    url: options.url,
    headers: Object.fromEntries(
      Object.entries({ accept: 'text/event-stream', ...options.headers }).map(([name, value]) => [
        name,
        textExcerpt(value) ?? '',
      ]),
    ),
    bodyBytes: 0,
    ...(res !== undefined && { status: res.statusCode }),
    ...(contentType !== undefined && {
      contentType: Array.isArray(contentType) ? contentType.join(', ') : contentType,
    }),
    ...(error !== undefined && { error }),
  };
}
