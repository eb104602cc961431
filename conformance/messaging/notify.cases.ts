/**
 * Spec "Endpoints > Area A", "Waiter (area A)", "NotifyResponse item (area A)" and "States and
 * transitions > Waiter": notify answers 201 with one item per notified waiter, each field typed, the
 * workflow headers as arrays of one string; the waiting step gets the event data; with nobody waiting
 * the event is lost; notify by run reaches that run; an invalid event id is a 400. Creating waiters
 * is not in the spec: it goes through the target's adapter. What happens at a waiter's deadline, and
 * the notify-by-run shapes, are observed.
 */
import { CheckFailure, show } from '../../src/engines/conformance/check-failure.ts';
import { defineCases } from '../../src/engines/conformance/conformance-case.ts';
import { messagingAdapter } from '../support/messaging-adapter.ts';
import {
  checkFields,
  checkStatus,
  checkThat,
  describe,
  isRecord,
  jsonOf,
  types,
  waiterFields,
} from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { openInbox } from '../support/messaging-sink.ts';
import { uniqueId } from '../support/messaging-steps.ts';

/** The value of a header in an object of header lists, by name without regard to case. */
function headerOf(headers: Record<string, unknown>, name: string): unknown {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase());
  return found?.[1];
}

export const cases = defineCases([
  {
    id: 'messaging.notify.status',
    rules: ['A.notify.status-201'],
    title: 'Notify answers 201 with a JSON array',
    expect: 'A notify of an event nobody waits for answers 201 with a JSON array.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const res = await client.call(`/v2/notify/${uniqueId(ctx, 'status')}`, { body: 'x' });
      checkStatus('A.notify.status-201', res, 201);
      const body = jsonOf('A.notify.status-201', res);
      checkThat('A.notify.status-201', Array.isArray(body), show(body), 'a JSON array');
    },
  },
  {
    id: 'messaging.notify.waiters',
    rules: [
      'A.notify.status-201',
      'A.notify.one-per-waiter',
      'A.notify.workflow-headers',
      'A.notify.waiter-fields',
      'A.notify.item-fields',
      'A.notify.delivers-event',
    ],
    needs: ['messaging.adapter'],
    title: 'Notify reaches every waiter: one typed item each, and the event data at each waiter',
    expect:
      'Two waiters of one event: notify answers 201 with two items, each with its typed fields and the run id and URL headers as arrays of one string; both waiting URLs get the event data.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'notify.waiters');
      const event = uniqueId(ctx, 'event');
      const runs = [uniqueId(ctx, 'run-a'), uniqueId(ctx, 'run-b')];
      for (const [index, runId] of runs.entries()) {
        await adapter.wait({ eventId: event, runId, url: inbox.url(`waiter${index}`), timeout: '1h' });
      }
      const data = `event data ${uniqueId(ctx, 'data')}`;
      const res = await client.call(`/v2/notify/${event}`, { headers: { 'content-type': 'text/plain' }, body: data });
      checkStatus('A.notify.status-201', res, 201);
      const items = jsonOf('A.notify.status-201', res);
      checkThat('A.notify.status-201', Array.isArray(items), show(items), 'a JSON array');
      const list = items as unknown[];
      checkThat('A.notify.one-per-waiter', list.length === 2, `${list.length} items`, '2 items, one per waiter');
      for (const [index, item] of list.entries()) {
        const where = `item ${index}`;
        checkThat('A.notify.item-fields', isRecord(item), show(item), 'a NotifyResponse object', where);
        const record = item as Record<string, unknown>;
        checkThat(
          'A.notify.item-fields',
          isRecord(record.waiter),
          show(record.waiter),
          'waiter, a Waiter object',
          where,
        );
        const waiter = record.waiter as Record<string, unknown>;
        const headers = isRecord(waiter.headers) ? waiter.headers : {};
        for (const name of [client.h('Workflow-Runid'), client.h('Workflow-Url')]) {
          const value = headerOf(headers, name);
          checkThat(
            'A.notify.workflow-headers',
            Array.isArray(value) && value.length === 1 && typeof value[0] === 'string',
            `${name} ${show(value)}`,
            `${name} an array of one string`,
            where,
          );
        }
        checkFields('A.notify.waiter-fields', 'A.notify.waiter-fields', waiter, waiterFields, `${where}.waiter`);
        checkFields(
          'A.notify.item-fields',
          'A.notify.item-fields',
          record,
          { messageId: 'string', deduplicated: 'boolean' },
          where,
        );
        for (const [field, type] of [
          ['error', 'string'],
          ['workflowRunId', 'string'],
          ['workflowCreatedAt', 'integer'],
        ] as const) {
          if (field in record && !types[type](record[field])) {
            throw new CheckFailure(
              'A.notify.item-fields',
              `${field} ${show(record[field])}`,
              `${field} ${type === 'string' ? 'a string' : 'an integer'}`,
              where,
            );
          }
        }
      }
      for (const index of [0, 1]) {
        const [got] = await inbox.arrive('A.notify.delivers-event', `waiter${index}`, 1, `waiter ${index}`);
        const body = got?.body.toString('utf8');
        checkThat(
          'A.notify.delivers-event',
          body === data,
          `body ${show(body)}`,
          `body ${show(data)}`,
          `waiter ${index}`,
        );
      }
    },
  },
  {
    id: 'messaging.notify.lost',
    rules: ['A.notify.lost-without-waiter'],
    needs: ['messaging.adapter'],
    title: 'With nobody waiting the event is lost',
    expect: 'A notify with no waiter answers an empty array; a waiter created afterwards never gets that event.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'notify.lost');
      const event = uniqueId(ctx, 'lost');
      const res = await client.call(`/v2/notify/${event}`, { body: 'lost event' });
      const items = jsonOf('A.notify.lost-without-waiter', res);
      checkThat(
        'A.notify.lost-without-waiter',
        Array.isArray(items) && items.length === 0,
        show(items),
        'an empty array',
      );
      await adapter.wait({ eventId: event, runId: uniqueId(ctx, 'run'), url: inbox.url('late'), timeout: '1h' });
      await inbox.settle();
      checkThat(
        'A.notify.lost-without-waiter',
        inbox.requests('late').length === 0,
        'the lost event was delivered later',
        'never delivered',
      );
    },
  },
  {
    id: 'messaging.notify.by-run',
    rules: ['A.notify.by-run', 'A.notify.by-run-shapes'],
    needs: ['messaging.adapter'],
    title: 'Notify by workflow run reaches that run, also when it waits later',
    expect: 'An event notified to a run before the run waits reaches the run once it waits.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'notify.by-run');
      const event = uniqueId(ctx, 'event');
      const run = uniqueId(ctx, 'run');
      const res = await client.call(`/v2/notify/${run}/${event}`, {
        headers: { 'content-type': 'text/plain' },
        body: 'for the run',
      });
      ctx.observe(`notify by run: ${describe(res)}`);
      await adapter.wait({ eventId: event, runId: run, url: inbox.url('step'), timeout: '1h' });
      const [got] = await inbox.arrive('A.notify.by-run', 'step');
      const body = got?.body.toString('utf8');
      checkThat('A.notify.by-run', body === 'for the run', `body ${show(body)}`, 'body "for the run"');
    },
  },
  {
    id: 'messaging.notify.invalid-event-400',
    rules: ['A.notify.invalid-event-400'],
    title: 'Notify with an invalid event id answers 400',
    expect: 'Of event ids with a space, with a control character, and 2000 bytes long, at least one answers 400.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const candidates = [`bad%20id-${uniqueId(ctx, 'space')}`, `bad%01${uniqueId(ctx, 'ctl')}`, 'x'.repeat(2000)];
      const statuses: number[] = [];
      for (const id of candidates) statuses.push((await client.call(`/v2/notify/${id}`, { body: 'x' })).status);
      ctx.observe(`statuses: space ${statuses[0]}, control character ${statuses[1]}, 2000 bytes ${statuses[2]}`);
      checkThat(
        'A.notify.invalid-event-400',
        statuses.includes(400),
        `statuses ${statuses.join(', ')}`,
        'a 400 for at least one',
      );
    },
  },
  {
    id: 'messaging.waiter.deadline',
    rules: ['A.waiter.deadline'],
    needs: ['messaging.adapter'],
    title: 'What a waiter does at its deadline (not shown by the spec)',
    expect: 'Observed: whether a waiter with a 1 s timeout calls its timeoutUrl, and with what.',
    async run(ctx) {
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'waiter.deadline');
      await adapter.wait({
        eventId: uniqueId(ctx, 'deadline'),
        runId: uniqueId(ctx, 'run'),
        url: inbox.url('never'),
        timeout: '1s',
        timeoutUrl: inbox.url('timeout'),
        timeoutBody: Buffer.from('timed out').toString('base64'),
        timeoutHeaders: { 'X-Svc-Harness': ['timeout'] },
      });
      const [got] = await inbox.arrive('A.waiter.deadline', 'timeout');
      ctx.observe(
        `timeout request: ${got?.method} body ${show(got?.body.toString('utf8'))} X-Svc-Harness ${show(got?.headers['x-svc-harness'] ?? null)}`,
      );
    },
  },
]);
