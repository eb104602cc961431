/**
 * Spec "Callback body (area A)", "Events" and the callback headers of "Endpoints > Area A": a
 * callback after the destination answers, every field of the body with its type, the response body
 * at most the plan's maximum message size; the configuration and forward headers of both kinds; both
 * kinds together; callbacks on enqueue; the failure callback only after the last retry, with a dlqId
 * that names a dead letter. Publishes use the real service's retries header to keep retries short.
 */
import { CheckFailure, defineCases, means, show, vendorHeader } from '../../src/suite-kit/suite-api.ts';
import { allOf, cover } from '../rules/dimensions.ts';
import { messagingAdapter } from '../support/messaging-adapter.ts';
import {
  aboutOneSecondMs,
  type CallbackTruth,
  callbackFields,
  checkCallbackTruth,
  checkFields,
  checkSourceHeaders,
  checkThat,
  describe,
  endsMessage,
  integerFieldsOf,
  jsonRequest,
  optionalCallbackFields,
  types,
} from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { checkIntegerLiterals } from '../support/messaging-raw-json.ts';
import { type CaseInbox, openInbox, signedCases } from '../support/messaging-sink.ts';
import { messageIdOf, publishTo, sentHeaders, uniqueId, withAccountLimits } from '../support/messaging-steps.ts';

/**
 * What the destinations answer in the cases that compare callback fields with it: a header of their
 * own, and a body that is not itself base64 text (`✓`, `!`), so a body passed through unencoded shows.
 */
const answerHeader = 'x-svc-harness-answer';
const answerBody = 'answered ✓ by the sink!';

/** A message to 'down' with Svc-Retries 0: its failure callback follows the target's retries. */
const retriesZero = { role: 'down', asked: 0 } as const;

/** The delay callback.fields asks for (Svc-Delay, not in the spec: honoured or not). */
const delaySeconds = 2;

/**
 * Whether the target applied the delay asked of the 'dest' message: its first attempt came the delay
 * after the publish while the 'control' message published beside it without one came well before.
 */
function delayHonoured(inbox: CaseInbox, publishedFrom: number, publishedTo: number): boolean {
  const control = inbox.requests('control')[0];
  const first = inbox.requests('dest')[0];
  if (control === undefined || first === undefined) return false;
  const delayMs = delaySeconds * 1000;
  return control.at - publishedTo < delayMs / 2 && first.at - publishedFrom >= delayMs - 100;
}

/** The Callback body's fields checkFields types (the coverage matrix's names). */
const typedFields = allOf('callback-field').filter((field) => field in callbackFields);
/** Those checkCallbackTruth compares with what happened: all but callerIP, which is only typed. */
const comparedFields = typedFields.filter((field) => field !== 'callerIP');

export const cases = defineCases(
  signedCases([
    {
      id: 'messaging.callback.fields',
      concurrent: true,
      rules: ['A.callback.on-answer', 'A.callback.fields', 'A.callback.field-types'],
      covers: [
        cover('A.callback.fields', { 'callback-field': comparedFields }),
        cover('A.callback.field-types', { 'callback-field': typedFields }),
        cover('A.signature.verifiable', { 'delivery-kind': ['delivery', 'callback'], 'send-form': ['publish'] }),
      ],
      title: 'The callback carries the destination’s answer in every field of the Callback body',
      expect:
        'A message with a callback URL, retries 1 and a 2 s delay (a message without either published beside it), whose destination answers 500 then 200 with its own header and a body that is not base64 text: one callback per attempt the sink saw, retried 0, 1, … in turn, the last one for the 200 (or, when the target spends its retries on the 500s, retried equal to maxRetries), every field typed as the spec says and equal to what happened (status, header and body of that attempt’s answer, retried, maxRetries consistent with the attempts seen, sourceMessageId, url, method, sourceHeader, sourceBody, createdAt within the publish, notBefore not after the first attempt and, when the target honoured the delay, the delay after createdAt, callerIP). Svc-Retries and Svc-Delay are not in the spec: what they did is read from the attempts.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callback.fields');
        const tag = uniqueId(ctx, 'tag');
        inbox.answer('dest', { failFirst: 1, body: answerBody, headers: { [answerHeader]: tag } });
        const payload = `payload ✓ ${tag}!`;
        const sourceHeaders = { 'content-type': 'text/plain; charset=utf-8', [client.h('Forward-X-Svc-Source')]: tag };
        const publishedFrom = Date.now();
        const publishHeaders = {
          ...sourceHeaders,
          [client.h('Retries')]: '1',
          [client.h('Delay')]: `${delaySeconds}s`,
          [client.h('Callback')]: inbox.url('callback'),
        };
        // The same message without a delay, beside it: whether the delay was applied is read from the two.
        const [published] = await Promise.all([
          publishTo(client, inbox.url('dest'), publishHeaders, payload),
          publishTo(client, inbox.url('control'), {}, 'no delay'),
        ]);
        const publishedTo = Date.now();
        const messageId = messageIdOf(published);
        const truth = (): CallbackTruth => ({
          attempts: inbox.requests('dest'),
          url: inbox.url('dest'),
          method: 'POST',
          ...(messageId !== undefined && { messageId }),
          sourceBody: payload,
          sourceHeaders: sentHeaders(client, publishHeaders),
          publishedFrom,
          publishedTo,
          ...(delayHonoured(inbox, publishedFrom, publishedTo) && { honouredDelayMs: delaySeconds * 1000 }),
          messageIdHeader: vendorHeader(ctx.dialect, 'Message-Id'),
        });
        // Each callback is judged as it comes: a wrong field ends the case at once.
        inbox.judge('callback', (callback) => {
          const body = jsonRequest('A.callback.fields', callback, 'the callback body');
          checkFields('A.callback.fields', 'A.callback.field-types', body, callbackFields, 'the callback body');
          checkIntegerLiterals(
            'A.callback.field-types',
            callback.body,
            integerFieldsOf(callbackFields),
            'the callback body',
          );
          for (const [field, type] of Object.entries(optionalCallbackFields)) {
            if (field in body && !types[type](body[field])) {
              throw new CheckFailure('A.callback.field-types', `${field} ${show(body[field])}`, `${field} a string`);
            }
          }
          checkCallbackTruth('A.callback.fields', body, truth(), `the callback body (retried ${show(body.retried)})`);
        });
        await means(() => inbox.arrive('A.publish.delivers', 'control', 1, 'the message without a delay'));
        await inbox.arrive('A.publish.delivers', 'dest', 1, 'the first attempt');
        // One callback per attempt, up to the one that ends the message (the 200, or the retries spent).
        const callbacks = await inbox.arriveUntil(
          'A.callback.on-answer',
          'callback',
          (got) => got.some(endsMessage),
          'a callback after each answer, up to the last',
          { role: 'dest', asked: 1 },
        );
        await inbox.settle();
        const attempts = inbox.requests('dest').length;
        const retried = inbox
          .requests('callback')
          .map((callback) => jsonRequest('A.callback.fields', callback, 'the callback body').retried)
          .sort();
        const expected = Array.from({ length: attempts }, (_, index) => index);
        checkThat(
          'A.callback.on-answer',
          retried.length === attempts,
          `${retried.length} callbacks`,
          `${attempts}, one per attempt the sink saw`,
        );
        checkThat('A.callback.fields', show(retried) === show(expected), `retried ${show(retried)}`, show(expected));
        ctx.observe(`${attempts} attempts (Svc-Retries 1 asked), ${callbacks.length} callbacks`);
      },
    },
    {
      id: 'messaging.callback.truncated',
      rules: ['A.callback.body-truncated'],
      needs: ['admin'],
      title: 'A response body above the plan’s maximum message size reaches the callback whole or truncated',
      expect:
        'With max_message_size at 1024 bytes, a destination answering 4096 bytes (no two alike in a row) gives a callback whose body is that body or a prefix of it; its size is observed ("may be truncated": cutting is allowed, not required).',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callback.truncated');
        // Letters in turn: a body cut anywhere but at its end is no prefix.
        const answered = Buffer.from(
          Array.from({ length: 4096 }, (_, at) => String.fromCharCode(97 + (at % 26))).join(''),
        );
        inbox.answer('dest', { body: answered });
        await withAccountLimits(ctx, { max_message_size: 1024 }, async () => {
          await publishTo(client, inbox.url('dest'), { [client.h('Callback')]: inbox.url('callback') }, 'small');
          const [callback] = await inbox.arrive('A.callback.on-answer', 'callback');
          const body = jsonRequest('A.callback.fields', callback, 'the callback body');
          const got = typeof body.body === 'string' ? Buffer.from(body.body, 'base64') : undefined;
          ctx.observe(
            `a 4096-byte answer reached the callback with ${got?.length ?? 'no'} bytes (max_message_size 1024)`,
          );
          checkThat(
            'A.callback.body-truncated',
            got !== undefined && answered.subarray(0, got.length).equals(got),
            `body ${show(got?.toString('utf8') ?? body.body, 80)}`,
            'the 4096 bytes answered, or a prefix of them',
          );
        });
      },
    },
    {
      id: 'messaging.callback.config',
      concurrent: true,
      rules: ['A.callback.config-headers', 'A.callback.fields'],
      covers: [cover('A.callback.config-headers', { 'callback-header': ['method', 'retries', 'delay'] })],
      title: 'The callback configuration headers configure the callback request',
      expect:
        'With Callback-Method PUT, Callback-Retries 1 and Callback-Delay 1s, and a callback URL that answers 500: two callbacks arrive, both PUT, the first at least a second after the delivery.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callback.config');
        inbox.answer('callback', { status: 500 });
        const publishHeaders = {
          [client.h('Callback')]: inbox.url('callback'),
          [client.h('Callback-Method')]: 'PUT',
          [client.h('Callback-Retries')]: '1',
          [client.h('Callback-Delay')]: '1s',
          [client.h('Callback-Timeout')]: '10s',
        };
        await publishTo(client, inbox.url('dest'), publishHeaders);
        const [delivery] = await means(() => inbox.arrive('A.publish.delivers', 'dest'));
        // A first callback is the means: a target that sends none breaks A.callback.on-answer, not its config.
        await means(() => inbox.arrive('A.callback.on-answer', 'callback', 1, 'a first callback'));
        const callbacks = await inbox.arrive('A.callback.config-headers', 'callback', 2, 'callback retried once');
        await inbox.settle();
        const methods = inbox.requests('callback').map((item) => item.method);
        checkThat('A.callback.config-headers', methods.length === 2, `${methods.length} callbacks`, '2 (one retry)');
        checkThat(
          'A.callback.config-headers',
          methods.every((m) => m === 'PUT'),
          `methods ${methods.join(', ')}`,
          'PUT',
        );
        const delay = (callbacks[0]?.at ?? 0) - (delivery?.at ?? 0);
        checkThat(
          'A.callback.config-headers',
          delay >= aboutOneSecondMs,
          `the callback ${delay} ms after the delivery`,
          'at least 1 s after it',
        );
        checkSourceHeaders('A.callback.fields', callbacks, sentHeaders(client, publishHeaders), 'the callback body');
      },
    },
    {
      id: 'messaging.callback.timeout',
      concurrent: true,
      rules: ['A.callback.config-headers'],
      covers: [cover('A.callback.config-headers', { 'callback-header': ['timeout', 'retries'] })],
      title: 'Callback-Timeout ends a callback attempt that takes too long',
      expect:
        'With Callback-Timeout 1s and Callback-Retries 1, and a callback URL that answers after 3 s: the first callback times out and is tried again, so two arrive, a second or more apart.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callback.timeout');
        inbox.answer('callback', { delayMs: 3000 });
        await publishTo(client, inbox.url('dest'), {
          [client.h('Callback')]: inbox.url('callback'),
          [client.h('Callback-Timeout')]: '1s',
          [client.h('Callback-Retries')]: '1',
        });
        await means(() => inbox.arrive('A.callback.on-answer', 'callback', 1, 'a first callback'));
        const callbacks = await inbox.arrive(
          'A.callback.config-headers',
          'callback',
          2,
          'the timed-out callback tried again',
        );
        const apart = (callbacks[1]?.at ?? 0) - (callbacks[0]?.at ?? 0);
        checkThat(
          'A.callback.config-headers',
          apart >= aboutOneSecondMs,
          `the second ${apart} ms after the first`,
          'at least 1 s after it',
        );
      },
    },
    {
      id: 'messaging.callback.forward',
      concurrent: true,
      rules: ['A.callback.forward-headers', 'A.callback.fields'],
      title: 'Callback-Forward-<Header-Name> reaches the callback endpoint',
      expect: 'With Callback-Forward-X-Svc-Harness: forwarded, the callback request carries X-Svc-Harness: forwarded.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callback.forward');
        const publishHeaders = {
          [client.h('Callback')]: inbox.url('callback'),
          [client.h('Callback-Forward-X-Svc-Harness')]: 'forwarded',
        };
        await publishTo(client, inbox.url('dest'), publishHeaders);
        const [callback] = await inbox.arrive('A.callback.on-answer', 'callback');
        const value = callback?.headers['x-svc-harness'];
        checkThat(
          'A.callback.forward-headers',
          value === 'forwarded',
          `X-Svc-Harness ${show(value ?? null)}`,
          'X-Svc-Harness "forwarded"',
        );
        checkSourceHeaders('A.callback.fields', [callback], sentHeaders(client, publishHeaders), 'the callback body');
      },
    },
    {
      id: 'messaging.callback.enqueue',
      concurrent: true,
      rules: ['A.callback.on-enqueue'],
      needs: ['messaging.adapter'],
      title: 'The callback headers are accepted on enqueue',
      expect:
        'A message enqueued with a callback URL (its queue deleted afterwards): the callback arrives once the destination answers.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const adapter = await messagingAdapter(ctx);
        const inbox = await openInbox(ctx, 'callback.enqueue');
        const queue = uniqueId(ctx, 'queue').slice(-60);
        ctx.onCleanup(async () => {
          await adapter.deleteQueue?.(queue);
        });
        // The same callback header on a plain publish is the positive: a target that sends no callback at
        // all is blocked on A.callback.on-answer (which its own cases fail), not failed on enqueue.
        await means(() =>
          publishTo(client, inbox.url('published'), { [client.h('Callback')]: inbox.url('pcallback') }),
        );
        await means(() =>
          adapter.enqueue(queue, inbox.url('dest'), { [client.h('Callback')]: inbox.url('callback') }, 'queued'),
        );
        await means(() => inbox.arrive('A.publish.delivers', 'dest'));
        await means(() => inbox.arrive('A.callback.on-answer', 'pcallback'));
        const [callback] = await inbox.arrive('A.callback.on-enqueue', 'callback');
        const body = jsonRequest('A.callback.on-enqueue', callback, 'the callback body');
        checkThat('A.callback.on-enqueue', body.status === 200, `status ${show(body.status)}`, 'status 200');
      },
    },
    {
      id: 'messaging.callback.with-failure-callback',
      concurrent: true,
      rules: ['A.callback.with-failure-callback', 'A.callback.fields', 'A.failure-callback.fields'],
      title: 'A callback and a failure callback together: both are sent',
      expect:
        'A message that always fails, with retries 1 and both URLs: a callback after each answer the sink gave (one per attempt it saw), the last one with retried equal to maxRetries, and one failure callback; all carry the one creation time of the one message (createdAt, the callbacks alike, then the failure callback as they do).',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'callback.both');
        inbox.answer('dest', { status: 500 });
        const publishHeaders = {
          [client.h('Retries')]: '1',
          [client.h('Callback')]: inbox.url('callback'),
          [client.h('Failure-Callback')]: inbox.url('failure'),
        };
        await publishTo(client, inbox.url('dest'), publishHeaders);
        // Each kind alone is the means (a target that sends no callback, or no failure callback, at all
        // breaks that kind's own rule); together is this case's.
        await means(() =>
          inbox.arriveAll([
            { rule: 'A.callback.on-answer', role: 'callback', count: 1, what: 'a first callback' },
            {
              rule: 'A.failure-callback.after-exhaustion',
              role: 'failure',
              count: 1,
              what: 'the failure callback',
              afterRetries: { role: 'dest', asked: 1, callbacks: ['callback'] },
            },
          ]),
        );
        await inbox.arrive('A.callback.with-failure-callback', 'failure', 1, 'the failure callback');
        // The failure callback comes once the retries are spent: every attempt has come by then, and a
        // callback follows each (how many is the target's: Svc-Retries is not in the spec).
        await inbox.settle();
        const attempts = inbox.requests('dest').length;
        const callbacks = await inbox.arrive(
          'A.callback.with-failure-callback',
          'callback',
          attempts,
          `the callbacks, one per attempt (${attempts})`,
        );
        const sent = sentHeaders(client, publishHeaders);
        checkSourceHeaders('A.callback.fields', callbacks, sent, 'the callback body');
        // The failure callback says the retries were spent: the callback of the last attempt is the one a
        // receiver tells by retried equal to maxRetries ("Retries allowed before the message counts as
        // failed"), whatever number the target allowed.
        const last = callbacks
          .map((request) => jsonRequest('A.callback.fields', request, 'the callback body'))
          .find((body) => body.retried === attempts - 1);
        checkThat(
          'A.callback.fields',
          last !== undefined && last.maxRetries === last.retried,
          last === undefined
            ? `no callback with retried ${attempts - 1}`
            : `maxRetries ${show(last.maxRetries)} in the callback of the last attempt (retried ${show(last.retried)})`,
          `maxRetries ${attempts - 1}: the message counted as failed after its ${attempts} attempts (the failure callback came)`,
          'the callback body',
        );
        checkSourceHeaders('A.failure-callback.fields', inbox.requests('failure'), sent, 'the failure-callback body');
        // Spec "Callback body": createdAt is the creation time of the triggering message, and the
        // failure-callback body has the same fields: one message, one value. A shift of a millisecond
        // passes every window a check can set from the publish, but not this. The two callbacks agree
        // first, so a failure callback that differs from both is the one blamed.
        const [first, second] = callbacks.map((request) =>
          jsonRequest('A.callback.fields', request, 'the callback body'),
        );
        checkThat(
          'A.callback.fields',
          first?.createdAt === second?.createdAt,
          `createdAt ${show(first?.createdAt, 40)} and ${show(second?.createdAt, 40)} in the two callbacks of one message`,
          'one createdAt, the creation time of the message',
        );
        const failure = jsonRequest(
          'A.failure-callback.fields',
          inbox.requests('failure')[0],
          'the failure-callback body',
        );
        checkThat(
          'A.failure-callback.fields',
          failure.createdAt === first?.createdAt,
          `createdAt ${show(failure.createdAt, 40)} in the failure callback, ${show(first?.createdAt, 40)} in both callbacks of the same message`,
          'the createdAt of the callbacks: one message, one creation time',
        );
      },
    },
    {
      id: 'messaging.failure-callback.exhaustion',
      concurrent: true,
      rules: ['A.failure-callback.after-exhaustion', 'A.failure-callback.fields'],
      covers: [
        cover('A.failure-callback.fields', { 'callback-field': [...comparedFields, 'dlqId'] }),
        cover('A.signature.verifiable', {
          'delivery-kind': ['delivery', 'failure-callback'],
          'send-form': ['publish'],
        }),
      ],
      title: 'The failure callback comes once, after the last retry, with the callback fields and dlqId',
      expect:
        'A message that always fails, with retries 1: its attempts, then exactly one failure callback, not before the last attempt, with the Callback body’s fields equal to what happened on the last attempt (its status, header and body; retried equal to maxRetries, and 1 + maxRetries the attempts the sink saw) and dlqId; a message that succeeds sends none.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'failure.exhaustion');
        const tag = uniqueId(ctx, 'tag');
        inbox.answer('down', { status: 500, body: answerBody, headers: { [answerHeader]: tag } });
        const payload = `failing ✓ ${tag}!`;
        const sourceHeaders = { 'content-type': 'text/plain; charset=utf-8', [client.h('Forward-X-Svc-Source')]: tag };
        const publishedFrom = Date.now();
        // The callback after each attempt tells how many retries the target allows (maxRetries): when
        // its retries are its own and slow, the failure callback's wait can tell it is not over yet.
        const publishHeaders = {
          ...sourceHeaders,
          [client.h('Retries')]: '1',
          [client.h('Failure-Callback')]: inbox.url('failure'),
          [client.h('Callback')]: inbox.url('attempt'),
        };
        const published = await publishTo(client, inbox.url('down'), publishHeaders, payload);
        const publishedTo = Date.now();
        await publishTo(client, inbox.url('up'), {
          [client.h('Retries')]: '1',
          [client.h('Failure-Callback')]: inbox.url('never'),
        });
        const messageId = messageIdOf(published);
        inbox.judge('never', () => {
          throw new CheckFailure(
            'A.failure-callback.after-exhaustion',
            'a failure callback for a delivered message',
            'none',
          );
        });
        const [[failure] = []] = await inbox.arriveAll([
          {
            rule: 'A.failure-callback.after-exhaustion',
            role: 'failure',
            what: 'the failure callback',
            afterRetries: { role: 'down', asked: 1, callbacks: ['attempt'] },
          },
          { rule: 'A.publish.delivers', role: 'down', what: 'the first attempt' },
        ]);
        await inbox.settle();
        // Every attempt the target made (Svc-Retries is not in the spec: how many is its choice).
        const attempts = inbox.requests('down');
        const failures = inbox.requests('failure').length;
        checkThat(
          'A.failure-callback.after-exhaustion',
          failures === 1,
          `${failures} failure callbacks`,
          'exactly one',
        );
        const last = attempts.at(-1)?.at ?? 0;
        checkThat(
          'A.failure-callback.after-exhaustion',
          (failure?.at ?? 0) >= last,
          `the failure callback ${last - (failure?.at ?? 0)} ms before the last attempt`,
          'after the last attempt',
        );
        const body = jsonRequest('A.failure-callback.fields', failure, 'the failure-callback body');
        checkFields(
          'A.failure-callback.fields',
          'A.failure-callback.fields',
          body,
          { ...callbackFields, dlqId: 'string' },
          'the failure-callback body',
        );
        checkIntegerLiterals(
          'A.failure-callback.fields',
          failure?.body ?? '',
          integerFieldsOf(callbackFields),
          'the failure-callback body',
        );
        ctx.observe(`${attempts.length} attempts (Svc-Retries 1 asked), maxRetries ${show(body.maxRetries)}`);
        checkCallbackTruth(
          'A.failure-callback.fields',
          body,
          {
            attempts,
            exhausted: true,
            url: inbox.url('down'),
            method: 'POST',
            ...(messageId !== undefined && { messageId }),
            sourceBody: payload,
            sourceHeaders: sentHeaders(client, publishHeaders),
            publishedFrom,
            publishedTo,
            messageIdHeader: vendorHeader(ctx.dialect, 'Message-Id'),
          },
          'the failure-callback body',
        );
      },
    },
    {
      id: 'messaging.failure-callback.dlq-entry',
      concurrent: true,
      rules: ['A.failure-callback.dlq-entry'],
      needs: ['messaging.adapter'],
      title: 'The dlqId of a failure callback names a dead letter',
      expect: 'A message that always fails, with retries 0: the failure callback’s dlqId reads back a dead letter.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const adapter = await messagingAdapter(ctx);
        const inbox = await openInbox(ctx, 'failure.dlq');
        inbox.answer('down', { status: 500 });
        await publishTo(client, inbox.url('down'), {
          [client.h('Retries')]: '0',
          [client.h('Failure-Callback')]: inbox.url('failure'),
        });
        const [failure] = await means(() =>
          inbox.arrive('A.failure-callback.after-exhaustion', 'failure', 1, 'the failure callback', retriesZero),
        );
        const body = jsonRequest('A.failure-callback.fields', failure, 'the failure-callback body');
        await means(async () =>
          checkThat(
            'A.failure-callback.fields',
            typeof body.dlqId === 'string',
            `dlqId ${show(body.dlqId)}`,
            'dlqId, a string',
          ),
        );
        const entry = await adapter.deadLetter(String(body.dlqId));
        checkThat('A.failure-callback.dlq-entry', entry !== undefined, 'no dead letter with that id', 'a dead letter');
      },
    },
    {
      id: 'messaging.failure-callback.config',
      concurrent: true,
      rules: ['A.failure-callback.config-headers', 'A.failure-callback.fields'],
      covers: [cover('A.failure-callback.config-headers', { 'callback-header': ['method', 'delay', 'timeout'] })],
      title: 'The failure-callback configuration headers configure the failure-callback request',
      expect:
        'With Failure-Callback-Method PUT, -Delay 1s, -Timeout 1s and -Retries 1, and a failure-callback URL that answers after 3 s: two failure-callback requests, both PUT, the first a second or more after the last attempt, the second a second or more after the first.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'failure.config');
        inbox.answer('down', { status: 500 });
        inbox.answer('failure', { delayMs: 3000 });
        const publishHeaders = {
          [client.h('Retries')]: '0',
          [client.h('Failure-Callback')]: inbox.url('failure'),
          [client.h('Failure-Callback-Method')]: 'PUT',
          [client.h('Failure-Callback-Delay')]: '1s',
          [client.h('Failure-Callback-Timeout')]: '1s',
          [client.h('Failure-Callback-Retries')]: '1',
        };
        await publishTo(client, inbox.url('down'), publishHeaders);
        const [attempt] = await means(() => inbox.arrive('A.publish.delivers', 'down'));
        await means(() =>
          inbox.arrive('A.failure-callback.after-exhaustion', 'failure', 1, 'a first failure callback', retriesZero),
        );
        const failures = await inbox.arrive(
          'A.failure-callback.config-headers',
          'failure',
          2,
          'the timed-out failure callback tried again',
        );
        const methods = failures.map((item) => item.method);
        checkThat(
          'A.failure-callback.config-headers',
          methods.every((m) => m === 'PUT'),
          `methods ${methods.join(', ')}`,
          'PUT',
        );
        const delay = (failures[0]?.at ?? 0) - (attempt?.at ?? 0);
        checkThat(
          'A.failure-callback.config-headers',
          delay >= aboutOneSecondMs,
          `${delay} ms after the attempt`,
          'at least 1 s after it',
        );
        const apart = (failures[1]?.at ?? 0) - (failures[0]?.at ?? 0);
        checkThat(
          'A.failure-callback.config-headers',
          apart >= aboutOneSecondMs,
          `the second ${apart} ms after the first`,
          'at least 1 s after it (the timeout)',
        );
        checkSourceHeaders(
          'A.failure-callback.fields',
          failures,
          sentHeaders(client, publishHeaders),
          'the failure-callback body',
        );
      },
    },
    {
      id: 'messaging.failure-callback.forward',
      concurrent: true,
      rules: ['A.failure-callback.forward-headers', 'A.failure-callback.fields'],
      title: 'Failure-Callback-Forward-<Header-Name> reaches the failure-callback endpoint',
      expect:
        'With Failure-Callback-Forward-X-Svc-Harness: forwarded, the failure callback carries X-Svc-Harness: forwarded.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'failure.forward');
        inbox.answer('down', { status: 500 });
        const publishHeaders = {
          [client.h('Retries')]: '0',
          [client.h('Failure-Callback')]: inbox.url('failure'),
          [client.h('Failure-Callback-Forward-X-Svc-Harness')]: 'forwarded',
        };
        await publishTo(client, inbox.url('down'), publishHeaders);
        const [failure] = await means(() =>
          inbox.arrive('A.failure-callback.after-exhaustion', 'failure', 1, 'the failure callback', retriesZero),
        );
        const value = failure?.headers['x-svc-harness'];
        checkThat(
          'A.failure-callback.forward-headers',
          value === 'forwarded',
          `X-Svc-Harness ${show(value ?? null)}`,
          'X-Svc-Harness "forwarded"',
        );
        checkSourceHeaders(
          'A.failure-callback.fields',
          [failure],
          sentHeaders(client, publishHeaders),
          'the failure-callback body',
        );
      },
    },
    {
      id: 'messaging.errors.other-statuses',
      concurrent: true,
      rules: ['A.errors.other-statuses'],
      title: 'Statuses of other refusals (not shown by the spec)',
      expect:
        'Observed: the status and body of a publish to a destination that is not http(s), and of pausing a queue that does not exist.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const bad = await client.call('/v2/publish/ftp://example.invalid/x', { body: 'x' });
        ctx.observe(`publish to ftp://: ${describe(bad)}`);
        const unknown = await client.call(`/v2/queues/${uniqueId(ctx, 'none')}/pause`);
        ctx.observe(`pause of an unknown queue: ${describe(unknown)}`);
      },
    },
  ]),
);
