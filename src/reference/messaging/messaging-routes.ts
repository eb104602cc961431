/**
 * Area A's HTTP interface on fastify: authentication (Bearer or the token query parameter), the
 * plan's request rate, and every route of the spec and of the real service (publish, enqueue, notify,
 * wait and waiters, keys, queues, messages, dead letters). Bodies are read raw: a message's payload
 * is any bytes, and JSON bodies are parsed where a route takes one. Errors are `{"error": …}`.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dialect } from '../../target/dialects.ts';
import type { AccountStore } from '../account/messaging-account.ts';
import type { Dispatcher } from './dispatcher.ts';
import { parseDuration } from './durations.ts';
import type { MessageStore } from './message-store.ts';
import { MessagingError } from './messaging-error.ts';
import type { MessagingFaultCheck } from './messaging-faults.ts';
import { header, httpUrl, messageFromPublish, type RequestHeaders } from './publish-request.ts';
import type { RateLimit } from './rate-limit.ts';
import type { SigningKeyStore } from './signing-keys.ts';
import type { StoredWaiter, WaiterStore } from './waiters.ts';

export interface MessagingRouteOptions {
  readonly store: MessageStore;
  readonly waiters: WaiterStore;
  readonly keys: SigningKeyStore;
  readonly account: AccountStore;
  readonly dispatcher: Dispatcher;
  readonly dialect: Dialect;
  readonly fault: MessagingFaultCheck;
  /** Shared by every region's server: the plan's rate is the account's. */
  readonly rateLimit: RateLimit;
  /** Delay of every answer of this region's server (`--region-latency`). */
  readonly latencyMs: number;
}

const queueNamePattern = /^[A-Za-z0-9._-]{1,100}$/;
const defaultWaitTimeout = '7d';

/** An event id the service refuses with 400: empty, longer than 256 bytes, or with spaces or control characters. */
export function invalidEventId(id: string): boolean {
  return id.length === 0 || Buffer.byteLength(id) > 256 || /[\s\p{Cc}]/u.test(id);
}

function jsonBody(body: unknown): Record<string, unknown> {
  const raw = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MessagingError(400, 'the body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MessagingError(400, 'the body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

function rawBody(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/** Header lists as the Waiter type has them: name → array of strings. */
function headerLists(value: unknown, what: string): Record<string, string[]> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new MessagingError(400, `${what} must be an object`);
  const out: Record<string, string[]> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string') out[name] = [item];
    else if (Array.isArray(item) && item.every((v) => typeof v === 'string')) out[name] = item as string[];
    else throw new MessagingError(400, `${what}.${name} must be a string or an array of strings`);
  }
  return out;
}

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

export async function messagingRoutes(app: FastifyInstance, options: MessagingRouteOptions): Promise<void> {
  const { store, waiters, keys, account, dispatcher, dialect, fault, rateLimit } = options;
  const p = dialect.headerPrefix;
  const v = fault('v1-prefix') ? '/v1' : '/v2';

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const sendError = (reply: FastifyReply, status: number, message: string) => {
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

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const record = await account.record();
    if (!fault('auth-any-token') && !authorized(request, record.account.token)) {
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

  function authorized(request: FastifyRequest, token: string): boolean {
    const expected = Buffer.from(token);
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const query = fault('query-token-refused')
      ? undefined
      : (new URLSearchParams(request.url.split('?')[1] ?? '').get(dialect.messagingTokenQuery) ?? undefined);
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
    const message = messageFromPublish(
      {
        destination,
        headers: request.headers as RequestHeaders,
        body: rawBody(request.body),
        callerIP: request.ip,
        ...(queue !== undefined && { queue }),
      },
      { dialect, account: (await account.record()).account, fault, now: Date.now() },
    );
    const dedupId = header(request.headers as RequestHeaders, `${p}Deduplication-Id`);
    const accepted = await store.accept(message, dedupId);
    dispatcher.poke(queue !== undefined);
    return reply.code(200).send({ messageId: accepted.id, ...(accepted.deduplicated && { deduplicated: true }) });
  }

  // Notify and waiters

  const notifyFaults = () => ({
    firstOnly: fault('notify-first-waiter-only'),
    keepLost: fault('notify-event-kept'),
    emptyBody: fault('notify-event-not-delivered'),
  });

  function waiterView(waiter: StoredWaiter): Record<string, unknown> {
    return {
      url: waiter.url,
      headers: waiter.headers,
      deadline: Math.floor(waiter.deadlineMs / 1000),
      timeoutBody: waiter.timeoutBody,
      ...(!fault('waiter-omits-timeout-url') && { timeoutUrl: waiter.timeoutUrl }),
      timeoutHeaders: waiter.timeoutHeaders,
    };
  }

  function notifyItems(notified: readonly { waiter: StoredWaiter; messageId: string }[]) {
    return notified.map(({ waiter, messageId }) => ({
      waiter: waiterView(waiter),
      messageId,
      deduplicated: fault('notify-deduplicated-string') ? 'false' : false,
      workflowRunId: waiter.workflowRunId,
      workflowCreatedAt: waiter.workflowCreatedAt,
    }));
  }

  const checkEventId = (eventId: string) => {
    if (invalidEventId(eventId) && !fault('notify-invalid-id-accepted')) {
      throw new MessagingError(400, 'invalid event id: 1 to 256 bytes without spaces or control characters');
    }
  };

  app.post<{ Params: { eventId: string } }>(`${v}/notify/:eventId`, async (request, reply) => {
    checkEventId(request.params.eventId);
    const body = rawBody(request.body).toString('base64');
    const notified = await waiters.notify(request.params.eventId, body, notifyFaults());
    if (notified.length > 0) dispatcher.poke();
    return reply.code(fault('notify-status-200') ? 200 : 201).send(notifyItems(notified));
  });

  app.post<{ Params: { runId: string; eventId: string } }>(`${v}/notify/:runId/:eventId`, async (request, reply) => {
    checkEventId(request.params.eventId);
    const body = rawBody(request.body).toString('base64');
    const keep = !fault('notify-by-run-drops-early');
    const { runId, eventId } = request.params;
    const notified = await waiters.notifyRun(runId, eventId, body, keep, fault('notify-event-not-delivered'));
    if (notified.length > 0) dispatcher.poke();
    return reply.code(fault('notify-status-200') ? 200 : 201).send(notifyItems(notified));
  });

  app.post<{ Params: { eventId: string } }>(`${v}/wait/:eventId`, async (request, reply) => {
    checkEventId(request.params.eventId);
    const body = jsonBody(request.body);
    const headers = request.headers as RequestHeaders;
    if (typeof body.url !== 'string') throw new MessagingError(400, 'url is required');
    const url = httpUrl(body.url, 'url');
    const timeoutText = typeof body.timeout === 'string' ? body.timeout : defaultWaitTimeout;
    const timeoutMs = parseDuration(timeoutText);
    if (timeoutMs === undefined) throw new MessagingError(400, `invalid timeout ${JSON.stringify(body.timeout)}`);
    const timeoutUrl =
      typeof body.timeoutUrl === 'string' && body.timeoutUrl !== '' ? httpUrl(body.timeoutUrl, 'timeoutUrl') : '';
    const timeoutBody = typeof body.timeoutBody === 'string' ? body.timeoutBody : '';
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(timeoutBody)) throw new MessagingError(400, 'timeoutBody must be base64');
    const runId =
      header(headers, `${p}Workflow-Runid`) ??
      (typeof body.workflowRunId === 'string' ? body.workflowRunId : `wfr_${randomBytes(12).toString('base64url')}`);
    const workflowUrl =
      header(headers, `${p}Workflow-Url`) ?? (typeof body.workflowUrl === 'string' ? body.workflowUrl : url);
    const createdAt = Number(header(headers, `${p}Workflow-Createdat`) ?? body.workflowCreatedAt ?? Date.now());
    const plain = fault('workflow-headers-plain');
    const now = Date.now();
    const waiter: StoredWaiter = {
      url,
      headers: {
        ...headerLists(body.headers, 'headers'),
        [`${p}Workflow-Runid`]: plain ? runId : [runId],
        [`${p}Workflow-Url`]: plain ? workflowUrl : [workflowUrl],
      },
      deadlineMs: now + timeoutMs,
      timeoutBody,
      timeoutUrl,
      timeoutHeaders: headerLists(body.timeoutHeaders, 'timeoutHeaders'),
      workflowRunId: runId,
      workflowCreatedAt: Number.isFinite(createdAt) ? Math.round(createdAt) : now,
      createdAt: now,
    };
    const waited = await waiters.wait(request.params.eventId, waiter);
    if (waited.notified) dispatcher.poke();
    return reply.code(201).send({
      waiter: waiterView(waiter),
      workflowRunId: runId,
      notified: waited.notified,
      ...(waited.notified && { messageId: waited.messageId }),
    });
  });

  app.get<{ Params: { eventId: string } }>(`${v}/waiters/:eventId`, async (request) => {
    checkEventId(request.params.eventId);
    return (await waiters.list(request.params.eventId)).map(waiterView);
  });

  // Signing keys

  app.get(`${v}/keys`, async () => keys.keys);
  app.post(`${v}/keys/rotate`, async () => {
    const rotated = await keys.rotate(!fault('rotate-keeps-current'));
    return fault('rotate-omits-next') ? { current: rotated.current } : rotated;
  });

  // Queues

  app.post(`${v}/queues`, async (request, reply) => {
    const body = jsonBody(request.body);
    const name = body.queueName;
    if (typeof name !== 'string' || !queueNamePattern.test(name)) {
      throw new MessagingError(400, 'queueName must be 1 to 100 letters, digits, -, . or _');
    }
    const parallelism = body.parallelism ?? 1;
    if (typeof parallelism !== 'number' || !Number.isInteger(parallelism) || parallelism < 1) {
      throw new MessagingError(400, 'parallelism must be a positive integer');
    }
    if (body.paused !== undefined && typeof body.paused !== 'boolean')
      throw new MessagingError(400, 'paused must be a boolean');
    await store.upsertQueue(name, parallelism, body.paused as boolean | undefined);
    dispatcher.poke(true);
    return reply.code(200).send();
  });

  app.get(`${v}/queues`, async () => {
    const names = await store.queueNames();
    return (await Promise.all(names.map((name) => store.queue(name)))).filter((queue) => queue !== undefined);
  });

  app.get<{ Params: { name: string } }>(`${v}/queues/:name`, async (request) => {
    const queue = await store.queue(request.params.name);
    if (queue === undefined) throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    return queue;
  });

  app.delete<{ Params: { name: string } }>(`${v}/queues/:name`, async (request, reply) => {
    if (!(await store.deleteQueue(request.params.name))) {
      throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    }
    return reply.code(200).send();
  });

  app.post<{ Params: { name: string } }>(`${v}/queues/:name/pause`, async (request, reply) => {
    const queue = await store.queue(request.params.name);
    if (queue === undefined) throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    await store.setPaused(queue.name, !(queue.paused && fault('pause-twice-resumes')));
    dispatcher.poke(true);
    return reply.code(fault('pause-status-204') ? 204 : 200).send();
  });

  app.post<{ Params: { name: string } }>(`${v}/queues/:name/resume`, async (request, reply) => {
    if (!(await store.setPaused(request.params.name, false))) {
      throw new MessagingError(404, `queue ${JSON.stringify(request.params.name)} not found`);
    }
    dispatcher.poke(true);
    return reply.code(200).send();
  });

  // Messages and dead letters (the real service's; the suites' adapter reads them)

  app.get<{ Params: { id: string } }>(`${v}/messages/:id`, async (request) => {
    const message = await store.message(request.params.id);
    if (message === undefined) throw new MessagingError(404, `message ${JSON.stringify(request.params.id)} not found`);
    return {
      messageId: message.id,
      url: message.url,
      method: message.method,
      header: message.headers,
      body: message.body,
      createdAt: message.createdAt,
      notBefore: message.notBefore,
      maxRetries: message.maxRetries,
      retried: message.retried,
      ...(message.queue !== undefined && { queueName: message.queue }),
      ...(message.state !== undefined && { state: message.state }),
      ...(message.dlqId !== undefined && { dlqId: message.dlqId }),
    };
  });

  app.get(`${v}/dlq`, async () => ({ messages: await store.deadLetters() }));
  app.get<{ Params: { dlqId: string } }>(`${v}/dlq/:dlqId`, async (request) => {
    const entry = await store.deadLetter(request.params.dlqId);
    if (entry === undefined)
      throw new MessagingError(404, `dead letter ${JSON.stringify(request.params.dlqId)} not found`);
    return entry;
  });
  app.delete<{ Params: { dlqId: string } }>(`${v}/dlq/:dlqId`, async (request, reply) => {
    if (!(await store.deleteDeadLetter(request.params.dlqId))) {
      throw new MessagingError(404, `dead letter ${JSON.stringify(request.params.dlqId)} not found`);
    }
    return reply.code(200).send();
  });
}
