/**
 * Area A's HTTP interface on fastify: authentication (Bearer or the token query parameter), the
 * plan's request rate, errors as `{"error": …}`, publish, enqueue (to a URL, or to a URL group: one
 * message per endpoint) and the signing keys; the other route groups (waiter-routes.ts,
 * queue-routes.ts, record-routes.ts, topic-routes.ts) are registered from here. Bodies
 * are read raw: a message's payload is any bytes, and JSON bodies are parsed where a route takes one.
 */
import { timingSafeEqual } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { QueueLimitReached } from './message-store.ts';
import { MessagingError } from './messaging-error.ts';
import type { MessagingFaultName } from './messaging-faults.ts';
import { header, messageFromPublish, type PublishInput, type RequestHeaders } from './publish-request.ts';
import { queueRoutes } from './queue-routes.ts';
import { recordRoutes } from './record-routes.ts';
import type { MessagingRouteOptions, RouteContext } from './route-context.ts';
import { queueNamePattern, rawBody } from './route-input.ts';
import type { StoredMessage } from './stored-message.ts';
import { topicNamePattern, topicRoutes } from './topic-routes.ts';
import type { Topic, TopicEndpoint } from './topic-store.ts';
import { waiterRoutes } from './waiter-routes.ts';

/**
 * The destination after `/v2/publish/` (or the queue) in the raw URL: sent raw by clients, so its own
 * query string arrives as the request's; the token parameter is the service's and is taken out.
 */
function destinationOf(rawUrl: string, prefixLength: number, tokenQuery: string): string {
  let rest = rawUrl.slice(prefixLength);
  const at = rest.indexOf('?');
  if (at !== -1) {
    const params = new URLSearchParams(rest.slice(at + 1));
    params.delete(tokenQuery);
    const query = params.toString();
    rest = rest.slice(0, at) + (query === '' ? '' : `?${query}`);
  }
  if (/^https?%3A/i.test(rest)) {
    try {
      return decodeURIComponent(rest);
    } catch {
      return rest;
    }
  }
  return rest;
}

/** The silence's statuses for refusals whose status the spec does not show. */
const ownStatuses: Readonly<Record<number, number>> = { 400: 422, 401: 403, 409: 422, 413: 422 };

export async function messagingRoutes(app: FastifyInstance, options: MessagingRouteOptions): Promise<void> {
  const { store, keys, account, dispatcher, dialect, fault, silence, rateLimit } = options;
  const p = dialect.headerPrefix;
  const v = fault('v1-prefix') ? '/v1' : '/v2';

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const sendError = (reply: FastifyReply, given: number, text: string) => {
    // Spec "Errors": only notify's statuses are shown; the silence answers every other refusal with
    // another status and text of its own (still an Error object: its shape is the spec's).
    const notify = reply.request.url.startsWith(`${v}/notify/`);
    const status = silence('error-statuses-own') && !notify ? (ownStatuses[given] ?? given) : given;
    // The texts of {error} bodies are not shown anywhere: the silence gives the status's own text.
    const message = silence('error-texts-own') ? (STATUS_CODES[status] ?? 'error') : text;
    if (fault('error-body-plain-text')) return reply.code(status).type('text/plain').send(message);
    return reply.code(status).type('application/json').send({ error: message });
  };

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `no route ${request.method} ${request.url.split('?')[0]}`),
  );
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    if (error instanceof MessagingError) return sendError(reply, error.status, error.message);
    const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    return sendError(reply, status, status === 500 ? 'internal server error' : error.message);
  });

  if (options.latencyMs > 0) {
    app.addHook('onRequest', async () => {
      await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    });
  }

  /** The fault that lets one operation through without credentials, by its route. */
  const openRoutes: Readonly<Record<string, MessagingFaultName>> = {
    [`${v}/publish/*`]: 'publish-no-auth',
    [`${v}/enqueue/:queue/*`]: 'enqueue-no-auth',
    [`${v}/keys/rotate`]: 'rotate-no-auth',
    [`${v}/queues/:name/pause`]: 'pause-no-auth',
    [`${v}/notify/:runId/:eventId`]: 'notify-by-run-no-auth',
  };
  const openByFault = (request: FastifyRequest) => {
    const name = openRoutes[request.routeOptions.url ?? ''];
    return name !== undefined && fault(name);
  };

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const record = await account.record();
    if (!fault('auth-any-token') && !openByFault(request) && !authorized(request, record.account.token)) {
      return sendError(reply, 401, 'unauthorized: a valid Bearer token is required');
    }
    if (!fault('no-rate-limit') && !rateLimit.take(record.account.max_requests_per_second)) {
      return sendError(
        reply,
        429,
        `rate limit exceeded: ${record.account.max_requests_per_second} requests per second`,
      );
    }
  });

  // The token's bytes, made again only when the account's token changes (not once per request).
  let expectedToken = { token: '', bytes: Buffer.alloc(0) };

  function authorized(request: FastifyRequest, token: string): boolean {
    if (expectedToken.token !== token) expectedToken = { token, bytes: Buffer.from(token) };
    const expected = expectedToken.bytes;
    // Spec "Authentication": the HTTP bearer scheme; the fault takes the token after any scheme.
    const scheme = fault('auth-any-scheme') ? /^\S+ (.+)$/ : /^Bearer (.+)$/;
    const bearer = scheme.exec(request.headers.authorization ?? '')?.[1];
    const at = request.url.indexOf('?');
    const query =
      fault('query-token-refused') || at === -1
        ? undefined
        : (new URLSearchParams(request.url.split('?')[1]).get(dialect.messagingTokenQuery) ?? undefined);
    if (fault('query-token-any-value') && query !== undefined && query !== '') return true;
    return [bearer, query].some((given) => {
      if (given === undefined) return false;
      const buffer = Buffer.from(given);
      return buffer.length === expected.length && timingSafeEqual(buffer, expected);
    });
  }

  // Publish and enqueue

  app.post(`${v}/publish/*`, async (request, reply) => {
    const destination = destinationOf(request.raw.url ?? '', `${v}/publish/`.length, dialect.messagingTokenQuery);
    return accept(request, reply, destination, undefined);
  });

  app.post<{ Params: { queue: string } }>(`${v}/enqueue/:queue/*`, async (request, reply) => {
    const { queue } = request.params;
    if (!queueNamePattern.test(queue)) throw new MessagingError(400, `invalid queue name ${JSON.stringify(queue)}`);
    const prefix = `${v}/enqueue/${encodeURIComponent(queue)}/`;
    const raw = request.raw.url ?? '';
    const destination = destinationOf(
      raw,
      raw.startsWith(prefix) ? prefix.length : `${v}/enqueue/${queue}/`.length,
      dialect.messagingTokenQuery,
    );
    return accept(request, reply, destination, queue);
  });

  async function accept(request: FastifyRequest, reply: FastifyReply, destination: string, queue: string | undefined) {
    if (queue !== undefined && fault('paused-queue-refuses') && (await store.queue(queue))?.paused === true) {
      throw new MessagingError(409, `queue ${JSON.stringify(queue)} is paused`);
    }
    const group = await groupOf(destination);
    const input = (destination: string, topic?: PublishInput['topic']): PublishInput => ({
      destination,
      headers: request.headers as RequestHeaders,
      body: rawBody(request.body),
      callerIP: request.ip,
      ...(queue !== undefined && { queue }),
      ...(topic !== undefined && { topic }),
    });
    const publishContext = { dialect, account: (await account.record()).account, fault, silence, now: Date.now() };
    // Spec "Limits": an enqueue creates its queue on first use, within the plan's max_queues (the
    // store counts and creates in one script); the fault lifts it. A publish names no queue.
    const maxQueues =
      queue === undefined || fault('queue-limit-unchecked') ? undefined : publishContext.account.max_queues;
    const storing = storeWithin(maxQueues);
    // The silence ignores the deduplication header, as an implementation without it would.
    const dedupId = silence('deduplication-ignored')
      ? undefined
      : header(request.headers as RequestHeaders, `${p}Deduplication-Id`);
    if (group !== undefined) {
      const answers = await fanOut(
        group,
        (endpoint) =>
          messageFromPublish(
            input(endpoint.url, {
              name: group.name,
              ...(endpoint.name !== undefined && { endpointName: endpoint.name }),
            }),
            publishContext,
          ),
        dedupId,
        storing,
      );
      dispatcher.poke(queue !== undefined);
      return reply.code(200).send(answers);
    }
    const message = messageFromPublish(input(destination), publishContext);
    if (!options.mainRegion && fault('region-secondary-drops')) return reply.code(200).send({ messageId: message.id });
    // A message due now starts from memory when the plan has room (stored into inflight, not claimed back).
    // Held in memory by the write-behind fault, a message is not the dispatcher's until it is written.
    const direct =
      options.writeBehind === undefined &&
      queue === undefined &&
      message.notBefore <= Date.now() &&
      dispatcher.reserve();
    let accepted: Awaited<ReturnType<typeof store.accept>>;
    try {
      accepted = await storing.accept(message, dedupId, direct ? Date.now() : undefined);
    } catch (error) {
      if (direct) dispatcher.takeReserved(undefined);
      throw error;
    }
    if (direct) dispatcher.takeReserved(accepted.deduplicated ? undefined : message);
    else dispatcher.poke(queue !== undefined);
    // Publish answers are not shown (Endpoints rule 4): the silences answer 202, or another shape; an
    // enqueue (the real service's, not the spec's) 201.
    const enqueued = queue !== undefined && silence('queue-operations-own-statuses');
    reply.code(silence('publish-answers-202') ? 202 : enqueued ? 201 : 200);
    if (silence('publish-answer-own-shape')) {
      return reply.send({ id: accepted.id, url: message.url, createdAt: message.createdAt });
    }
    return reply.send({ messageId: accepted.id, ...(accepted.deduplicated && { deduplicated: true }) });
  }

  /**
   * The store's accept within a plan's max_queues (none: no limit): a message whose queue would be a
   * new one past it is a 400 naming the limit, and nothing of it is stored.
   */
  function storeWithin(maxQueues: number | undefined): Pick<typeof store, 'accept'> {
    if (options.writeBehind !== undefined) return options.writeBehind;
    return {
      accept: async (message, dedupId, inflightAt) => {
        try {
          return await store.accept(message, dedupId, inflightAt, maxQueues);
        } catch (error) {
          if (error instanceof QueueLimitReached) throw new MessagingError(400, error.message);
          throw error;
        }
      },
    };
  }

  /**
   * The URL group a destination names: one that is not a URL but a group's name. An unknown name is a
   * 404, as on the real service; anything else is left to the destination's own checks (a 400).
   */
  async function groupOf(destination: string): Promise<Topic | undefined> {
    if (!topicNamePattern.test(destination)) return undefined;
    const group = await options.topics.topic(destination);
    if (group === undefined) throw new MessagingError(404, `url group ${JSON.stringify(destination)} not found`);
    if (group.endpoints.length === 0) {
      throw new MessagingError(400, `url group ${JSON.stringify(destination)} has no endpoints`);
    }
    return group;
  }

  /**
   * One message per endpoint of the group, each deduplicated on its own (the id and the endpoint's
   * URL); the answer is one `{messageId, url}` per endpoint, as the real service's.
   */
  async function fanOut(
    group: Topic,
    messageFor: (endpoint: TopicEndpoint) => StoredMessage,
    dedupId: string | undefined,
    storing: Pick<typeof store, 'accept'>,
  ): Promise<{ messageId: string; url: string; deduplicated?: true }[]> {
    // Which endpoints a group's message reaches is not shown: the silence reaches the first one only.
    const endpoints = silence('url-group-first-endpoint-only') ? group.endpoints.slice(0, 1) : group.endpoints;
    const messages = endpoints.map(messageFor);
    return Promise.all(
      messages.map(async (message) => {
        const accepted = await storing.accept(
          message,
          dedupId === undefined ? undefined : `${dedupId}\n${message.url}`,
        );
        return {
          messageId: accepted.id,
          url: message.url,
          ...(accepted.deduplicated && { deduplicated: true as const }),
        };
      }),
    );
  }

  // Signing keys

  app.get(`${v}/keys`, async () => keys.keys);
  app.post(`${v}/keys/rotate`, async (_request, reply) => {
    const rotated = await keys.rotate(!fault('rotate-keeps-current'));
    // The rotate status is not shown (Endpoints rule 3): the silence answers 201.
    if (silence('rotate-answers-201')) reply.code(201);
    return fault('rotate-omits-next') ? { current: rotated.current } : rotated;
  });

  const context: RouteContext = { options, v, p };
  waiterRoutes(app, context);
  queueRoutes(app, context);
  recordRoutes(app, context);
  topicRoutes(app, context);
}
