/**
 * The callback headers in combination: callback, failure callback, both or neither × a destination
 * that succeeds, fails once then succeeds, or always fails × the methods and the callback delay set or
 * not. One oracle, written from the spec (a callback after every answer; the failure callback once, only when
 * the retries are exhausted; the method headers obeyed), says what the sink must get for each; all 24
 * messages run at once and every count and method is compared.
 */
import { CheckFailure, defineCases } from '../../src/engines/conformance/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import { checkSourceHeader, checkThat, jsonRequest } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { type Arrival, openInbox, signedCases } from '../support/messaging-sink.ts';
import { publishTo, sentHeaders } from '../support/messaging-steps.ts';

type Callbacks = 'neither' | 'callback' | 'failure' | 'both';
type Destination = 'succeeds' | 'fails-once' | 'always-fails';

interface Combination {
  readonly callbacks: Callbacks;
  readonly destination: Destination;
  readonly configured: boolean;
}

interface Expected {
  readonly attempts: number;
  readonly callbacks: number;
  readonly failures: number;
  readonly callbackMethod: string;
  readonly failureMethod: string;
  /** The least time from the first delivery attempt to the first callback. */
  readonly callbackDelayMs: number;
}

/** Retries of every message: one, so "always fails" ends after two attempts. */
const retries = 1;
/** Callback-Delay of the combinations with their configuration headers set. */
const callbackDelayMs = 300;

/** The oracle: what the spec says the sink gets for one combination. */
export function expectedFor(combination: Combination): Expected {
  const attempts = combination.destination === 'succeeds' ? 1 : retries + 1;
  const wantsCallback = combination.callbacks === 'callback' || combination.callbacks === 'both';
  const wantsFailure = combination.callbacks === 'failure' || combination.callbacks === 'both';
  return {
    attempts,
    // Every attempt gets an answer (200 or 500), and a callback follows every answer.
    callbacks: wantsCallback ? attempts : 0,
    failures: wantsFailure && combination.destination === 'always-fails' ? 1 : 0,
    callbackMethod: combination.configured ? 'PUT' : 'POST',
    failureMethod: combination.configured ? 'PATCH' : 'POST',
    callbackDelayMs: combination.configured ? callbackDelayMs : 0,
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
        '24 messages at once, each a combination; every destination, callback and failure-callback URL gets exactly the requests the oracle gives, with the methods asked for; every callback’s and failure callback’s sourceHeader holds each header its publish sent (credentials aside), under its own name.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callbacks.matrix');
        // What each combination's publish sent: its callbacks' sourceHeader must hold every one.
        const sent: Readonly<Record<string, string>>[] = [];
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
                headers[client.h('Callback-Delay')] = `${callbackDelayMs}ms`;
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
        // Every request is judged as it comes (a wrong method, a failure callback the oracle gives none
        // of, one request too many end the case at once); then one wait, under one deadline, for
        // everything the oracle expects, and a quiet moment for anything it does not.
        const arrivals: Arrival[] = [];
        for (const [index, combination] of combinations.entries()) {
          const expected = expectedFor(combination);
          const label = labelOf(combination);
          const callbackRule = callbackRuleOf(combination);
          inbox.judge(`c${index}`, (request) => {
            checkThat(
              'A.callback.config-headers',
              request.method === expected.callbackMethod,
              `a ${request.method} callback`,
              expected.callbackMethod,
              label,
            );
            const count = inbox.requests(`c${index}`).length;
            checkThat(callbackRule, count <= expected.callbacks, `${count} callbacks`, `${expected.callbacks}`, label);
            const body = jsonRequest('A.callback.fields', request, `${label}: the callback body`);
            checkSourceHeader('A.callback.fields', body, sent[index] ?? {}, `${label}: the callback body`);
          });
          inbox.judge(`f${index}`, (request) => {
            const count = inbox.requests(`f${index}`).length;
            checkThat(
              'A.failure-callback.after-exhaustion',
              count <= expected.failures,
              `${count} failure callbacks`,
              `${expected.failures}`,
              label,
            );
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
              sent[index] ?? {},
              `${label}: the failure-callback body`,
            );
          });
          arrivals.push({ rule: 'A.publish.delivers', role: `d${index}`, count: expected.attempts, what: label });
          if (expected.callbacks > 0) {
            arrivals.push({
              rule: callbackRule,
              role: `c${index}`,
              count: expected.callbacks,
              what: `${label}: callbacks`,
            });
          }
          if (expected.failures > 0) {
            const failureRule =
              combination.callbacks === 'both'
                ? 'A.callback.with-failure-callback'
                : 'A.failure-callback.after-exhaustion';
            arrivals.push({
              rule: failureRule,
              role: `f${index}`,
              count: expected.failures,
              what: `${label}: failure callback`,
            });
          }
        }
        await inbox.arriveAll(arrivals);
        await inbox.settle();
        for (const [index, combination] of combinations.entries()) {
          const expected = expectedFor(combination);
          const label = labelOf(combination);
          const callbacks = inbox.requests(`c${index}`);
          const failures = inbox.requests(`f${index}`);
          const callbackRule = callbackRuleOf(combination);
          if (callbacks.length !== expected.callbacks) {
            throw new CheckFailure(callbackRule, `${callbacks.length} callbacks`, `${expected.callbacks}`, label);
          }
          if (failures.length !== expected.failures) {
            throw new CheckFailure(
              'A.failure-callback.after-exhaustion',
              `${failures.length} failure callbacks`,
              `${expected.failures}`,
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
          const firstAttempt = inbox.requests(`d${index}`)[0]?.at ?? 0;
          const early = callbacks.find((item) => item.at - firstAttempt < expected.callbackDelayMs - 20);
          if (early) {
            throw new CheckFailure(
              'A.callback.config-headers',
              `a callback ${early.at - firstAttempt} ms after the delivery`,
              `at least ${expected.callbackDelayMs} ms (Callback-Delay)`,
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
