/**
 * One request through undici's dispatch API, callbacks instead of promises and streams: the answer's
 * end is timed inside the parser's own callback, before any promise or stream machinery, so when a
 * thousand held answers arrive at once each is timed when it came, not when its turn in the event
 * loop's queue came (measured: a promise-and-stream read timed the p90 request of a released stall
 * about 40 ms late), and a request costs fewer allocations.
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { type AnswerMemory, refusedUnread } from '../../http/answer-memory.ts';
import { afterBigAnswer, refusedAnswer, underLoad } from '../../shared/memory-relief.ts';

export type ExchangeResult =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly contentType: string;
      readonly body: string;
      readonly end: number;
    }
  /** Longer than `limit` bytes: read no further, the connection dropped. */
  | { readonly kind: 'too-long'; readonly status: number; readonly limit: number; readonly end: number }
  | { readonly kind: 'error'; readonly error: Error; readonly end: number };

const decoder = new TextDecoder();

export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  maxAnswerBytes: number,
  memory: AnswerMemory,
  done: (result: ExchangeResult) => void,
): void {
  let status = 0;
  let contentType = '';
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let finished = false;
  // Within the transport's answer budget: past it, this answer's socket pauses until the lead one ends.
  let paused: Dispatcher.DispatchController | undefined;
  const reader = memory.reader(() => {
    const controller = paused;
    paused = undefined;
    // Not now: the release that resumes this one runs inside another connection's parser, and undici
    // parses one connection at a time (resuming here fails its `currentParser === null` assertion).
    if (controller !== undefined) setImmediate(() => controller.resume());
  });
  const finish = (result: ExchangeResult) => {
    reader.release();
    if (finished) return;
    finished = true;
    done(result);
  };
  dispatcher.dispatch(options, {
    // undici checks that a handler has every step, even one it does nothing in.
    onRequestStart() {},
    onResponseStart(controller, statusCode, headers) {
      status = statusCode;
      const type = headers['content-type'];
      contentType = Array.isArray(type) ? (type[0] ?? '') : (type ?? '');
      // A body its Content-Length says is over the cap is not read at all (as the HTTP client does).
      const length = headers['content-length'];
      const declared = typeof length === 'string' ? Number(length) : undefined;
      if (refusedUnread(declared, maxAnswerBytes, statusCode, options.method === 'HEAD')) {
        tooLong = true;
        finish({ kind: 'too-long', status, limit: maxAnswerBytes, end: performance.now() });
        controller.abort(new Error('an answer longer than maxAnswerBytes'));
        // Nothing of it was read, but refused at this pace the dropped sockets and their first reads pile up.
        afterBigAnswer(declared ?? 0, refusedAnswer);
      }
    },
    onResponseData(controller, chunk) {
      if (tooLong) return;
      size += chunk.length;
      if (size > maxAnswerBytes) {
        tooLong = true;
        chunks.length = 0;
        finish({ kind: 'too-long', status, limit: maxAnswerBytes, end: performance.now() });
        controller.abort(new Error('an answer longer than maxAnswerBytes'));
        afterBigAnswer(size, underLoad);
        return;
      }
      chunks.push(chunk);
      if (reader.hold(chunk.length)) {
        paused = controller;
        controller.pause();
      }
    },
    onResponseEnd() {
      const end = performance.now();
      const body = chunks.length === 1 ? decoder.decode(chunks[0]) : decoder.decode(Buffer.concat(chunks, size));
      chunks.length = 0;
      finish({ kind: 'answer', status, contentType, body, end });
      afterBigAnswer(size, underLoad);
    },
    onResponseError(_controller, error) {
      finish({ kind: 'error', error, end: performance.now() });
    },
  });
}
