/**
 * The callback headers in combination: callback, failure callback, both or neither × a destination
 * that succeeds, fails once then succeeds, or always fails × the methods and the callback delay set or
 * not. One oracle, written from the spec (a callback after every answer; the failure callback once, only
 * when the retries are exhausted and delivery failed; the method headers obeyed), says what the sink
 * must get for each, given the attempts the sink saw: how many retries a message gets is the target's
 * (Svc-Retries, asked here, is not in the spec), so the oracle counts from the attempts, not from the
 * retries asked. All 24 messages run at once and every count and method is compared.
 */
import { CheckFailure, defineCases, type SinkRequest } from '../../src/suite-kit/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import {
  checkSourceHeader,
  checkThat,
  endsMessage,
  jsonRequest,
  type SourceHeaders,
} from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { type Arrival, type CaseInbox, openInbox, signedCases } from '../support/messaging-sink.ts';
import { publishTo, sentHeaders } from '../support/messaging-steps.ts';

type Callbacks = 'neither' | 'callback' | 'failure' | 'both';
type Destination = 'succeeds' | 'fails-once' | 'always-fails';

interface Combination {
  readonly callbacks: Callbacks;
  readonly destination: Destination;
  readonly configured: boolean;
}

interface Expected {
  readonly callbacks: number;
  readonly failures: number;
  readonly callbackMethod: string;
  readonly failureMethod: string;
  /** The least time from the first delivery attempt to the first callback. */
  readonly callbackDelayMs: number;
}

/** Retries asked of every message: one (a target that ignores the header uses its own). */
const retries = 1;
/**
 * Callback-Delay of the combinations with their configuration headers set: in seconds, the unit the
 * real service documents (`10s`); a sub-second unit (`300ms`) is shown nowhere.
 */
const callbackDelaySeconds = 1;

const isSuccess = (request: SinkRequest) => request.answered >= 200 && request.answered <= 299;

/**
 * The oracle: what the spec says the sink gets for one combination, given the attempts it saw: a
 * callback after each of them; the failure callback once when none succeeded (the retries were spent).
 */
export function expectedFor(combination: Combination, attempts: readonly SinkRequest[]): Expected {
  const wantsCallback = combination.callbacks === 'callback' || combination.callbacks === 'both';
  const wantsFailure = combination.callbacks === 'failure' || combination.callbacks === 'both';
  return {
    callbacks: wantsCallback ? attempts.length : 0,
    failures: wantsFailure && attempts.length > 0 && !attempts.some(isSuccess) ? 1 : 0,
    callbackMethod: combination.configured ? 'PUT' : 'POST',
    failureMethod: combination.configured ? 'PATCH' : 'POST',
    callbackDelayMs: combination.configured ? callbackDelaySeconds * 1000 : 0,
  };
}

export const combinations: readonly Combination[] = (['neither', 'callback', 'failure', 'both'] as const).flatMap(
  (callbacks) =>
    (['succeeds', 'fails-once', 'always-fails'] as const).flatMap((destination) =>
      [false, true].map((configured) => ({ callbacks, destination, configured })),
    ),
);

function labelOf(combination: Combination): string {
  return `${combination.callbacks}, destination ${combination.destination}${combination.configured ? ', methods set' : ''}`;
}

function callbackRuleOf(combination: Combination): string {
  return combination.callbacks === 'both' ? 'A.callback.with-failure-callback' : 'A.callback.on-answer';
}

function failureRuleOf(combination: Combination): string {
  return combination.callbacks === 'both' ? 'A.callback.with-failure-callback' : 'A.failure-callback.after-exhaustion';
}

/**
 * What one combination still waits for, or undefined once its message is over as far as the sink can
 * tell: an attempt; a callback per attempt; then its end: a success, the failure callback, or the
 * callback that says the retries were spent (retried equal to maxRetries). Without either callback the
 * end cannot be seen, so the first attempt is all it waits for.
 */
function missingOf(inbox: CaseInbox, combination: Combination, index: number): Arrival | undefined {
  const label = labelOf(combination);
  const attempts = inbox.requests(`d${index}`);
  if (attempts.length === 0) return { rule: 'A.publish.delivers', role: `d${index}`, what: label };
  const callbacks = inbox.requests(`c${index}`);
  const expected = expectedFor(combination, attempts);
  if (callbacks.length < expected.callbacks) {
    return {
      rule: callbackRuleOf(combination),
      role: `c${index}`,
      count: expected.callbacks,
      what: `${label}: a callback per attempt`,
    };
  }
  if (combination.callbacks === 'neither' || attempts.some(isSuccess)) return undefined;
  // The end follows the target's retries (one asked; its own may be more, and slower).
  const afterRetries = { role: `d${index}`, asked: retries, callbacks: combinations.map((_, at) => `c${at}`) };
  const wantsFailure = combination.callbacks === 'failure' || combination.callbacks === 'both';
  if (wantsFailure) {
    if (inbox.requests(`f${index}`).length > 0) return undefined;
    const what = `${label}: a retry or the failure callback`;
    return { rule: failureRuleOf(combination), role: `f${index}`, what, afterRetries };
  }
  if (callbacks.some(endsMessage)) return undefined;
  // No retry came, and no callback says the retries were spent (retried equal to maxRetries).
  const what = `${label}: a retry, or a callback whose retried is its maxRetries`;
  return { rule: 'A.callback.fields', role: `c${index}`, what, afterRetries };
}

export const cases = defineCases(
  signedCases([
    {
      id: 'messaging.callbacks.matrix',
      concurrent: true,
      covers: [
        cover('A.callback.config-headers', { 'callback-header': ['method', 'delay'] }),
        cover('A.failure-callback.config-headers', { 'callback-header': ['method'] }),
        cover('A.callback.fields', { 'callback-field': ['sourceHeader'] }),
        cover('A.failure-callback.fields', { 'callback-field': ['sourceHeader'] }),
        cover('A.signature.verifiable', {
          'delivery-kind': ['delivery', 'callback', 'failure-callback'],
          'send-form': ['publish'],
        }),
      ],
      rules: [
        'A.callback.on-answer',
        'A.callback.with-failure-callback',
        'A.failure-callback.after-exhaustion',
        'A.callback.config-headers',
        'A.failure-callback.config-headers',
        'A.callback.fields',
        'A.failure-callback.fields',
      ],
      title: 'Callback × failure callback × destination behaviour × method headers: the oracle’s requests, exactly',
      expect:
        '24 messages at once, each a combination; every callback and failure-callback URL gets exactly the requests the oracle gives for the attempts its destination saw (a callback per attempt; the failure callback once, after the last attempt, only when none succeeded), with the methods asked for and the callback delay; every callback’s and failure callback’s sourceHeader holds the headers its publish sent (credentials aside) or those its message carried, under their own names.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callbacks.matrix');
        // What each combination's publish sent: its callbacks' sourceHeader must hold them.
        const sent: SourceHeaders[] = [];
        await Promise.all(
          combinations.map(async (combination, index) => {
            if (combination.destination === 'fails-once') inbox.answer(`d${index}`, { failFirst: 1 });
            if (combination.destination === 'always-fails') inbox.answer(`d${index}`, { status: 500 });
            const { callbacks, configured } = combination;
            const headers: Record<string, string> = { [client.h('Retries')]: String(retries) };
            if (callbacks === 'callback' || callbacks === 'both') {
              headers[client.h('Callback')] = inbox.url(`c${index}`);
              if (configured) {
                headers[client.h('Callback-Method')] = 'PUT';
                headers[client.h('Callback-Delay')] = `${callbackDelaySeconds}s`;
              }
            }
            if (callbacks === 'failure' || callbacks === 'both') {
              headers[client.h('Failure-Callback')] = inbox.url(`f${index}`);
              if (configured) headers[client.h('Failure-Callback-Method')] = 'PATCH';
            }
            sent[index] = sentHeaders(client, headers);
            await publishTo(client, inbox.url(`d${index}`), headers, `combination ${index}`);
          }),
        );
        // Every request is judged as it comes (a wrong method, a callback before its attempt, a failure
        // callback after a success, one too many end the case at once); then one wait, under one
        // deadline, for every message's end, and a quiet moment for anything the oracle does not give.
        for (const [index, combination] of combinations.entries()) {
          const label = labelOf(combination);
          const attemptsNow = () => inbox.requests(`d${index}`);
          inbox.judge(`c${index}`, (request) => {
            const expected = expectedFor(combination, attemptsNow());
            checkThat(
              'A.callback.config-headers',
              request.method === expected.callbackMethod,
              `a ${request.method} callback`,
              expected.callbackMethod,
              label,
            );
            const body = jsonRequest('A.callback.fields', request, `${label}: the callback body`);
            checkSourceHeader('A.callback.fields', body, sent[index] as SourceHeaders, `${label}: the callback body`);
          });
          inbox.judge(`f${index}`, (request) => {
            const count = inbox.requests(`f${index}`).length;
            checkThat('A.failure-callback.after-exhaustion', count <= 1, `${count} failure callbacks`, 'one', label);
            const succeeded = attemptsNow().some(isSuccess);
            checkThat(
              'A.failure-callback.after-exhaustion',
              !succeeded,
              'a failure callback for a message its destination answered 2xx',
              'none',
              label,
            );
            const expected = expectedFor(combination, attemptsNow());
            checkThat(
              'A.failure-callback.config-headers',
              request.method === expected.failureMethod,
              `a ${request.method} failure callback`,
              expected.failureMethod,
              label,
            );
            const body = jsonRequest('A.failure-callback.fields', request, `${label}: the failure-callback body`);
            checkSourceHeader(
              'A.failure-callback.fields',
              body,
              sent[index] as SourceHeaders,
              `${label}: the failure-callback body`,
            );
          });
        }
        await inbox.until(() => {
          for (const [index, combination] of combinations.entries()) {
            const missing = missingOf(inbox, combination, index);
            if (missing !== undefined) return missing;
          }
          return undefined;
        });
        await inbox.settle();
        for (const [index, combination] of combinations.entries()) {
          const attempts = inbox.requests(`d${index}`);
          const expected = expectedFor(combination, attempts);
          const label = `${labelOf(combination)} (${attempts.length} attempts)`;
          const callbacks = inbox.requests(`c${index}`);
          const failures = inbox.requests(`f${index}`);
          if (callbacks.length !== expected.callbacks) {
            throw new CheckFailure(
              callbackRuleOf(combination),
              `${callbacks.length} callbacks`,
              `${expected.callbacks}, one per attempt`,
              label,
            );
          }
          if (failures.length !== expected.failures) {
            throw new CheckFailure(
              'A.failure-callback.after-exhaustion',
              `${failures.length} failure callbacks`,
              `${expected.failures}`,
              label,
            );
          }
          const lastAttempt = attempts.at(-1)?.at ?? 0;
          const early = failures.find((item) => item.at < lastAttempt);
          if (early) {
            throw new CheckFailure(
              'A.failure-callback.after-exhaustion',
              `a failure callback ${lastAttempt - early.at} ms before an attempt`,
              'after the last attempt',
              label,
            );
          }
          const wrongCallback = callbacks.find((item) => item.method !== expected.callbackMethod);
          if (wrongCallback) {
            throw new CheckFailure(
              'A.callback.config-headers',
              `a ${wrongCallback.method} callback`,
              expected.callbackMethod,
              label,
            );
          }
          const firstAttempt = attempts[0]?.at ?? 0;
          const tooEarly = callbacks.find((item) => item.at - firstAttempt < expected.callbackDelayMs - 20);
          if (tooEarly) {
            throw new CheckFailure(
              'A.callback.config-headers',
              `a callback ${tooEarly.at - firstAttempt} ms after the delivery`,
              `at least ${expected.callbackDelayMs} ms (Callback-Delay ${callbackDelaySeconds}s)`,
              label,
            );
          }
          const wrongFailure = failures.find((item) => item.method !== expected.failureMethod);
          if (wrongFailure) {
            throw new CheckFailure(
              'A.failure-callback.config-headers',
              `a ${wrongFailure.method} failure callback`,
              expected.failureMethod,
              label,
            );
          }
        }
      },
    },
  ]),
);
