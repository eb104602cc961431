/**
 * Spec "Endpoints > Area A": Svc-Callback-Retries and Svc-Failure-Callback-Retries configure their
 * request "as the corresponding direct-publish header": a (failure-)callback URL that always fails gets
 * exactly 1 + retries requests. Counted with one retry, so a real service's backoff (about 12 s before
 * the first retry) stays within the sink's wait; a target that ignores the header sends more.
 */
import { defineCases, means } from '../../src/suite-kit/suite-api.ts';
import { sleep } from '../support/bounded.ts';
import { checkThat } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { publishTo } from '../support/messaging-steps.ts';

/** Retries asked for: fewer than the default (3), so a target that ignores the header sends more. */
const retries = 1;

const kinds = [
  { kind: 'Callback', rule: 'A.callback.config-headers', sent: 'A.callback.on-answer', destination: 200 },
  {
    kind: 'Failure-Callback',
    rule: 'A.failure-callback.config-headers',
    sent: 'A.failure-callback.after-exhaustion',
    destination: 500,
  },
] as const;

export const cases = defineCases(
  signedCases(
    kinds.map(({ kind, rule, sent, destination }) => ({
      id: `messaging.${kind.toLowerCase()}.retries-counted`,
      concurrent: true,
      rules: [rule],
      title: `${kind}-Retries: a ${kind.toLowerCase()} URL that always fails gets exactly 1 + retries requests`,
      expect: `A message with ${kind}-Retries ${retries}, its destination answering ${destination} (retries 0) and its ${kind.toLowerCase()} URL always 500: exactly ${retries + 1} requests at that URL.`,
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, `${kind.toLowerCase()}.retries`);
        inbox.answer('dest', { status: destination });
        inbox.answer('target', { status: 500 });
        await publishTo(client, inbox.url('dest'), {
          [client.h('Retries')]: '0',
          [client.h(kind)]: inbox.url('target'),
          [client.h(`${kind}-Retries`)]: String(retries),
        });
        await means(() => inbox.arrive('A.publish.delivers', 'dest'));
        // A first request is the means: a target that never sends one breaks `sent`, not the retries.
        // The failure callback follows the destination's retries (Retries 0 asked; a target's own may be more).
        await means(() =>
          inbox.arrive(sent, 'target', 1, `the first ${kind.toLowerCase()}`, { role: 'dest', asked: 0 }),
        );
        await inbox.arrive(rule, 'target', retries + 1, `${client.h(kind)}: the request and its retries`);
        // The default retries' next request comes one backoff later: give it a moment to show.
        await sleep(1000);
        await inbox.settle();
        const got = inbox.requests('target').length;
        checkThat(rule, got === retries + 1, `${got} requests`, `${retries + 1} (1 + ${kind}-Retries)`);
      },
    })),
  ),
);
