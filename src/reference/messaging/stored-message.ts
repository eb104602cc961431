/**
 * A message as the reference keeps it in Redis: everything a delivery attempt, a retry, a callback
 * and a dead-letter entry need, so a restarted reference carries on from Redis alone.
 */

/** What made the message: a publish (or enqueue), a callback, a failure callback, a notify, a waiter's timeout. */
export type MessageKind = 'publish' | 'callback' | 'failure-callback' | 'notify' | 'timeout';

/** How a callback or failure callback is sent (the `Svc-Callback-*` / `Svc-Failure-Callback-*` headers). */
export interface CallbackConfig {
  readonly url: string;
  readonly method?: string;
  readonly retries?: number;
  readonly timeoutMs?: number;
  readonly delayMs?: number;
  /** `<Header-Name>` → value, from `…-Forward-<Header-Name>`. */
  readonly forward: Readonly<Record<string, string>>;
}

export interface StoredMessage {
  readonly id: string;
  readonly kind: MessageKind;
  readonly url: string;
  readonly method: string;
  /** Headers sent to the destination: the forwarded ones and the content type. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, base64. */
  readonly body: string;
  /** Unix milliseconds. */
  readonly createdAt: number;
  /** Unix milliseconds of the first attempt. */
  readonly notBefore: number;
  readonly maxRetries: number;
  /** Retries made so far (0 before and during the first attempt). */
  readonly retried: number;
  /** Per-attempt timeout. */
  readonly timeoutMs: number;
  readonly queue?: string;
  /** The URL group (topic) the message was sent through, and its endpoint's name when it has one. */
  readonly topicName?: string;
  readonly endpointName?: string;
  readonly callback?: CallbackConfig;
  readonly failureCallback?: CallbackConfig;
  /** Headers of the publish request (never its credentials), for callback bodies. */
  readonly sourceHeader: Readonly<Record<string, string>>;
  readonly callerIP: string;
  /** Set on callbacks and failure callbacks: the message they report on. */
  readonly sourceMessageId?: string;
  /** Where the message ended: set once, with the final write. */
  readonly state?: 'delivered' | 'failed';
  readonly dlqId?: string;
}

/** What one delivery attempt got: the destination's answer, or why there was none. */
export type AttemptOutcome =
  | {
      readonly answered: true;
      readonly status: number;
      readonly header: Readonly<Record<string, string[]>>;
      /** The response body, truncated to the plan's maximum message size. */
      readonly body: Buffer;
      /** The full length, when the body was truncated. */
      readonly truncatedFrom?: number;
    }
  | { readonly answered: false; readonly reason: string };

export function isSuccess(outcome: AttemptOutcome): boolean {
  return outcome.answered && outcome.status >= 200 && outcome.status < 300;
}
