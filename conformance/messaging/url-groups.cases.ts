/**
 * URL groups (topics). The spec names them through the callback body's topicName ("when the message
 * was sent to a URL group") and endpointName ("when the endpoint has a name within a topic"), and the
 * account's max_topics and max_endpoints_per_topic ("Limits"). How a group is made and published to
 * is the real service's API, which the spec does not document: the target's adapter does it
 * (`urlGroups`), and a refusal there blocks the case. A message to a group reaches every endpoint;
 * each callback and failure callback names the group and the endpoint; the limits hold. That a message
 * reaches every endpoint of its group is the real service's behaviour, not the spec's: it is observed.
 */
import { type CaseContext, CheckFailure, defineCases, type SinkRequest, show } from '../../src/suite-kit/suite-api.ts';
import { allOf, cover } from '../rules/dimensions.ts';
import { messagingAdapter, type UrlGroupEndpoint, type UrlGroupSteps } from '../support/messaging-adapter.ts';
import {
  checkFields,
  checkThat,
  type FieldTable,
  groupCallbackFields,
  jsonRequest,
  types,
} from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { uniqueId, withAccountLimits } from '../support/messaging-steps.ts';

/** The Callback body's fields these cases check (the coverage matrix's names), from the table they check with. */
const groupFields = allOf('callback-field').filter((field) => field in groupCallbackFields);

/** The adapter's URL-group steps; the case is skipped (with the reason) when the adapter has none. */
async function urlGroupsOf(ctx: CaseContext): Promise<UrlGroupSteps> {
  const steps = (await messagingAdapter(ctx)).urlGroups;
  if (steps === undefined) ctx.skip('the messaging adapter has no URL-group steps (urlGroups).');
  return steps;
}

/** A group of the case's own, removed when the case ends. */
function groupName(ctx: CaseContext, steps: UrlGroupSteps, label: string): string {
  const name = uniqueId(ctx, label);
  ctx.onCleanup(() => steps.delete(name));
  return name;
}

/**
 * topicName and endpointName of one callback (or failure-callback) body, judged on `rule`: topicName
 * the group's name; endpointName the name of the endpoint the body's url names, when it has one (an
 * unnamed endpoint's is not judged: the spec gives it "when the endpoint has a name"), typed when present.
 */
function checkGroupFields(
  rule: string,
  request: SinkRequest,
  group: string,
  endpoints: readonly UrlGroupEndpoint[],
  context: string,
): void {
  const body = jsonRequest(rule, request, context);
  const endpoint = endpoints.find((item) => item.url === body.url);
  const named = endpoint?.name !== undefined;
  const table: FieldTable = named ? groupCallbackFields : { topicName: 'string' };
  checkFields(rule, rule, body, table, context);
  if ('endpointName' in body && !types.string(body.endpointName)) {
    throw new CheckFailure(rule, `endpointName ${show(body.endpointName)}`, 'endpointName a string', context);
  }
  if (body.topicName !== group) {
    throw new CheckFailure(rule, `topicName ${show(body.topicName)}`, `topicName ${show(group)} (the group)`, context);
  }
  if (named && body.endpointName !== endpoint?.name) {
    throw new CheckFailure(
      rule,
      `endpointName ${show(body.endpointName)} for ${show(body.url)}`,
      `endpointName ${show(endpoint?.name)} (that endpoint's name)`,
      context,
    );
  }
}

/**
 * A wait for the group's deliveries the case needs: a shortfall there skips the case, saying so (the
 * spec does not say which endpoints a group reaches: A.url-group.fan-out is observed, and a target
 * that reaches fewer lacks what the case needs); any other failure (a callback judged while it
 * waited) keeps its own verdict.
 */
async function fanOut<T>(ctx: CaseContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof CheckFailure) || error.rule !== 'A.url-group.fan-out') throw error;
    return ctx.skip(
      `the target's URL group did not reach the endpoints this case needs (${error.message}): which endpoints a group reaches is not shown (A.url-group.fan-out, observed).`,
    );
  }
}

export const cases = defineCases(
  signedCases([
    {
      id: 'messaging.url-group.callbacks',
      rules: [
        'A.url-group.fan-out',
        'A.callback.on-answer',
        'A.callback.fields',
        'A.callback.field-types',
        'A.failure-callback.after-exhaustion',
        'A.failure-callback.fields',
      ],
      needs: ['messaging.adapter'],
      covers: [
        cover('A.callback.fields', { 'callback-field': groupFields }),
        cover('A.callback.field-types', { 'callback-field': groupFields }),
        cover('A.failure-callback.fields', { 'callback-field': groupFields }),
      ],
      title: 'A message to a URL group reaches every endpoint, and its callbacks name the group and the endpoint',
      expect:
        'A group of three endpoints (two named, one answering 500), published to with a callback, a failure callback and retries 0: each endpoint gets the message (observed: the spec does not say a group reaches every endpoint; without it the case is skipped, saying so); each callback has topicName, the group, and endpointName, the named endpoint’s name; the failing endpoint’s failure callback has both too.',
      async run(ctx) {
        const steps = await urlGroupsOf(ctx);
        const client = createMessagingClient(ctx);
        const inbox = await openInbox(ctx, 'url-group.callbacks');
        const group = groupName(ctx, steps, 'group');
        inbox.answer('down', { status: 500 });
        const endpoints: UrlGroupEndpoint[] = [
          { name: 'first', url: inbox.url('first') },
          { url: inbox.url('plain') },
          { name: 'down', url: inbox.url('down') },
        ];
        await steps.upsert(group, endpoints);
        inbox.judge('callback', (request) =>
          checkGroupFields('A.callback.fields', request, group, endpoints, 'the callback body'),
        );
        inbox.judge('failure', (request) =>
          checkGroupFields('A.failure-callback.fields', request, group, endpoints, 'the failure-callback body'),
        );
        await steps.publish(
          group,
          {
            [client.h('Retries')]: '0',
            [client.h('Callback')]: inbox.url('callback'),
            [client.h('Failure-Callback')]: inbox.url('failure'),
          },
          'to every endpoint',
        );
        // Which endpoints a group's message reaches is not shown (A.url-group.fan-out, observed): the
        // case needs all three, so a target that does otherwise skips it (the capability it lacks).
        await fanOut(ctx, () =>
          inbox.arriveAll(
            ['first', 'plain', 'down'].map((role) => ({
              rule: 'A.url-group.fan-out',
              role,
              what: `the message at the group's endpoint ${role}`,
            })),
          ),
        );
        ctx.observe('the group’s message reached each of its three endpoints');
        // Each callback and the failure callback is judged as it comes (a wrong field ends the case on
        // its rule); one that never comes fails its own kind's rule. A callback per attempt: the
        // failing endpoint's count is the target's (its retries), the others' one each.
        await inbox.arriveAll([
          { rule: 'A.callback.on-answer', role: 'callback', count: 3, what: 'a callback per endpoint' },
          {
            rule: 'A.failure-callback.after-exhaustion',
            role: 'failure',
            what: 'the failing endpoint’s failure callback',
            afterRetries: { role: 'down', asked: 0 },
          },
        ]);
        const urls = inbox
          .requests('callback')
          .map((request) => jsonRequest('A.callback.fields', request, 'the callback body').url);
        checkThat(
          'A.callback.fields',
          endpoints.every((endpoint) => urls.includes(endpoint.url)),
          `callbacks for ${show(urls)}`,
          'one for each endpoint’s url',
        );
      },
    },
    {
      id: 'messaging.url-group.endpoint-limit',
      rules: ['A.limits.endpoints-per-topic'],
      needs: ['admin', 'messaging.adapter'],
      title: 'A URL group never holds more endpoints than max_endpoints_per_topic',
      expect:
        'With max_endpoints_per_topic set to 2, a group of two endpoints takes a third: refused, or not kept; the group lists at most two, and a message to it reaches at most two.',
      async run(ctx) {
        const steps = await urlGroupsOf(ctx);
        const inbox = await openInbox(ctx, 'url-group.endpoint-limit');
        const group = groupName(ctx, steps, 'limit');
        await withAccountLimits(ctx, { max_endpoints_per_topic: 2 }, async () => {
          await steps.upsert(group, [{ url: inbox.url('a') }, { url: inbox.url('b') }]);
          const third = await steps.tryUpsert(group, [{ url: inbox.url('c') }]);
          ctx.observe(
            `a third endpoint past max_endpoints_per_topic 2: ${third.accepted ? 'accepted' : 'refused'} (${third.answer})`,
          );
          const kept = (await steps.endpoints(group)) ?? [];
          checkThat(
            'A.limits.endpoints-per-topic',
            kept.length <= 2,
            `${kept.length} endpoints (${show(kept.map((item) => item.url))})`,
            'at most 2',
          );
          await steps.publish(group, {}, 'to a group at its limit');
          // The message reaching one endpoint is the means; which ones it reaches is the target's.
          await fanOut(ctx, () =>
            inbox.until(() =>
              ['a', 'b', 'c'].some((role) => inbox.requests(role).length > 0)
                ? undefined
                : { rule: 'A.url-group.fan-out', role: 'a', what: 'the message at one of the group’s endpoints' },
            ),
          );
          await inbox.settle();
        });
        const reached = ['a', 'b', 'c'].filter((role) => inbox.requests(role).length > 0);
        checkThat(
          'A.limits.endpoints-per-topic',
          reached.length <= 2,
          `the message reached ${reached.length} endpoints (${reached.join(', ')})`,
          'at most 2',
        );
      },
    },
    {
      id: 'messaging.url-group.topic-limit',
      rules: ['A.limits.topics'],
      needs: ['admin', 'messaging.adapter'],
      title: 'The target never holds more URL groups than max_topics',
      expect:
        'With max_topics set to the groups held now plus one, one new group is made; a second is refused, or not kept: it cannot be read, and the groups held are at most max_topics.',
      async run(ctx) {
        const steps = await urlGroupsOf(ctx);
        const first = groupName(ctx, steps, 'topic-a');
        const second = groupName(ctx, steps, 'topic-b');
        const endpoints = [{ url: 'https://svc-harness.invalid/url-group-limit' }];
        const held = await steps.count();
        await withAccountLimits(ctx, { max_topics: held + 1 }, async () => {
          await steps.upsert(first, endpoints);
          const over = await steps.tryUpsert(second, endpoints);
          ctx.observe(
            `a group past max_topics ${held + 1}: ${over.accepted ? 'accepted' : 'refused'} (${over.answer})`,
          );
          const kept = await steps.endpoints(second);
          const count = await steps.count();
          checkThat(
            'A.limits.topics',
            kept === undefined && count <= held + 1,
            `${count} groups, the one past the limit ${kept === undefined ? 'absent' : 'kept'}`,
            `at most ${held + 1} groups, none past the limit`,
          );
        });
      },
    },
  ]),
);
