/**
 * The delivery loop: claims due messages from Redis, runs their attempts within the plan's
 * parallelism (per endpoint and global), and writes each outcome with the messages it causes
 * (callbacks after an answered attempt, the failure callback and dead-letter entry after the last)
 * atomically, the outcomes of many attempts in one call (MessageStore.finishAttempt, turn-batch.ts). A callback due at once
 * is stored straight into inflight and run without a claim. It also moves queued messages to due
 * while their queue is active, and ends waiters whose deadline passed. Started after `recover`, so
 * attempts a killed process left (and callbacks it had stored into inflight) are tried again.
 */
import { randomBytes } from 'node:crypto';
import type { Dialect } from '../../target/dialects.ts';
import type { AccountStore, MessagingAccount } from '../account/messaging-account.ts';
import { backoffMs, type RetryBackoff } from './backoff.ts';
import { callbackBody, callbackText, failureCallbackBody } from './callback-body.ts';
import type { Deliverer } from './deliverer.ts';
import type { AttemptWrite, DeadLetter, MessageStore } from './message-store.ts';
import type { MessagingFaultCheck } from './messaging-faults.ts';
import type { MessagingSilenceCheck } from './messaging-silences.ts';
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
  /** The silence switches on: another legal choice where the spec is silent. */
  readonly silence: MessagingSilenceCheck;
  readonly backoff: RetryBackoff;
  /** Where a failed write to Redis is reported (the reference has no logger; tests read stderr). */
  readonly warn: (line: string) => void;
}

const idleWaitMs = 25;
/** At most this many messages per claim (one script call). */
const maxClaim = 200;
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
  /** Requests on the wire per endpoint, and in all: what the plan's parallelism limits. */
  readonly #perEndpoint = new Map<string, number>();
  #onWire = 0;
  /**
   * Claimed messages not started yet, per endpoint (the endpoint at its parallelism, or the plan's
   * global parallelism reached). Endpoints take turns: one that starts a message goes to the back.
   */
  readonly #held = new Map<string, StoredMessage[]>();
  #heldCount = 0;
  /** Slots promised to publishes being stored straight into inflight (reserve, then takeReserved). */
  #reserved = 0;
  #starting = false;
  #startAgain = false;
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

  /**
   * Room for a just-published, due message to start from memory, without a claim reading it back
   * from Redis: a slot of the plan's global parallelism is kept for it until takeReserved. False
   * when the plan's parallelism is taken (the message is stored as due and claimed in its turn).
   */
  reserve(): boolean {
    if (this.#stopped) return false;
    const room =
      this.#parts.account.cached.account.max_global_parallelism - this.#onWire - this.#heldCount - this.#reserved;
    if (room <= 0) return false;
    this.#reserved++;
    return true;
  }

  /**
   * Ends a reservation: the message stored into inflight joins its endpoint's line like a claimed
   * one; undefined when none was stored (deduplicated, or the write failed).
   */
  takeReserved(message: StoredMessage | undefined): void {
    this.#reserved--;
    if (message !== undefined) this.#hold([message]);
    else this.#wake?.();
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
        const room = account.cached.account.max_global_parallelism - this.#onWire - this.#heldCount - this.#reserved;
        if (room > 0) {
          const limit = Math.min(room, maxClaim);
          const claimed = await store.claimDue(now, limit);
          this.#hold(claimed.messages);
          if (claimed.messages.length === limit) continue;
          const next = claimed.nextDueAt;
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
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.#wake === done) self.#wake = undefined;
        resolve();
      }
      this.#wake = done;
    });
  }

  /** Claimed (or just caused) messages join their endpoint's line, and whatever has room starts. */
  #hold(messages: readonly StoredMessage[]): void {
    if (this.#stopped) return;
    for (const message of messages) {
      const endpoint = endpointOf(message.url);
      const line = this.#held.get(endpoint);
      if (line === undefined) this.#held.set(endpoint, [message]);
      else line.push(message);
      this.#heldCount++;
    }
    this.#startHeld();
  }

  /**
   * Starts held messages while their endpoint and the plan have room. Re-entrant calls (an attempt
   * that ends before its first await releases its slot at once) only ask the running call to look
   * again, so no call works on counts another one changed under it.
   */
  #startHeld(): void {
    if (this.#stopped) return;
    if (this.#starting) {
      this.#startAgain = true;
      return;
    }
    this.#starting = true;
    try {
      do {
        this.#startAgain = false;
        this.#startRound();
      } while (this.#startAgain && !this.#stopped);
    } finally {
      this.#starting = false;
    }
  }

  #startRound(): void {
    const account = this.#parts.account.cached.account;
    const perEndpoint = this.#parts.fault('parallelism-unlimited') ? Number.POSITIVE_INFINITY : account.max_parallelism;
    const global = account.max_global_parallelism;
    for (const [endpoint, line] of this.#held) {
      if (this.#onWire >= global) return;
      if ((this.#perEndpoint.get(endpoint) ?? 0) >= perEndpoint) continue;
      while (line.length > 0 && (this.#perEndpoint.get(endpoint) ?? 0) < perEndpoint && this.#onWire < global) {
        const message = line.shift() as StoredMessage;
        this.#heldCount--;
        this.#perEndpoint.set(endpoint, (this.#perEndpoint.get(endpoint) ?? 0) + 1);
        this.#onWire++;
        // Not awaited: stop abandons attempts in flight (their messages stay in inflight for the next start).
        this.#attempt(message, endpoint).catch((error: unknown) =>
          this.#parts.warn(`messaging: an attempt failed: ${error instanceof Error ? error.message : String(error)}`),
        );
      }
      // Take turns: an endpoint that started something waits behind the others next time (a line
      // put back is visited again in this loop only to find its endpoint or the plan full).
      this.#held.delete(endpoint);
      if (line.length > 0) this.#held.set(endpoint, line);
    }
  }

  /** The request is over: its endpoint and the plan have a free slot (the outcome is written after). */
  #release(endpoint: string): void {
    this.#onWire--;
    const left = (this.#perEndpoint.get(endpoint) ?? 1) - 1;
    if (left === 0) this.#perEndpoint.delete(endpoint);
    else this.#perEndpoint.set(endpoint, left);
    this.#startHeld();
    this.#wake?.();
  }

  async #attempt(message: StoredMessage, endpoint: string): Promise<void> {
    const { deliverer, dialect, fault } = this.#parts;
    // The fault loses the message; the silence drops a waiter's timeout request (what a deadline does is
    // not shown): no request, no callback, and the message counts as delivered.
    const dropped =
      (message.kind === 'publish' && fault('delivery-dropped')) ||
      (message.kind === 'timeout' && this.#parts.silence('waiter-timeout-silent'));
    if (dropped) {
      this.#release(endpoint);
      await this.#write({ message: { ...message, state: 'delivered' }, next: { kind: 'end' }, caused: [] });
      return;
    }
    let outcome: AttemptOutcome;
    const account = this.#parts.account.cached.account;
    try {
      const body = Buffer.from(message.body, 'base64');
      const sent = message.kind === 'publish' && fault('delivery-drops-body') ? Buffer.alloc(0) : body;
      const p = dialect.headerPrefix;
      const signed = fault('signature-other-body') ? Buffer.concat([sent, Buffer.from('\n')]) : sent;
      outcome = await deliverer.attempt({
        url: message.url,
        method: message.method,
        headers: {
          ...(message.kind === 'notify' && fault('notification-drops-workflow-headers')
            ? withoutHeaders(message.headers, [`${p}Workflow-Runid`, `${p}Workflow-Url`])
            : message.headers),
          // The content type of the event data is not shown: the silence labels it as bytes.
          ...(message.kind === 'notify' &&
            this.#parts.silence('notify-data-octet-stream') && { 'content-type': 'application/octet-stream' }),
          // The id and retry headers are the real service's, not the spec's: the silence leaves them out.
          ...(!this.#parts.silence('delivery-without-id-headers') && {
            [`${p}Message-Id`]: message.id,
            [`${p}Retried`]: String(message.retried),
          }),
          [`${p}Signature`]: this.#signature(message, signed),
        },
        body: sent,
        timeoutMs: message.timeoutMs,
        keepBytes: account.max_message_size,
      });
    } finally {
      this.#release(endpoint);
    }
    if (this.#stopped) return;
    const write = this.#outcome(message, outcome, account);
    await this.#write(write);
    if (write.causedInflight !== undefined) this.#hold(write.causedInflight);
  }

  /**
   * The attempt's signature, by the current key; the signature faults age or misaddress it; the
   * silences leave out its jti, keep the body claim's padding, or re-send a retry with the first
   * attempt's token (an identical re-send: the spec shows no scheme, and jti is optional).
   */
  #signature(message: StoredMessage, body: Buffer): string {
    const { keys, fault, silence } = this.#parts;
    const first = this.#firstTokens.get(message.id);
    if (first !== undefined && message.retried > 0) return first;
    const caused = message.kind === 'callback' || message.kind === 'failure-callback';
    const sub = caused && fault('callback-signed-wrong-sub') ? sourceUrlOf(message) : message.url;
    const ageSeconds = message.retried > 0 && fault('retry-signature-expired') ? 600 : 0;
    const token = keys.sign(sub, body, ageSeconds, {
      jti: !silence('signature-without-jti'),
      padded: !silence('signature-body-unpadded'),
    });
    if (message.retried === 0 && silence('retry-token-reused')) this.#firstTokens.set(message.id, token);
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
    // Caused messages due now are run by this process at once, stored straight into inflight.
    const later = caused.filter((m) => m.notBefore > now);
    const causedNow = { caused: later, causedInflight: caused.filter((m) => m.notBefore <= now), inflightAt: now };
    if (success || exhausted) {
      return {
        message: {
          ...message,
          state: success ? 'delivered' : 'failed',
          ...(deadLetter && { dlqId: deadLetter.dlqId }),
        },
        next: { kind: 'end' },
        ...causedNow,
        // Spec "Limits": the dead letter queue keeps at most max_dlq_size entries (the store drops the
        // oldest past it, as the real service does); the fault lifts it. The plan as it is now, when the
        // dead letter is written: an attempt begun under an older plan (a 3 s destination) otherwise
        // wrote under the old cap, and the suite's order decided what a dlq-size case read.
        ...(deadLetter && { deadLetter }),
        ...(deadLetter &&
          !fault('dlq-limit-unchecked') && { maxDeadLetters: this.#parts.account.cached.account.max_dlq_size }),
      };
    }
    const retried = message.retried + 1;
    return {
      message: { ...message, retried },
      next: {
        kind: 'retry',
        at: now + backoffMs(this.#parts.silence('slower-retries-later-callbacks') ? slower : backoff, retried),
      },
      ...causedNow,
    };
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
    const { fault, silence } = this.#parts;
    const later = silence('slower-retries-later-callbacks') ? laterCallbackMs : 0;
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
      notBefore: now + (config.delayMs ?? 0) + later,
      maxRetries: config.retries ?? Math.min(defaultRetries, account.max_retries),
      retried: 0,
      timeoutMs: config.timeoutMs ?? account.timeout * 1000,
      sourceHeader: {},
      callerIP: source.callerIP,
      sourceMessageId: source.id,
    };
  }
}

/** The silence's backoff: slower than the configured one, still well within a receiver's wait. */
const slower: RetryBackoff = { kind: 'base', ms: 300 };
/** How much later the silence sends callbacks and failure callbacks than their answer. */
const laterCallbackMs = 500;

/** The headers without the named ones (any case). */
function withoutHeaders(headers: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  const drop = new Set(names.map((name) => name.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase())));
}
