/**
 * Spec "Limits": area A's limits are the messaging account's fields. Message size and the request
 * rate are checked elsewhere (publish and auth cases); here the retries and the parallelism per
 * endpoint (MUST: the account names each a limit of what the service does), and the delay and the
 * request timeout (observed: the spec does not say whether a delay above the maximum is refused or
 * capped, nor which request the timeout bounds). Limits are lowered through the admin hook for the
 * case and restored; without one, the parallelism is read from the management area and tried only
 * when it is small, and the rest is skipped.
 */
import {
  type CaseContext,
  defineCases,
  jsonBody,
  means,
  type SinkRequest,
  show,
} from '../../src/engines/conformance/suite-api.ts';
import { sleep } from '../support/bounded.ts';
import { createManagementClient } from '../support/management-client.ts';
import { checkThat, describe } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { withAccountLimits } from '../support/messaging-steps.ts';

/** A limit of the plan read from the management area's account; undefined without one. */
async function planLimit(ctx: CaseContext, field: string): Promise<number | undefined> {
  if (ctx.target.management === undefined) return undefined;
  const res = await createManagementClient(ctx).account();
  if (res.status !== 200) return undefined;
  const value = (jsonBody(res) as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** The most requests in flight at once, each held `holdMs` by the sink from its arrival. */
export function mostInFlight(requests: readonly SinkRequest[], holdMs: number): number {
  // An answer leaves the sink a little after the hold; the next request cannot start before it.
  const slack = Math.min(100, holdMs / 4);
  return Math.max(
    0,
    ...requests.map(
      (request) => requests.filter((other) => other.at <= request.at && request.at < other.at + holdMs - slack).length,
    ),
  );
}

/** How long the sink holds each request of the parallelism case. */
const holdMs = 1000;
/** The per-endpoint parallelism set for the case through the admin hook. */
const lowParallelism = 2;
/** The most a plan's parallelism may be for the case to run without the admin hook. */
const smallParallelism = 10;

export const cases = defineCases(
  signedCases([
    {
      id: 'messaging.limits.retries',
      rules: ['A.limits.retries'],
      needs: ['admin'],
      title: 'A message gets at most 1 + max_retries attempts, whatever Svc-Retries asks',
      expect:
        'With max_retries set to 1, a message to a destination that always fails, with Svc-Retries 3: refused, or at most two attempts.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'limits.retries');
        inbox.answer('down', { status: 500 });
        await withAccountLimits(ctx, { max_retries: 1 }, async () => {
          const res = await client.call(`/v2/publish/${inbox.url('down')}`, {
            headers: { 'content-type': 'text/plain', [client.h('Retries')]: '3' },
            body: 'more retries than the plan allows',
          });
          ctx.observe(`a publish with Svc-Retries above max_retries: ${describe(res)}`);
          if (res.status < 200 || res.status > 299) return;
          await means(() => inbox.arrive('A.publish.delivers', 'down', 2, 'the first attempt and one retry'));
          // A third attempt would follow the second after one backoff: give it time to show.
          await sleep(1500);
          await inbox.settle();
        });
        const attempts = inbox.requests('down').length;
        checkThat('A.limits.retries', attempts <= 2, `${attempts} attempts`, 'at most 2 (1 + max_retries)');
      },
    },
    {
      id: 'messaging.limits.parallelism',
      rules: ['A.limits.parallelism'],
      title: 'Never more than max_parallelism deliveries in flight to one endpoint',
      expect: `With max_parallelism at ${lowParallelism} (admin hook; else the plan’s, when at most ${smallParallelism}), that many + 4 messages to one endpoint that holds each request ${holdMs} ms: never more than max_parallelism held at once.`,
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'limits.parallelism');
        inbox.answer('slow', { delayMs: holdMs });
        const burst = async (limit: number) => {
          const count = limit + 4;
          const endpoint = inbox.url('slow');
          await Promise.all(
            Array.from({ length: count }, async (_, index) => {
              const res = await client.call(`/v2/publish/${endpoint}`, {
                headers: { 'content-type': 'text/plain' },
                body: `message ${index}`,
              });
              if (res.status < 200 || res.status > 299) {
                await means(async () => checkThat('A.publish.delivers', false, describe(res), 'the publish accepted'));
              }
            }),
          );
          await means(() => inbox.arrive('A.publish.delivers', 'slow', count, `${count} deliveries`));
          const most = mostInFlight(inbox.requests('slow'), holdMs);
          ctx.observe(`${count} messages, at most ${most} held at once (limit ${limit})`);
          checkThat('A.limits.parallelism', most <= limit, `${most} in flight at once`, `at most ${limit}`);
        };
        if (ctx.target.admin !== undefined) {
          await withAccountLimits(ctx, { max_parallelism: lowParallelism }, () => burst(lowParallelism));
          return;
        }
        const limit = await planLimit(ctx, 'max_parallelism');
        if (limit === undefined) {
          return ctx.skip('neither an admin hook to lower max_parallelism nor a management area to read it.');
        }
        if (limit > smallParallelism) {
          return ctx.skip(
            `the plan allows ${limit} deliveries in flight per endpoint: too many to hold on a shared target.`,
          );
        }
        await burst(limit);
      },
    },
    {
      id: 'messaging.limits.delay',
      rules: ['A.limits.delay'],
      needs: ['admin'],
      title: 'What a delay above max_delay does (not shown by the spec)',
      expect:
        'Observed: with max_delay set to 1 s, whether a message with Svc-Delay 3s is refused, capped or delayed 3 s, and what Svc-Not-Before 3 s away gets.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'limits.delay');
        await withAccountLimits(ctx, { max_delay: 1 }, async () => {
          // Its sibling: a first delivery time as far away as the delay (the real service treats both alike).
          const notBefore = await client.call(`/v2/publish/${inbox.url('not-before')}`, {
            headers: {
              'content-type': 'text/plain',
              [client.h('Not-Before')]: String(Math.floor(Date.now() / 1000) + 3),
            },
            body: 'not before, past the plan',
          });
          ctx.observe(`a publish with Svc-Not-Before 3 s away above max_delay 1 s: ${describe(notBefore)}`);
          if (notBefore.status >= 200 && notBefore.status <= 299) {
            const [came] = await inbox.arrive('A.limits.delay', 'not-before').catch(() => [undefined]);
            ctx.observe(came === undefined ? 'Svc-Not-Before: never delivered' : 'Svc-Not-Before: delivered');
          }
          const sent = Date.now();
          const res = await client.call(`/v2/publish/${inbox.url('later')}`, {
            headers: { 'content-type': 'text/plain', [client.h('Delay')]: '3s' },
            body: 'delayed past the plan',
          });
          ctx.observe(`a publish with Svc-Delay 3s above max_delay 1 s: ${describe(res)}`);
          if (res.status < 200 || res.status > 299) return;
          const [got] = await inbox.arrive('A.limits.delay', 'later').catch(() => [undefined]);
          ctx.observe(
            got === undefined ? 'never delivered' : `delivered ${(got.at - sent) / 1000} s after the publish`,
          );
        });
      },
    },
    {
      id: 'messaging.limits.timeout',
      rules: ['A.limits.timeout'],
      needs: ['admin'],
      title: 'What the plan’s request timeout does to a slow destination (not shown by the spec)',
      expect:
        'Observed: with timeout set to 1 s, a message with retries 1 to a destination that answers after 3 s: how many attempts come, how far apart.',
      async run(ctx) {
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'limits.timeout');
        inbox.answer('slow', { delayMs: 3000 });
        await withAccountLimits(ctx, { timeout: 1 }, async () => {
          const res = await client.call(`/v2/publish/${inbox.url('slow')}`, {
            headers: { 'content-type': 'text/plain', [client.h('Retries')]: '1' },
            body: 'slow destination',
          });
          ctx.observe(`the publish: ${describe(res)}`);
          await inbox.arrive('A.limits.timeout', 'slow', 2).catch(() => undefined);
        });
        const ats = inbox.requests('slow').map((request) => request.at);
        ctx.observe(
          `${ats.length} attempts${ats.length > 1 ? `, ${show(ats.slice(1).map((at, i) => at - (ats[i] as number)))} ms apart` : ''}`,
        );
      },
    },
  ]),
);
