/**
 * Notify and waiters (spec "Endpoints > Area A", "Waiter", "NotifyResponse item"): notify and notify
 * by run, creating a waiter (the real service's), listing them; the items and waiters as answered.
 */

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { withIntegersAsDoubles } from '../integers-as-doubles.ts';
import { parseServiceDurationMs } from './durations.ts';
import { MessagingError } from './messaging-error.ts';
import { InternalNotifyFailure } from './notify-failures.ts';
import { header, httpUrl, type RequestHeaders } from './publish-request.ts';
import type { RouteContext } from './route-context.ts';
import { defaultWaitTimeout, headerLists, invalidEventId, jsonBody, rawBody } from './route-input.ts';
import type { StoredWaiter } from './waiters.ts';

export function waiterRoutes(app: FastifyInstance, context: RouteContext): void {
  const { options, v, p } = context;
  const { waiters, dispatcher, fault, silence, notifyFailures } = options;
  // Notify and waiters

  const notifyFaults = () => ({
    firstOnly: fault('notify-first-waiter-only'),
    keepLost: fault('notify-event-kept'),
    emptyBody: fault('notify-event-not-delivered'),
  });

  /**
   * A Waiter as answered. The Waiter table has no Required column: the silence leaves out the timeout
   * fields the waiter was created without (the reference writes them empty); the fault drops
   * timeoutUrl even when it was given.
   */
  function waiterView(waiter: StoredWaiter): Record<string, unknown> {
    const unset = silence('waiter-omits-unset-timeouts');
    return {
      url: waiter.url,
      headers: waiter.headers,
      // Spec Waiter table: "Unix timestamp in seconds" (fault waiter-deadline-ms: milliseconds).
      deadline: fault('waiter-deadline-ms') ? waiter.deadlineMs : Math.floor(waiter.deadlineMs / 1000),
      ...(!(unset && waiter.timeoutBody === '') && { timeoutBody: waiter.timeoutBody }),
      ...(!fault('waiter-omits-timeout-url') &&
        !(unset && waiter.timeoutUrl === '') && { timeoutUrl: waiter.timeoutUrl }),
      ...(!(unset && Object.keys(waiter.timeoutHeaders).length === 0) && { timeoutHeaders: waiter.timeoutHeaders }),
    };
  }

  function notifyItems(notified: readonly { waiter: StoredWaiter; messageId: string }[]) {
    return notified.map(({ waiter, messageId }) => ({
      waiter: waiterView(waiter),
      messageId,
      deduplicated: fault('notify-deduplicated-string') ? 'false' : false,
      ...(!fault('notify-omits-workflow-fields') && {
        workflowRunId: waiter.workflowRunId,
        workflowCreatedAt: waiter.workflowCreatedAt,
      }),
    }));
  }

  /** The event data as stored: any bytes (spec: JSON, text or octet-stream), base64 in Redis. */
  function eventData(body: unknown): string {
    const raw = rawBody(body);
    // The fault reads the body as text, so bytes that are not UTF-8 become U+FFFD.
    return (fault('notify-binary-mangled') ? Buffer.from(raw.toString('utf8')) : raw).toString('base64');
  }

  const checkEventId = (eventId: string) => {
    if (invalidEventId(eventId) && !fault('notify-invalid-id-accepted')) {
      throw new MessagingError(400, 'invalid event id: 1 to 256 bytes without spaces or control characters');
    }
  };

  app.post<{ Params: { eventId: string } }>(`${v}/notify/:eventId`, async (request, reply) => {
    checkEventId(request.params.eventId);
    if (notifyFailures.take(request.params.eventId)) {
      if (fault('notify-failure-swallowed')) return reply.code(201).send([]);
      if (fault('notify-500-plain')) return reply.code(500).type('text/plain').send('internal server error');
      throw new InternalNotifyFailure(request.params.eventId);
    }
    const body = eventData(request.body);
    const notified = await waiters.notify(request.params.eventId, body, notifyFaults());
    if (notified.length > 0) dispatcher.poke();
    reply.code(fault('notify-status-200') ? 200 : 201);
    if (!fault('notify-integers-as-doubles')) return reply.send(notifyItems(notified));
    const text = withIntegersAsDoubles(JSON.stringify(notifyItems(notified)), ['deadline']);
    return reply.type('application/json; charset=utf-8').send(text);
  });

  app.post<{ Params: { runId: string; eventId: string } }>(`${v}/notify/:runId/:eventId`, async (request, reply) => {
    checkEventId(request.params.eventId);
    const body = eventData(request.body);
    const keep = !fault('notify-by-run-drops-early');
    const { runId, eventId } = request.params;
    const notified = await waiters.notifyRun(runId, eventId, body, keep, fault('notify-event-not-delivered'));
    if (notified.length > 0) dispatcher.poke();
    // This path's response shape is not shown (Endpoints rule 2): the silence answers 202, no body.
    if (silence('notify-by-run-answers-202')) return reply.code(202).send();
    reply.code(fault('notify-status-200') ? 200 : 201);
    if (!fault('notify-integers-as-doubles')) return reply.send(notifyItems(notified));
    const text = withIntegersAsDoubles(JSON.stringify(notifyItems(notified)), ['deadline']);
    return reply.type('application/json; charset=utf-8').send(text);
  });

  app.post<{ Params: { eventId: string } }>(`${v}/wait/:eventId`, async (request, reply) => {
    checkEventId(request.params.eventId);
    const body = jsonBody(request.body);
    const headers = request.headers as RequestHeaders;
    if (typeof body.url !== 'string') throw new MessagingError(400, 'url is required');
    const url = httpUrl(body.url, 'url');
    const timeoutText = typeof body.timeout === 'string' ? body.timeout : defaultWaitTimeout;
    const timeoutMs = parseServiceDurationMs(timeoutText);
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
}
