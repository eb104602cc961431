/**
 * Spec "Authentication" and "Errors", area A: Bearer token, the token query parameter, 401 without
 * a valid token, 429 beyond the plan's request rate, and error bodies as the Error object.
 */
import { means } from '../../src/engines/conformance/check-failure.ts';
import { defineCases } from '../../src/engines/conformance/conformance-case.ts';
import type { HttpResponse } from '../../src/http/http-client.ts';
import { checkErrorObject, checkStatus, checkThat, describe } from '../support/messaging-checks.ts';
import { createMessagingClient, type MessagingClient } from '../support/messaging-client.ts';
import { planRate, uniqueId, withAccountLimits } from '../support/messaging-steps.ts';

/** A notify nobody waits for: harmless on any target, authenticated as asked. */
function notify(
  client: MessagingClient,
  eventId: string,
  auth: 'bearer' | 'query' | 'none' | 'wrong',
): Promise<HttpResponse> {
  return client.call(`/v2/notify/${eventId}`, { auth, body: 'svc-harness' });
}

export const cases = defineCases([
  {
    id: 'messaging.auth.bearer',
    rules: ['A.auth.bearer'],
    title: 'Authorization: Bearer <API_TOKEN> authenticates; none or a wrong one is refused with 401',
    expect: 'A notify with the token answers 201; without a token or with a wrong one, 401.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const event = uniqueId(ctx, 'auth');
      await means(async () =>
        checkStatus('A.notify.status-201', await notify(client, event, 'bearer'), 201, 'with the token'),
      );
      checkStatus('A.auth.bearer', await notify(client, event, 'none'), 401, 'without a token');
      checkStatus('A.auth.bearer', await notify(client, event, 'wrong'), 401, 'with a wrong token');
    },
  },
  {
    id: 'messaging.auth.query-token',
    rules: ['A.auth.query-token'],
    title: 'The token in the svc_token query parameter authenticates',
    expect: 'A notify with the token only in the query parameter answers 201.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const event = uniqueId(ctx, 'query');
      await means(async () =>
        checkStatus('A.notify.status-201', await notify(client, event, 'bearer'), 201, 'with the Bearer token'),
      );
      checkStatus(
        'A.auth.query-token',
        await notify(client, event, 'query'),
        201,
        `with ${ctx.dialect.messagingTokenQuery}`,
      );
    },
  },
  {
    id: 'messaging.errors.error-object',
    rules: ['A.errors.error-object'],
    title: 'Error answers carry the Error object',
    expect: 'The 401 of a notify without a token and the 400 of an invalid event id are {"error": string}.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const unauthorized = await notify(client, uniqueId(ctx, 'err'), 'none');
      await means(async () => checkStatus('A.auth.bearer', unauthorized, 401, 'without a token'));
      checkErrorObject('A.errors.error-object', unauthorized, 'the 401');
      const invalid = await client.call(`/v2/notify/${'x'.repeat(300)}%20%01`, { body: 'x' });
      if (invalid.status === 400) checkErrorObject('A.errors.error-object', invalid, 'the 400');
      else ctx.observe(`an invalid event id answered ${describe(invalid)}`);
    },
  },
  {
    id: 'messaging.notify.rate-limit-429',
    rules: ['A.notify.rate-limit-429'],
    title: 'Notify beyond the plan’s requests per second answers 429',
    expect:
      'With the admin hook, the plan’s rate set to 5 per second and 30 notifies at once; without it, a plan of at most 50 per second (read from the management area) and twice that many at once: at least one 429 with an Error object.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const event = uniqueId(ctx, 'rate');
      const burst = async (count: number) => {
        const answers = await Promise.all(Array.from({ length: count }, () => notify(client, event, 'bearer')));
        const limited = answers.filter((res) => res.status === 429);
        const statuses = [...new Set(answers.map((res) => res.status))].join(', ');
        checkThat('A.notify.rate-limit-429', limited.length > 0, `statuses ${statuses}`, 'at least one 429');
        checkErrorObject('A.notify.rate-limit-429', limited[0] as HttpResponse, 'the 429');
      };
      if (ctx.target.admin !== undefined) {
        await withAccountLimits(ctx, { max_requests_per_second: 5 }, () => burst(30));
        return;
      }
      const rate = await planRate(ctx);
      if (rate === undefined) {
        return ctx.skip('neither an admin hook to lower the plan’s rate nor a management area to read it.');
      }
      if (rate > 50) {
        return ctx.skip(`the plan allows ${rate} requests per second: reaching that is not safe on a shared target.`);
      }
      await burst(rate * 2 + 10);
    },
  },
]);
