/**
 * Spec "Limits": area A's limits are the messaging account's fields. Message size and the request
 * rate are checked elsewhere (publish and auth cases), topics and endpoints per topic with URL groups;
 * here the retries, the parallelism per endpoint, the queues and the dead letter queue's size (MUST:
 * the account names each a limit of what the service does), and the delay and the request timeout
 * (observed: the spec does not say whether a delay above the maximum is refused or capped, nor which
 * request the timeout bounds). Limits are lowered through the admin hook for the case and restored;
 * without one, a limit is read from the management area and tried only when it is within reach, and
 * the rest is skipped. How a limit is refused is not shown: refused or not kept both conform; holding
 * more than the limit does not.
 */
import {
  type CaseContext,
  defineCases,
  jsonBody,
  means,
  type SinkRequest,
  show,
} from '../../src/suite-kit/suite-api.ts';
import { cover, type DimensionValue } from '../rules/dimensions.ts';
import { sleep } from '../support/bounded.ts';
import { createManagementClient } from '../support/management-client.ts';
import { messagingAdapter, type QueueLimitSteps, type TryOutcome } from '../support/messaging-adapter.ts';
import { checkThat, describe } from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { publishTo, uniqueId, withAccountLimits } from '../support/messaging-steps.ts';

/** A limit of the plan read from the management area's account; undefined without one. */
async function planLimit(ctx: CaseContext, field: string): Promise<number | undefined> {
  if (ctx.target.management === undefined) return undefined;
  const res = await createManagementClient(ctx).account();
  if (res.status !== 200) return undefined;
  const value = (jsonBody(res) as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** How far above what the target holds a limit case sets the limit, or finds it. */
interface Reach {
  /** The limit through the admin hook: what is held plus this. */
  readonly lowered: number;
  /** Without the hook, the most the plan's own limit may be above what is held for the case to run. */
  readonly most: number;
}

/**
 * Runs `body` with the plan's `field` at what the target holds now (`held()`) plus `reach.lowered`,
 * set through the admin hook; without one, at the plan's own value read from the management area,
 * when it is at most `reach.most` above what is held. Otherwise the case is skipped: the limit is too
 * high to reach in a test. `body` gets the limit and the count held before it.
 */
async function withinReach(
  ctx: CaseContext,
  field: string,
  reach: Reach,
  held: () => Promise<number>,
  body: (limit: number, before: number) => Promise<void>,
): Promise<void> {
  if (ctx.target.admin !== undefined) {
    const before = await held();
    const limit = before + reach.lowered;
    await withAccountLimits(ctx, { [field]: limit }, () => body(limit, before));
    return;
  }
  const limit = await planLimit(ctx, field);
  if (limit === undefined) return ctx.skip(`neither an admin hook to lower ${field} nor a management area to read it.`);
  const before = await held();
  if (limit - before > reach.most) {
    return ctx.skip(
      `${field} is ${limit} and the target holds ${before}: too far to reach in a test (at most ${reach.most} more).`,
    );
  }
  await body(limit, before);
}

/** max_queues at the queues held plus one; without the hook, the plan's when at most 5 above. */
const queueReach: Reach = { lowered: 1, most: 5 };
/** max_dlq_size at the dead letters held plus two; without the hook, the plan's when at most 5 above. */
const deadLetterReach: Reach = { lowered: 2, most: 5 };

/** Each way a new queue comes to exist, tried once past max_queues: the case's queue-creation cells. */
const queueCreations: Readonly<
  Record<
    DimensionValue<'queue-creation'>,
    (steps: QueueLimitSteps, queue: string, destination: string) => Promise<TryOutcome>
  >
> = {
  create: (steps, queue) => steps.tryCreate(queue),
  'first-enqueue': (steps, queue, destination) => steps.tryEnqueue(queue, destination, 'a first enqueue'),
};

const queueCreationCells = Object.keys(queueCreations) as DimensionValue<'queue-creation'>[];

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
      id: 'messaging.limits.queues',
      rules: ['A.limits.queues'],
      needs: ['messaging.adapter'],
      covers: [cover('A.limits.queues', { 'queue-creation': queueCreationCells })],
      title: 'The target never holds more queues than max_queues',
      expect: `With max_queues at the queues held plus one (admin hook; else the plan’s, when at most ${queueReach.most} above what is held), queues are made up to the limit; then a new queue is created and another enqueued to: each refused, or not kept; the queues held are at most max_queues. Whether a queue already held still takes an upsert and a message at the limit is observed.`,
      async run(ctx) {
        const adapter = await messagingAdapter(ctx);
        const steps = adapter.queues;
        if (steps === undefined) return ctx.skip('the messaging adapter has no queue steps (queues).');
        const inbox = await openInbox(ctx, 'limits.queues');
        const queueName = (label: string) => {
          const queue = uniqueId(ctx, label).slice(-60);
          ctx.onCleanup(async () => {
            await adapter.deleteQueue?.(queue);
          });
          return queue;
        };
        await withinReach(ctx, 'max_queues', queueReach, steps.count, async (limit, before) => {
          let last: string | undefined;
          for (let at = before; at < limit; at++) {
            const queue = queueName(`fill${at}`);
            const made = await steps.tryCreate(queue);
            await means(async () =>
              checkThat(
                'A.limits.queues',
                made.accepted,
                `refused: ${made.answer}`,
                `queue ${at + 1} of ${limit} made`,
              ),
            );
            last = queue;
          }
          if (last !== undefined) {
            const again = await steps.tryCreate(last);
            const message = await steps.tryEnqueue(last, inbox.url('held'), 'to a queue held at the limit');
            ctx.observe(
              `at max_queues ${limit}, a queue held: upsert ${again.accepted ? 'accepted' : 'refused'} (${again.answer}), enqueue ${message.accepted ? 'accepted' : 'refused'} (${message.answer})`,
            );
          }
          const kept: string[] = [];
          for (const [creation, attempt] of Object.entries(queueCreations)) {
            const queue = queueName(creation);
            const over = await attempt(steps, queue, inbox.url(creation));
            ctx.observe(
              `a new queue past max_queues ${limit} by ${creation}: ${over.accepted ? 'accepted' : 'refused'} (${over.answer})`,
            );
            if (await steps.exists(queue)) kept.push(creation);
          }
          const count = await steps.count();
          checkThat(
            'A.limits.queues',
            kept.length === 0 && count <= limit,
            `${count} queues${kept.length === 0 ? '' : `, kept past the limit: the one made by ${kept.join(' and ')}`}`,
            `at most ${limit} queues, none past the limit`,
          );
        });
      },
    },
    {
      id: 'messaging.limits.dlq-size',
      rules: ['A.limits.dlq-size'],
      needs: ['messaging.adapter'],
      title: 'The dead letter queue never holds more than max_dlq_size messages',
      expect: `With max_dlq_size at the dead letters held plus two (admin hook; else the plan’s, when at most ${deadLetterReach.most} above what is held), one more message than that room fails for good (retries 0, a failure callback each): the dead letter queue holds at most max_dlq_size afterwards. Whether the newest or the oldest dead letters are kept is observed.`,
      async run(ctx) {
        const adapter = await messagingAdapter(ctx);
        const steps = adapter.deadLetters;
        if (steps === undefined) return ctx.skip('the messaging adapter has no dead letter steps (deadLetters).');
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'limits.dlq-size');
        inbox.answer('down', { status: 500 });
        await withinReach(ctx, 'max_dlq_size', deadLetterReach, steps.count, async (limit, before) => {
          const failures = Math.max(1, limit - before + 1);
          for (let at = 0; at < failures; at++) {
            // One at a time, so the dead letters come in a known order (oldest first).
            await publishTo(
              client,
              inbox.url('down', `/${at}`),
              { [client.h('Retries')]: '0', [client.h('Failure-Callback')]: inbox.url('failure', `/${at}`) },
              `dead letter ${at + 1} of ${failures}`,
            );
            // Its failure callback follows its retries (0 asked, one message after another: at + 1 attempts).
            await means(() =>
              inbox.arrive('A.failure-callback.after-exhaustion', 'failure', at + 1, `failure callback ${at + 1}`, {
                role: 'down',
                asked: at,
              }),
            );
          }
          await inbox.settle();
          const count = await steps.count();
          const dlqIds = inbox.requests('failure').map((request) => {
            try {
              return (JSON.parse(request.body.toString('utf8')) as { dlqId?: unknown }).dlqId;
            } catch {
              return undefined;
            }
          });
          const readable = async (dlqId: unknown) =>
            typeof dlqId === 'string' && (await adapter.deadLetter(dlqId)) !== undefined;
          ctx.observe(
            `${failures} dead letters past ${before} held, max_dlq_size ${limit}: ${count} held; the first ${(await readable(dlqIds[0])) ? 'kept' : 'not kept'}, the last ${(await readable(dlqIds.at(-1))) ? 'kept' : 'not kept'}`,
          );
          checkThat('A.limits.dlq-size', count <= limit, `${count} dead letters`, `at most ${limit} (max_dlq_size)`);
        });
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
