/**
 * Spec "Authentication" and "Errors", area A: Bearer token, the token query parameter, 401 without
 * a valid token on notify, 429 beyond the plan's request rate, and error bodies as the Error object.
 * Every operation the spec lists (publish, enqueue, rotate, pause, notify, notify by run) is sent with
 * each kind of credentials a target must refuse; the refusal is checked for what the spec says (not
 * 2xx, an Error object; 401 on notify, the only status it shows) and for having had no effect.
 */
import {
  Blocked,
  type CaseContext,
  CheckFailure,
  defineCases,
  type HttpResponse,
  means,
} from '../../src/suite-kit/suite-api.ts';
import { allOf, cover, type DimensionValue } from '../rules/dimensions.ts';
import { sleep } from '../support/bounded.ts';
import { messagingAdapter } from '../support/messaging-adapter.ts';
import { checkErrorObject, checkStatus, checkThat, describe, isRecord, jsonOf } from '../support/messaging-checks.ts';
import {
  createMessagingClient,
  type MessagingAuth,
  type MessagingClient,
  type RefusedCredential,
  refusedCredentials,
} from '../support/messaging-client.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { planRate, publishTo, uniqueId, withAccountLimits } from '../support/messaging-steps.ts';

/** A notify nobody waits for: harmless on any target, authenticated as asked. */
function notify(client: MessagingClient, eventId: string, auth: MessagingAuth): Promise<HttpResponse> {
  return client.call(`/v2/notify/${eventId}`, { auth, body: 'svc-harness' });
}

const credentials = Object.keys(refusedCredentials) as RefusedCredential[];

/** The coverage matrix's name of each refused credential (a new one must be named here). */
const credentialCells: Readonly<Record<RefusedCredential, DimensionValue<'messaging-credentials'>>> = {
  none: 'none',
  wrong: 'wrong-bearer',
  'bearer-alone': 'bearer-alone',
  'other-scheme': 'other-scheme',
  'wrong-query': 'wrong-query',
};

/** The coverage matrix's cell of an operation, by its name (`notify by run` is `notify-by-run`). */
const operationCells = (name: string) =>
  allOf('messaging-operation').filter((value) => value === name.replaceAll(' ', '-'));

/** One operation tried with refused credentials: how to send it, and how to see it took no effect. */
interface Arranged {
  send(auth: RefusedCredential): Promise<HttpResponse>;
  /** Fails A.auth.required when one of the refused requests took effect after all. */
  noEffect(): Promise<void>;
}

interface Operation {
  readonly name: string;
  readonly path: string;
  /** The rule a refusal's status answers to: 401 on notify (shown), not 2xx elsewhere (not shown). */
  readonly statusRule: 'A.auth.bearer' | 'A.auth.required';
  readonly needsAdapter?: boolean;
  readonly expect: string;
  /** Shows the positive with the token where it can, and arranges what the refusals must not change. */
  arrange(ctx: CaseContext, client: MessagingClient): Promise<Arranged>;
}

/** Fails A.auth.required when any refused request reached the inbox role named after its credential. */
function nothingArrived(inbox: Awaited<ReturnType<typeof openInbox>>, what: string): () => Promise<void> {
  return async () => {
    await inbox.settle();
    for (const auth of credentials) {
      const got = inbox.requests(auth).length;
      checkThat(
        'A.auth.required',
        got === 0,
        `${what} with ${refusedCredentials[auth]} was delivered`,
        'nothing delivered',
      );
    }
  };
}

const operations: readonly Operation[] = [
  {
    name: 'publish',
    path: '/v2/publish/{destination_url}',
    statusRule: 'A.auth.required',
    expect:
      'A publish with the token is delivered; each refused publish answers a non-2xx Error object and is never delivered.',
    async arrange(ctx, client) {
      const inbox = await openInbox(ctx, 'auth.publish');
      await publishTo(client, inbox.url('positive'));
      await means(() => inbox.arrive('A.publish.delivers', 'positive'));
      return {
        send: (auth) => client.call(`/v2/publish/${inbox.url(auth)}`, { auth, body: 'must not be delivered' }),
        noEffect: nothingArrived(inbox, 'a publish'),
      };
    },
  },
  {
    name: 'enqueue',
    path: '/v2/enqueue/{queue}/{destination_url}',
    statusRule: 'A.auth.required',
    needsAdapter: true,
    expect:
      'An enqueue with the token is delivered; each refused enqueue answers a non-2xx Error object and is never delivered (its queue deleted afterwards).',
    async arrange(ctx, client) {
      // The enqueue path is the real service's: a target with another adapter has its own way in.
      if (ctx.target.messaging?.adapter !== 'real-world') {
        ctx.skip(
          'the enqueue path is not in the spec: sent unauthenticated only to targets with the real service’s endpoints (adapter real-world).',
        );
      }
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'auth.enqueue');
      const queue = uniqueId(ctx, 'queue').slice(-60);
      ctx.onCleanup(async () => {
        await adapter.deleteQueue?.(queue);
      });
      const path = (auth: string) => `/v2/enqueue/${queue}/${inbox.url(auth)}`;
      const positive = await client.call(path('positive'), { body: 'queued' });
      if (positive.status < 200 || positive.status > 299) {
        throw new Blocked('A.callback.on-enqueue', `an enqueue with the token was refused: ${describe(positive)}`);
      }
      await means(() => inbox.arrive('A.publish.delivers', 'positive'));
      return {
        send: (auth) => client.call(path(auth), { auth, body: 'must not be delivered' }),
        noEffect: nothingArrived(inbox, 'an enqueue'),
      };
    },
  },
  {
    name: 'rotate',
    path: '/v2/keys/rotate',
    statusRule: 'A.auth.required',
    expect:
      'Each refused rotation answers a non-2xx Error object and leaves the keys as they were (read back, or by the next rotation with the token).',
    async arrange(ctx, client) {
      // The live keys, read through the adapter (the target file's keys are fixed: they show no change).
      const live =
        ctx.target.messaging?.adapter === undefined
          ? undefined
          : async () => (await messagingAdapter(ctx)).signingKeys();
      const before = await live?.();
      // Without a way to read the keys, a rotation with the token gives them (and shows the positive).
      const rotated = before === undefined ? await rotateWithToken(client, 'the rotation before') : undefined;
      return {
        send: (auth) => client.call('/v2/keys/rotate', { auth }),
        async noEffect() {
          if (before !== undefined) {
            const after = await live?.();
            const same = after?.current === before.current && after?.next === before.next;
            checkThat('A.auth.required', same, 'the signing keys changed', 'the keys unchanged by refused rotations');
            return;
          }
          const after = await rotateWithToken(client, 'the rotation after');
          checkThat(
            'A.auth.required',
            after.current === rotated?.next,
            'current is not the next key of the last rotation with the token',
            'the keys unchanged by refused rotations in between',
          );
        },
      };
    },
  },
  {
    name: 'pause',
    path: '/v2/queues/{queueName}/pause',
    statusRule: 'A.auth.required',
    needsAdapter: true,
    expect:
      'A pause with the token answers 200; each refused pause answers a non-2xx Error object and leaves its queue active: a message enqueued afterwards is delivered (queues deleted afterwards).',
    async arrange(ctx, client) {
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'auth.pause');
      const [queue, other] = [uniqueId(ctx, 'queue').slice(-60), uniqueId(ctx, 'paused').slice(-60)];
      ctx.onCleanup(async () => {
        await adapter.deleteQueue?.(queue);
        await adapter.deleteQueue?.(other);
      });
      await adapter.createQueue(queue, { parallelism: 1 });
      await adapter.createQueue(other, { parallelism: 1 });
      await means(async () =>
        checkStatus('A.queue.pause-200', await client.call(`/v2/queues/${other}/pause`), 200, 'a pause with the token'),
      );
      return {
        send: (auth) => client.call(`/v2/queues/${queue}/pause`, { auth }),
        async noEffect() {
          await means(() => adapter.enqueue(queue, inbox.url('after'), {}, 'after the refused pauses'));
          await inbox.arrive(
            'A.auth.required',
            'after',
            1,
            'a message enqueued after the refused pauses (the queue paused?)',
          );
        },
      };
    },
  },
  {
    name: 'notify',
    path: '/v2/notify/{eventId}',
    statusRule: 'A.auth.bearer',
    expect:
      'A notify with the token answers 201; each refused notify answers 401 with an Error object, and (with an adapter) its waiter gets nothing.',
    async arrange(ctx, client) {
      const event = uniqueId(ctx, 'auth');
      await means(async () =>
        checkStatus(
          'A.notify.status-201',
          await notify(client, uniqueId(ctx, 'positive'), 'bearer'),
          201,
          'with the token',
        ),
      );
      if (ctx.target.messaging?.adapter === undefined) {
        return { send: (auth) => notify(client, event, auth), noEffect: async () => {} };
      }
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'auth.notify');
      await adapter.wait({ eventId: event, runId: uniqueId(ctx, 'run'), url: inbox.url('waiter'), timeout: '1h' });
      return {
        send: (auth) => notify(client, event, auth),
        async noEffect() {
          await inbox.settle();
          checkThat(
            'A.auth.required',
            inbox.requests('waiter').length === 0,
            'a refused notify reached the waiter',
            'nothing delivered',
          );
        },
      };
    },
  },
  {
    name: 'notify by run',
    path: '/v2/notify/{workflowRunId}/{eventId}',
    statusRule: 'A.auth.required',
    expect:
      'Each refused notify by run answers a non-2xx Error object, and (with an adapter) the run that waits afterwards gets nothing.',
    async arrange(ctx, client) {
      const [run, event] = [uniqueId(ctx, 'run'), uniqueId(ctx, 'event')];
      const positive = await client.call(`/v2/notify/${uniqueId(ctx, 'run')}/${event}`, { body: 'with the token' });
      ctx.observe(`notify by run with the token: ${describe(positive)}`);
      const send = (auth: RefusedCredential) => client.call(`/v2/notify/${run}/${event}`, { auth, body: 'refused' });
      if (ctx.target.messaging?.adapter === undefined) return { send, noEffect: async () => {} };
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'auth.notify-by-run');
      return {
        send,
        async noEffect() {
          await adapter.wait({ eventId: event, runId: run, url: inbox.url('step'), timeout: '1h' });
          await inbox.settle();
          checkThat(
            'A.auth.required',
            inbox.requests('step').length === 0,
            'a refused notify by run reached the run',
            'nothing delivered',
          );
        },
      };
    },
  },
];

async function rotateWithToken(client: MessagingClient, label: string): Promise<{ current: string; next: string }> {
  return means(async () => {
    const body = jsonOf('A.keys.rotate-shape', await client.call('/v2/keys/rotate'), label);
    if (!isRecord(body) || typeof body.current !== 'string' || typeof body.next !== 'string') {
      throw new CheckFailure('A.keys.rotate-shape', 'no current and next strings', '{"current", "next"}', label);
    }
    return { current: body.current, next: body.next };
  });
}

/** One case per operation: every refused credential, its status, its Error body, and no effect. */
const refusalCases = operations.map((operation) => ({
  id: `messaging.auth.refused.${operation.name.replaceAll(' ', '-')}`,
  // A refused rotation is checked by rotating with a valid token before and after: keys every delivery's signature depends on.
  concurrent: operation.name !== 'rotate',
  rules: [operation.statusRule, 'A.auth.required', 'A.errors.error-object', 'A.errors.other-statuses'],
  covers: [
    cover('A.errors.error-object', { 'messaging-operation': operationCells(operation.name) }),
    ...(['A.auth.required', operation.statusRule] as const).map((rule) =>
      cover(rule, {
        'messaging-operation': operationCells(operation.name),
        'messaging-credentials': credentials.map((auth) => credentialCells[auth]),
      }),
    ),
  ],
  ...(operation.needsAdapter === true && { needs: ['messaging.adapter' as const] }),
  title: `${operation.name} (POST ${operation.path}) refuses missing, wrong and malformed credentials, with no effect`,
  expect: operation.expect,
  async run(ctx: CaseContext) {
    const client = createMessagingClient(ctx);
    const arranged = await operation.arrange(ctx, client);
    const statuses: string[] = [];
    for (const auth of credentials) {
      const res = await arranged.send(auth);
      const context = `${operation.name} with ${refusedCredentials[auth]}`;
      statuses.push(`${auth} ${res.status}`);
      if (operation.statusRule === 'A.auth.bearer') checkStatus('A.auth.bearer', res, 401, context);
      else
        checkThat(
          'A.auth.required',
          res.status < 200 || res.status > 299,
          describe(res),
          'a refusal (not 2xx)',
          context,
        );
      checkErrorObject('A.errors.error-object', res, context);
    }
    ctx.observe(`${operation.name} refusals: ${statuses.join(', ')}`);
    await arranged.noEffect();
  },
}));

const unsignedCases = defineCases([
  ...refusalCases,
  {
    id: 'messaging.auth.query-token',
    rules: ['A.auth.query-token'],
    covers: [cover('A.auth.query-token', { 'messaging-operation': ['notify'] })],
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
    id: 'messaging.auth.query-token.operations',
    rules: ['A.auth.query-token'],
    needs: ['messaging.adapter'],
    covers: [cover('A.auth.query-token', { 'messaging-operation': ['publish', 'enqueue', 'pause', 'notify-by-run'] })],
    title: 'The svc_token query parameter authenticates publish, enqueue, pause and notify by run',
    expect:
      'Each sent with the Bearer token first (the means), then with the token only in the query parameter: a publish and an enqueue (adapter real-world) are accepted and delivered, notify by run reaches the run that then waits, a pause answers 2xx (queues deleted afterwards).',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'auth.query-token');
      const [queue, spare] = [uniqueId(ctx, 'queue').slice(-60), uniqueId(ctx, 'spare').slice(-60)];
      ctx.onCleanup(async () => {
        await adapter.deleteQueue?.(queue);
        await adapter.deleteQueue?.(spare);
      });
      await means(() => adapter.createQueue(queue, { parallelism: 1 }));
      await means(() => adapter.createQueue(spare, { parallelism: 1 }));
      // The enqueue path is the real service's: other adapters have their own way in (auth.cases' refusals too).
      const enqueues = ctx.target.messaging?.adapter === 'real-world';
      const events = { bearer: uniqueId(ctx, 'bearer'), query: uniqueId(ctx, 'query') };
      const runs = { bearer: uniqueId(ctx, 'run'), query: uniqueId(ctx, 'run') };
      for (const auth of ['bearer', 'query'] as const) {
        const accepted = async (what: string, path: string) => {
          const res = await client.call(path, { auth, body: `${what} ${auth}` });
          const ok = () =>
            checkThat('A.auth.query-token', res.status >= 200 && res.status <= 299, describe(res), '2xx', what);
          await (auth === 'bearer' ? means(async () => ok()) : ok());
        };
        await accepted('publish', `/v2/publish/${inbox.url(`publish-${auth}`)}`);
        if (enqueues) await accepted('enqueue', `/v2/enqueue/${queue}/${inbox.url(`enqueue-${auth}`)}`);
        const byRun = await client.call(`/v2/notify/${runs[auth]}/${events[auth]}`, { auth, body: 'by run' });
        ctx.observe(`notify by run with ${auth}: ${describe(byRun)}`);
        await adapter.wait({ eventId: events[auth], runId: runs[auth], url: inbox.url(`run-${auth}`), timeout: '1h' });
      }
      const arrivals = (auth: 'bearer' | 'query') => [
        { rule: 'A.auth.query-token', role: `publish-${auth}`, what: `the message published with ${auth}` },
        ...(enqueues ? [{ rule: 'A.auth.query-token', role: `enqueue-${auth}`, what: `enqueued with ${auth}` }] : []),
        { rule: 'A.auth.query-token', role: `run-${auth}`, what: `the event notified by run with ${auth}` },
      ];
      await means(() => inbox.arriveAll(arrivals('bearer')));
      await inbox.arriveAll(arrivals('query'));
      // Pausing last: a paused queue would hold the enqueued message.
      await means(async () =>
        checkStatus('A.queue.pause-200', await client.call(`/v2/queues/${spare}/pause`), 200, 'with the token'),
      );
      const paused = await client.call(`/v2/queues/${queue}/pause`, { auth: 'query' });
      checkThat('A.auth.query-token', paused.status >= 200 && paused.status <= 299, describe(paused), '2xx', 'a pause');
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
    // Not concurrent: the burst spends the plan's rate, which every case shares; it runs alone, and
    // gives the budget back (`budgetBack`) before the next case needs a publish.
    rules: ['A.notify.rate-limit-429', 'A.errors.error-object'],
    title: 'Notify beyond the plan’s requests per second answers 429',
    expect:
      'With the admin hook, the plan’s rate set to 5 per second and 30 notifies at once; without it, a plan of at most 50 per second (read from the management area) and twice that many at once: at least one 429 with an Error object; then the case waits until a notify is answered without 429 again.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const event = uniqueId(ctx, 'rate');
      const burst = async (count: number) => {
        try {
          const answers = await Promise.all(Array.from({ length: count }, () => notify(client, event, 'bearer')));
          const limited = answers.filter((res) => res.status === 429);
          const statuses = [...new Set(answers.map((res) => res.status))].join(', ');
          checkThat('A.notify.rate-limit-429', limited.length > 0, `statuses ${statuses}`, 'at least one 429');
          checkErrorObject('A.errors.error-object', limited[0] as HttpResponse, 'the 429');
        } finally {
          await budgetBack(ctx, client, event);
        }
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

/** The longest the rate-limit case waits for the plan's rate window to pass after its burst. */
const budgetWaitMs = 10_000;

/**
 * Gives the plan's rate back after a burst: waits a window (a second: "requests per second"), then
 * until one notify is answered without 429 (a target may count a longer or sliding window), at most
 * `budgetWaitMs`; the cases after it then find the budget whole. Running out of that wait is only said.
 */
async function budgetBack(ctx: CaseContext, client: MessagingClient, event: string): Promise<void> {
  const until = Date.now() + budgetWaitMs;
  for (;;) {
    await sleep(1100);
    const res = await notify(client, event, 'bearer');
    if (res.status !== 429) return;
    if (Date.now() >= until) {
      ctx.observe(`the plan's rate still answered 429 ${budgetWaitMs / 1000} s after the burst`);
      return;
    }
  }
}

/** Every request these cases receive is judged by its signature too (A.signature.verifiable). */
export const cases = signedCases(unsignedCases);
