/**
 * The delivery loop: claims due messages from Redis, runs their attempts within the plan's
 * parallelism (per endpoint and global), and writes each outcome with the messages it causes
 * (callbacks after an answered attempt, the failure callback and dead-letter entry after the last)
 * in one MULTI. It also moves queued messages to due while their queue is active, and ends waiters
 * whose deadline passed. Started after `recover`, so attempts a killed process left are tried again.
 */
import { randomBytes } from 'node:crypto';
import type { Dialect } from '../../target/dialects.ts';
import type { AccountStore, MessagingAccount } from '../account/messaging-account.ts';
import { backoffMs, type RetryBackoff } from './backoff.ts';
import { callbackBody, callbackText, failureCallbackBody } from './callback-body.ts';
import type { Deliverer } from './deliverer.ts';
import type { AttemptWrite, DeadLetter, MessageStore } from './message-store.ts';
import type { MessagingFaultCheck } from './messaging-faults.ts';
import { defaultRetries, newMessageId } from './publish-request.ts';
import type { SigningKeyStore } from './signing-keys.ts';
import { type AttemptOutcome, type CallbackConfig, isSuccess, type StoredMessage } from './stored-message.ts';
import type { WaiterStore } from './waiters.ts';

export interface DispatcherParts {
  readonly store: MessageStore;
  readonly waiters: WaiterStore;
  readonly keys: SigningKeyStore;
  readonly account: AccountStore;
  readonly deliverer: Deliverer;
  readonly dialect: Dialect;
  readonly fault: MessagingFaultCheck;
  readonly backoff: RetryBackoff;
  /** Where a failed write to Redis is reported (the reference has no logger; tests read stderr). */
  readonly warn: (line: string) => void;
}

const idleWaitMs = 25;
const pumpEveryMs = 20;
const waiterSweepEveryMs = 200;

/** The destination of the message a callback reports on (its body's `url`), for the wrong-sub fault. */
function sourceUrlOf(message: StoredMessage): string {
  try {
    const body = JSON.parse(Buffer.from(message.body, 'base64').toString('utf8')) as { url?: unknown };
    return typeof body.url === 'string' ? body.url : message.url;
  } catch {
    return message.url;
  }
}

/** The endpoint parallelism counts against: the destination URL without its query. */
function endpointOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : url.slice(0, at);
}

export class Dispatcher {
  readonly #parts: DispatcherParts;
  readonly #running = new Set<Promise<void>>();
  readonly #perEndpoint = new Map<string, number>();
  /** Claimed messages whose endpoint is at its parallelism. */
  readonly #held: StoredMessage[] = [];
  #stopped = false;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #nextPump = 0;
  #nextSweep = 0;
  /** Kept only under the faults that need them: each message's first token and first answer. */
  readonly #firstTokens = new Map<string, string>();
  readonly #firstOutcomes = new Map<string, AttemptOutcome>();

  constructor(parts: DispatcherParts) {
    this.#parts = parts;
  }

  async start(): Promise<void> {
    await this.#parts.store.recover(Date.now());
    this.#loop = this.#run();
  }

  /** Something became due (a publish, a resume): look now instead of at the next tick. */
  poke(pumpQueues = false): void {
    if (pumpQueues) this.#nextPump = 0;
    this.#wake?.();
  }

  /** Stops claiming; attempts in flight are abandoned (their messages stay in Redis for the next start). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { store, waiters, account, fault } = this.#parts;
    while (!this.#stopped) {
      let wait = idleWaitMs;
      try {
        const now = Date.now();
        if (now >= this.#nextPump) {
          await store.pumpQueues(now, fault('paused-queue-delivers'));
          this.#nextPump = now + pumpEveryMs;
        }
        if (now >= this.#nextSweep) {
          await waiters.expire(now);
          this.#nextSweep = now + waiterSweepEveryMs;
        }
        this.#startHeld();
        const room = account.cached.account.max_global_parallelism - this.#running.size - this.#held.length;
        if (room > 0) {
          const claimed = await store.claim(now, Math.min(room, 200));
          for (const message of claimed) this.#held.push(message);
          this.#startHeld();
          if (claimed.length === Math.min(room, 200)) continue;
          const next = await store.nextDueAt();
          if (next !== undefined) wait = Math.max(0, Math.min(idleWaitMs, next - Date.now()));
        }
      } catch (error) {
        if (this.#stopped) break;
        this.#parts.warn(
          `messaging: the delivery loop failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        wait = 500;
      }
      if (wait > 0) await this.#sleep(wait);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  #startHeld(): void {
    const perEndpoint = this.#parts.fault('parallelism-unlimited')
      ? Number.POSITIVE_INFINITY
      : this.#parts.account.cached.account.max_parallelism;
    for (let i = 0; i < this.#held.length; ) {
      const message = this.#held[i] as StoredMessage;
      const endpoint = endpointOf(message.url);
      const busy = this.#perEndpoint.get(endpoint) ?? 0;
      if (busy >= perEndpoint) {
        i++;
        continue;
      }
      this.#held.splice(i, 1);
      this.#perEndpoint.set(endpoint, busy + 1);
      const attempt = this.#attempt(message).finally(() => {
        const left = (this.#perEndpoint.get(endpoint) ?? 1) - 1;
        if (left === 0) this.#perEndpoint.delete(endpoint);
        else this.#perEndpoint.set(endpoint, left);
        this.#running.delete(attempt);
        this.#wake?.();
      });
      this.#running.add(attempt);
    }
  }

  async #attempt(message: StoredMessage): Promise<void> {
    const { deliverer, dialect, fault } = this.#parts;
    if (message.kind === 'publish' && fault('delivery-dropped')) {
      // The fault loses the message: no request, no callback, and the message counts as delivered.
      await this.#write({ message: { ...message, state: 'delivered' }, next: { kind: 'end' }, caused: [] });
      return;
    }
    const account = this.#parts.account.cached.account;
    const body = Buffer.from(message.body, 'base64');
    const sent = message.kind === 'publish' && fault('delivery-drops-body') ? Buffer.alloc(0) : body;
    const p = dialect.headerPrefix;
    const signed = fault('signature-other-body') ? Buffer.concat([sent, Buffer.from('\n')]) : sent;
    const outcome = await deliverer.attempt({
      url: message.url,
      method: message.method,
      headers: {
        ...message.headers,
        [`${p}Message-Id`]: message.id,
        [`${p}Retried`]: String(message.retried),
        [`${p}Signature`]: await this.#signature(message, signed),
      },
      body: sent,
      timeoutMs: message.timeoutMs,
      keepBytes: fault('callback-body-not-truncated') ? 2 * account.max_message_size + 1024 : account.max_message_size,
    });
    if (this.#stopped) return;
    const write = this.#outcome(message, outcome, account);
    await this.#write(write);
  }

  /** The attempt's signature, by the current key; the signature faults reuse, age or misaddress it. */
  async #signature(message: StoredMessage, body: Buffer): Promise<string> {
    const { keys, fault } = this.#parts;
    const first = this.#firstTokens.get(message.id);
    if (first !== undefined && message.retried > 0) return first;
    const caused = message.kind === 'callback' || message.kind === 'failure-callback';
    const sub = caused && fault('callback-signed-wrong-sub') ? sourceUrlOf(message) : message.url;
    const ageSeconds = message.retried > 0 && fault('retry-signature-expired') ? 600 : 0;
    const token = await keys.sign(sub, body, ageSeconds);
    if (message.retried === 0 && fault('retry-signature-reused')) this.#firstTokens.set(message.id, token);
    return token;
  }

  /** Writes an outcome, trying again while Redis is briefly away; the message stays inflight meanwhile. */
  async #write(write: AttemptWrite): Promise<void> {
    for (let wait = 100; ; wait = Math.min(wait * 2, 5000)) {
      try {
        await this.#parts.store.finishAttempt(write);
        return;
      } catch (error) {
        if (this.#stopped) return;
        this.#parts.warn(
          `messaging: writing an attempt's outcome failed (${error instanceof Error ? error.message : String(error)}); trying again`,
        );
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  #outcome(message: StoredMessage, outcome: AttemptOutcome, account: MessagingAccount): AttemptWrite {
    const { fault, backoff } = this.#parts;
    const now = Date.now();
    const success = isSuccess(outcome);
    const exhausted = !success && message.retried >= message.maxRetries;
    const caused: StoredMessage[] = [];
    const wantsCallback =
      message.callback !== undefined &&
      outcome.answered &&
      !fault('callback-not-sent') &&
      !(message.failureCallback !== undefined && fault('callback-dropped-with-failure-callback'));
    if (message.retried === 0 && fault('callback-status-first-attempt')) this.#firstOutcomes.set(message.id, outcome);
    if (wantsCallback) {
      // The fault reports the first attempt's answer in every callback of the message.
      const reported = fault('callback-status-first-attempt')
        ? (this.#firstOutcomes.get(message.id) ?? outcome)
        : outcome;
      const body = callbackBody(message, reported, fault);
      caused.push(this.#caused('callback', message.callback as CallbackConfig, message, body, account, now));
    }
    // The fault sends the failure callback after the first failed attempt instead of the last.
    const failureNow = fault('failure-callback-early') ? !success && message.retried === 0 : exhausted;
    let deadLetter: DeadLetter | undefined;
    if (exhausted) {
      deadLetter = {
        dlqId: `dlq_${randomBytes(15).toString('base64url')}`,
        messageId: message.id,
        url: message.url,
        method: message.method,
        header: message.headers,
        body: message.body,
        createdAt: now,
        responseStatus: outcome.answered ? outcome.status : 0,
        responseHeader: outcome.answered ? outcome.header : {},
        responseBody: outcome.answered ? outcome.body.toString('base64') : '',
        retried: message.retried,
        maxRetries: message.maxRetries,
      };
    }
    if (message.failureCallback !== undefined && failureNow) {
      const dlqId =
        deadLetter === undefined || fault('dlq-id-unknown')
          ? `dlq_${randomBytes(15).toString('base64url')}`
          : deadLetter.dlqId;
      const body = failureCallbackBody(message, outcome, dlqId, fault);
      caused.push(this.#caused('failure-callback', message.failureCallback, message, body, account, now));
    }
    if (success || exhausted) {
      return {
        message: {
          ...message,
          state: success ? 'delivered' : 'failed',
          ...(deadLetter && { dlqId: deadLetter.dlqId }),
        },
        next: { kind: 'end' },
        caused,
        ...(deadLetter && { deadLetter }),
      };
    }
    const retried = message.retried + 1;
    return { message: { ...message, retried }, next: { kind: 'retry', at: now + backoffMs(backoff, retried) }, caused };
  }

  /** A callback or failure callback: a message of its own, signed and retried like any other. */
  #caused(
    kind: 'callback' | 'failure-callback',
    config: CallbackConfig,
    source: StoredMessage,
    body: Record<string, unknown>,
    account: MessagingAccount,
    now: number,
  ): StoredMessage {
    const { fault } = this.#parts;
    const methodIgnored =
      kind === 'callback' ? fault('callback-method-ignored') : fault('failure-callback-method-ignored');
    return {
      id: newMessageId(),
      kind,
      url: config.url,
      method: methodIgnored ? 'POST' : (config.method ?? 'POST'),
      headers: { ...config.forward, 'content-type': 'application/json' },
      body: Buffer.from(callbackText(body, fault)).toString('base64'),
      createdAt: now,
      notBefore: now + (config.delayMs ?? 0),
      maxRetries: config.retries ?? Math.min(defaultRetries, account.max_retries),
      retried: 0,
      timeoutMs: config.timeoutMs ?? account.timeout * 1000,
      sourceHeader: {},
      callerIP: source.callerIP,
      sourceMessageId: source.id,
    };
  }
}
