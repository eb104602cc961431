/**
 * Renders outcomes as area B answers: `{result}` / `{error}` JSON (spec "Key-value REST responses"),
 * arrays of those for pipelines and transactions, or raw RESP2 bytes.
 */

import type { KvFaultCheck } from './kv-fault-check.ts';
import type { ResponseOptions } from './kv-headers.ts';
import { dailyLimitError, maxRequestSizeError } from './kv-limits.ts';
import type { Outcome } from './kv-outcome.ts';
import { type KvSilenceCheck, noSilence, readOnlyRefusal403 } from './kv-silences.ts';
import { errorResp2, type JsonReplyOptions, toJsonReply, toResp2 } from './reply-format.ts';

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string | Buffer;
}

export class KvAnswers {
  readonly #fault: KvFaultCheck;
  readonly #silence: KvSilenceCheck;

  constructor(fault: KvFaultCheck, silence: KvSilenceCheck = noSilence) {
    this.#fault = fault;
    this.#silence = silence;
  }

  /** An `{error}` answer; the text starts with its class token (spec "Errors"). */
  error(status: number, text: string): Answer {
    // Silence unauthorized-text-plain: the 401 text of older deployments (notes), still an Error object.
    const said = status === 401 && this.#silence('unauthorized-text-plain') ? 'Unauthorized' : text;
    // Silence read-only-refusal-403: the Read Only token's refusal with another status (not shown).
    const code = text === readOnlyRefusal403 ? 403 : status;
    return this.#error(code, said);
  }

  #error(status: number, text: string): Answer {
    const body = { error: this.#errorText(text), ...(this.#fault('error-shape-extra-field') && { status }) };
    // Fault error-labelled-text-plain: a right {error} object under a wrong label.
    const answer = this.#json(status, body);
    return this.#fault('error-labelled-text-plain') ? { ...answer, contentType: 'text/plain; charset=utf-8' } : answer;
  }

  /** One command: 200 with `{result}`, or 400 with `{error}` (spec "Errors"). */
  single(outcome: Outcome, options: ResponseOptions): Answer {
    const status = this.#status(outcome);
    if (options.format === 'resp2') {
      // Spec rule (Svc-Response-Format): resp2 answers the raw reply as application/octet-stream.
      const flatten = this.#fault('resp2-flattens-nested');
      const okAsSimple = this.#fault('resp2-ok-values-simple');
      const body =
        outcome.kind === 'reply'
          ? toResp2(outcome.reply, flatten, okAsSimple)
          : errorResp2(this.#errorText(outcome.error));
      return { status, contentType: this.#resp2ContentType(), body };
    }
    if (outcome.kind === 'error') return this.error(status, outcome.error);
    // Fault digit-values-as-integers sniffs the answer of a single command only.
    return this.#json(status, this.#itemRenderer(options, this.#fault('digit-values-as-integers'))(outcome));
  }

  /** Pipelines and transactions: 200 with one result-or-error object per command, in order. */
  list(outcomes: readonly Outcome[], options: ResponseOptions): Answer {
    if (options.format === 'resp2') {
      // Not shown by the spec: the raw replies concatenated, as the real-world look-alikes do (notes).
      const flatten = this.#fault('resp2-flattens-nested');
      const replies = outcomes.map((outcome) =>
        outcome.kind === 'reply' ? toResp2(outcome.reply, flatten) : errorResp2(this.#errorText(outcome.error)),
      );
      // Silence pipeline-resp2-array: the replies as one RESP2 array, another reading of "the raw reply".
      const head = this.#silence('pipeline-resp2-array') ? [Buffer.from(`*${replies.length}\r\n`)] : [];
      const body = Buffer.concat([...head, ...replies]);
      return { status: 200, contentType: this.#resp2ContentType(), body };
    }
    const itemOptions = this.#fault('base64-items-plain') ? { ...options, base64: false } : options;
    if (this.#fault('raw-invalid-utf8-in-items')) {
      // Each string read as Latin-1 (one character per byte) and written back as Latin-1: the reply's
      // bytes go into the JSON text as they are, a raw 0xFF included, where rule 1 asks for U+FFFD.
      const items = outcomes.map(this.#itemRenderer(itemOptions, false, true));
      const answer = this.#json(200, items);
      return { ...answer, body: Buffer.from(String(answer.body), 'latin1') };
    }
    return this.#json(200, outcomes.map(this.#itemRenderer(itemOptions)));
  }

  /**
   * Spec "Errors": 200 when executed; 400 for syntax errors, unsupported commands, execution failures;
   * a backing store that is gone is the service's failure (500). Decided by the failure's kind alone.
   */
  #status(outcome: Outcome): number {
    if (outcome.kind === 'reply') return this.#fault('success-status-201') ? 201 : 200;
    if (outcome.error === readOnlyRefusal403) return 403;
    switch (outcome.errorKind) {
      case 'unavailable':
        return 500;
      case 'syntax':
        return this.#fault('syntax-error-200') ? 200 : 400;
      case 'unsupported':
        return this.#fault('unsupported-status-500') ? 500 : 400;
      default:
        return outcome.source === 'redis' && this.#fault('exec-failure-200') ? 200 : 400;
    }
  }

  /**
   * Renders one `{result}` or `{error}` item. The fault switches are looked up once per answer, not
   * once per item: a pipeline of thousands of commands renders them all with the same options.
   */
  #itemRenderer(
    options: ResponseOptions,
    digitsAsIntegers = false,
    rawBytes = false,
  ): (outcome: Outcome) => Record<string, unknown> {
    const replyOptions: JsonReplyOptions = {
      base64: options.base64,
      base64Ok: this.#fault('base64-encodes-ok'),
      latin1: rawBytes || this.#fault('no-utf8-replacement'),
      replacePerByte: this.#silence('utf8-replacement-per-byte'),
      nestedIntegersAsStrings: this.#silence('nested-integers-as-strings'),
      base64TopOnly: this.#fault('base64-top-level-only'),
      latin1Nested: this.#fault('utf8-replacement-top-level-only'),
      roundBigIntegers: this.#fault('big-integers-rounded'),
      base64OkValues: this.#fault('base64-skips-ok-values'),
      digitsAsIntegers,
    };
    const wrappedWrong = this.#fault('result-wrapped-wrong');
    return (outcome) => {
      if (outcome.kind === 'error') return { error: this.#errorText(outcome.error) };
      const value = toJsonReply(outcome.reply, replyOptions);
      return wrappedWrong ? { data: value } : { result: value };
    };
  }

  #errorText(text: string): string {
    if (this.#fault('error-without-class-token')) return text.replace(/^[A-Z]+ /, '');
    // Silence limit-errors-own-class: a class token of the service's own for its limits, no Redis class
    // (which words are class tokens beyond Redis's is not shown: B.observe.error-class).
    if (this.#silence('limit-errors-own-class') && (text === maxRequestSizeError || text === dailyLimitError))
      return text.replace(/^ERR /, 'LIMIT ');
    return text;
  }

  /** Spec rule (Svc-Response-Format): raw RESP2 is application/octet-stream. */
  #resp2ContentType(): string {
    return this.#fault('resp2-labelled-json') ? 'application/json' : 'application/octet-stream';
  }

  #json(status: number, value: unknown): Answer {
    // Silence content-type-parameters: the label spelled otherwise (a media type is case-insensitive, RFC
    // 9110 §8.3.1) with its charset parameter upper case; fastify adds `; charset=utf-8` to the plain one.
    const json = this.#silence('content-type-parameters') ? 'Application/JSON; charset=UTF-8' : 'application/json';
    const contentType = this.#fault('json-as-text-plain') ? 'text/plain; charset=utf-8' : json;
    return { status, contentType, body: JSON.stringify(value) };
  }
}
