/**
 * Spec "Endpoints > Area A", "Waiter (area A)", "NotifyResponse item (area A)" and "States and
 * transitions > Waiter": notify answers 201 with one item per notified waiter, each field typed, the
 * workflow headers as arrays of one string; the waiting step gets the event data; with nobody waiting
 * the event is lost; notify by run reaches that run; an invalid event id is a 400. Creating waiters
 * is not in the spec: it goes through the target's adapter. What happens at a waiter's deadline, and
 * the notify-by-run shapes, are observed.
 */
import { CheckFailure, defineCases, means, show } from '../../src/suite-kit/suite-api.ts';
import { allOf, cover } from '../rules/dimensions.ts';
import { adminClient } from '../support/admin-client.ts';
import { messagingAdapter } from '../support/messaging-adapter.ts';
import {
  checkErrorObject,
  checkFields,
  checkPresentTypes,
  checkStatus,
  checkThat,
  describe,
  isRecord,
  jsonOf,
  types,
  waiterFieldsFor,
  waiterTimeoutFields,
} from '../support/messaging-checks.ts';
import { createMessagingClient } from '../support/messaging-client.ts';
import { checkIntegerLiterals } from '../support/messaging-raw-json.ts';
import { openInbox, signedCases } from '../support/messaging-sink.ts';
import { uniqueId } from '../support/messaging-steps.ts';

/** Notify's body forms (spec "Endpoints": optional; JSON, text or octet-stream). */
const bodyForms: readonly { readonly name: string; readonly type?: string; readonly body: Buffer }[] = [
  { name: 'none', body: Buffer.alloc(0) },
  { name: 'json', type: 'application/json', body: Buffer.from('{"event":"json","n":1,"list":[true,null]}') },
  { name: 'text', type: 'text/plain', body: Buffer.from('plain text, ünïcode and a line\nbreak') },
  // Not UTF-8: a lone continuation byte, an invalid lead, a NUL, a CR LF.
  {
    name: 'binary',
    type: 'application/octet-stream',
    body: Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x0d, 0x0a]),
  },
];

/** The value of a header in an object of header lists, by name without regard to case. */
function headerOf(headers: Record<string, unknown>, name: string): unknown {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase());
  return found?.[1];
}

/**
 * How far a target's clock may be from the harness's (a remote host): a unit confused for the other is off
 * by a factor of a thousand, far outside it.
 */
const clockSkewMs = 300_000;

/**
 * A.timestamps.units: the waiter's deadline in Unix seconds, no earlier than the waiter's creation; the
 * item's workflowCreatedAt in Unix milliseconds, about when the run was created (within the clock skew).
 * The types are the field rules' (checked before).
 */
function checkTimeUnits(
  item: Record<string, unknown>,
  waiter: Record<string, unknown>,
  startedMs: number,
  where: string,
): void {
  const [deadline, createdAt] = [Number(waiter.deadline), Number(item.workflowCreatedAt)];
  const earliestS = Math.floor((startedMs - clockSkewMs) / 1000);
  checkThat(
    'A.timestamps.units',
    deadline >= earliestS && deadline < earliestS + 10 * 365 * 86_400,
    `deadline ${show(waiter.deadline)}`,
    `Unix seconds, from ${earliestS} on (the waiter was created then)`,
    `${where}.waiter`,
  );
  checkThat(
    'A.timestamps.units',
    createdAt >= startedMs - clockSkewMs && createdAt <= Date.now() + clockSkewMs,
    `workflowCreatedAt ${show(item.workflowCreatedAt)}`,
    `Unix milliseconds near ${startedMs} (the run was created then, ±${clockSkewMs / 1000} s)`,
    where,
  );
}

const unsignedCases = defineCases([
  {
    id: 'messaging.notify.status',
    concurrent: true,
    rules: ['A.notify.status-201'],
    covers: [cover('A.notify.status-201', { 'resource-id': ['unknown'] })],
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
    concurrent: true,
    rules: [
      'A.notify.status-201',
      'A.notify.one-per-waiter',
      'A.notify.workflow-headers',
      'A.notify.waiter-fields',
      'A.notify.item-fields',
      'A.notify.item-workflow-fields',
      'A.notify.item-error',
      'A.notify.delivers-event',
      'A.timestamps.units',
    ],
    covers: [
      cover('A.notify.status-201', { 'resource-id': ['known'] }),
      cover('A.timestamps.units', { 'time-unit': ['seconds', 'milliseconds'] }),
    ],
    needs: ['messaging.adapter'],
    title: 'Notify reaches every waiter: one typed item each, and the event data at each waiter',
    expect:
      'Two waiters of one event, each created within a workflow run, the first with a timeout URL, body and headers: notify answers 201 with two items, each with its typed fields (the timeout fields required of the first only, typed wherever present), workflowRunId (its run) and workflowCreatedAt (ms), and the run id and URL headers as arrays of one string; both waiting URLs get the event data, with the run id and URL headers their items list.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'notify.waiters');
      const event = uniqueId(ctx, 'event');
      const runs = [uniqueId(ctx, 'run-a'), uniqueId(ctx, 'run-b')];
      // The waiters and their runs are created from here on: their times are judged against it.
      const startedMs = Date.now();
      // The first waiter is created with the Waiter's timeout fields, the second without: the table has
      // no Required column, so the timeout fields are judged only where they were given.
      const timeouts = {
        timeoutUrl: inbox.url('timeout0'),
        timeoutBody: Buffer.from('timed out').toString('base64'),
        timeoutHeaders: { 'X-Svc-Harness': ['timeout'] },
      };
      for (const [index, runId] of runs.entries()) {
        const url = inbox.url(`waiter${index}`);
        await adapter.wait({ eventId: event, runId, url, timeout: '1h', ...(index === 0 && timeouts) });
      }
      const data = `event data ${uniqueId(ctx, 'data')}`;
      const res = await client.call(`/v2/notify/${event}`, { headers: { 'content-type': 'text/plain' }, body: data });
      checkStatus('A.notify.status-201', res, 201);
      const items = jsonOf('A.notify.status-201', res);
      checkThat('A.notify.status-201', Array.isArray(items), show(items), 'a JSON array');
      const list = items as unknown[];
      checkThat('A.notify.one-per-waiter', list.length === 2, `${list.length} items`, '2 items, one per waiter');
      const itemRuns: unknown[] = [];
      /** Each item's waiter: its URL, and its run id and URL headers as listed. */
      const listed: { url: unknown; headers: (readonly [name: string, value: string])[] }[] = [];
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
        listed.push({
          url: waiter.url,
          headers: [client.h('Workflow-Runid'), client.h('Workflow-Url')].map(
            (name) => [name, String((headerOf(headers, name) as unknown[])[0])] as const,
          ),
        });
        // Whose waiter this is: by its URL, or else by its run (a target may write the URL its own way).
        const runOf = String((headerOf(headers, client.h('Workflow-Runid')) as unknown[] | undefined)?.[0]);
        const given = waiter.url === inbox.url('waiter0') || (waiter.url !== inbox.url('waiter1') && runOf === runs[0]);
        checkFields(
          'A.notify.waiter-fields',
          'A.notify.waiter-fields',
          waiter,
          waiterFieldsFor(given),
          `${where}.waiter`,
        );
        checkPresentTypes('A.notify.waiter-fields', waiter, waiterTimeoutFields, `${where}.waiter`);
        if (given && waiter.timeoutUrl !== timeouts.timeoutUrl) {
          throw new CheckFailure(
            'A.notify.waiter-fields',
            `timeoutUrl ${show(waiter.timeoutUrl)}`,
            `timeoutUrl ${show(timeouts.timeoutUrl)}, as the waiter was created`,
            `${where}.waiter`,
          );
        }
        checkFields(
          'A.notify.item-fields',
          'A.notify.item-fields',
          record,
          { messageId: 'string', deduplicated: 'boolean' },
          where,
        );
        if ('error' in record && !types.string(record.error)) {
          throw new CheckFailure('A.notify.item-fields', `error ${show(record.error)}`, 'error a string', where);
        }
        if ('error' in record)
          ctx.observe(`${where} has error ${show(record.error)} although the notification was sent`);
        // Each waiter was created within a workflow run: the spec's condition for both fields holds.
        checkFields(
          'A.notify.item-workflow-fields',
          'A.notify.item-workflow-fields',
          record,
          { workflowRunId: 'string', workflowCreatedAt: 'integer' },
          where,
        );
        const createdAt = record.workflowCreatedAt as number;
        checkThat(
          'A.notify.item-workflow-fields',
          createdAt >= 1e12,
          `workflowCreatedAt ${createdAt}`,
          'Unix milliseconds (13 digits or more)',
          where,
        );
        checkTimeUnits(record, waiter, startedMs, where);
        itemRuns.push(record.workflowRunId);
      }
      // JSON.parse reads 1.7e12 or 100.0 as an integer: the integers are judged as written too.
      checkIntegerLiterals('A.notify.waiter-fields', res.body, ['deadline'], 'the waiters', true);
      checkIntegerLiterals('A.notify.item-workflow-fields', res.body, ['workflowCreatedAt'], 'the items', true);
      checkThat(
        'A.notify.item-workflow-fields',
        runs.every((run) => itemRuns.includes(run)),
        `workflowRunId ${show(itemRuns)}`,
        `the waiters' runs ${show(runs)}`,
      );
      ctx.observe('A NotifyResponse item’s error (a failed notification) cannot be arranged from outside: not tried.');
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
        // Waiter.headers are "headers sent with the notification": the two the spec names arrive with it.
        // The item is this waiter's by its URL, or else by its run (a target may write the URL its own way).
        const mine =
          listed.find((entry) => entry.url === inbox.url(`waiter${index}`)) ??
          listed.find((entry) => entry.headers[0]?.[1] === runs[index]);
        checkThat(
          'A.notify.workflow-headers',
          mine !== undefined,
          'no item whose waiter has its URL or its run id',
          'an item listing the headers sent to it',
          `waiter ${index}`,
        );
        for (const [name, value] of mine?.headers ?? []) {
          const sent = got?.headers[name.toLowerCase()];
          checkThat(
            'A.notify.workflow-headers',
            sent === value,
            `${name} ${show(sent)} on the notification`,
            `${name} ${show(value)}, as its waiter lists it`,
            `waiter ${index}`,
          );
        }
      }
    },
  },
  {
    id: 'messaging.notify.lost',
    concurrent: true,
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
      await means(async () => checkStatus('A.notify.status-201', res, 201));
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
    concurrent: true,
    rules: ['A.notify.by-run', 'A.notify.by-run-shapes', 'A.notify.workflow-headers'],
    covers: [cover('A.notify.by-run', { 'resource-id': ['known'] })],
    needs: ['messaging.adapter'],
    title: 'Notify by workflow run reaches that run, also when it waits later',
    expect:
      'An event notified to a run before the run waits reaches the run once it waits, with the run id header of its waiter.',
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
      // This path's answer is not shown, but the waiter is: its headers, the run's id among them, are the
      // ones sent with its notification (as messaging.notify.waiters checks on the plain path).
      const runHeader = client.h('Workflow-Runid');
      const sent = got?.headers[runHeader.toLowerCase()];
      checkThat(
        'A.notify.workflow-headers',
        sent === run,
        `${runHeader} ${show(sent)} on the notification`,
        `${runHeader} ${show(run)}, the run its waiter was created in`,
      );
    },
  },
  {
    id: 'messaging.notify.invalid-event-400',
    concurrent: true,
    rules: ['A.notify.invalid-event-400', 'A.errors.error-object'],
    title: 'Notify with an invalid event id answers 400',
    expect:
      'Of event ids with a space, with a control character, and 2000 bytes long, at least one answers 400; every 400 has an Error object; what the other byte classes (tab, DEL, a byte that is not UTF-8, 257 bytes, an encoded slash) get is observed.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const label = (name: string) => uniqueId(ctx, name);
      // The spec says only "invalid event id": the first three are the ones every look-alike refuses.
      const judged = [
        ['a space', `bad%20id-${label('space')}`],
        ['a control character', `bad%01${label('ctl')}`],
        ['2000 bytes', 'x'.repeat(2000)],
      ] as const;
      const observed = [
        ['a tab', `bad%09${label('tab')}`],
        ['DEL', `bad%7F${label('del')}`],
        ['a byte that is not UTF-8', `bad%FF${label('utf8')}`],
        ['257 bytes', 'y'.repeat(257)],
        ['256 bytes', 'z'.repeat(256)],
        ['an encoded slash', `bad%2F${label('slash')}`],
      ] as const;
      // The positive first: a valid event id is taken, so a refusal below is about the id.
      await means(async () =>
        checkStatus('A.notify.status-201', await client.call(`/v2/notify/${label('valid')}`, { body: 'x' }), 201),
      );
      const statuses: string[] = [];
      let refused = false;
      for (const [index, [name, id]] of [...judged, ...observed].entries()) {
        const res = await client.call(`/v2/notify/${id}`, { body: 'x' });
        statuses.push(`${name} ${res.status}`);
        if (res.status === 400) {
          if (index < judged.length) refused = true;
          checkErrorObject('A.errors.error-object', res, `the 400 for an event id with ${name}`);
        }
      }
      ctx.observe(`statuses: ${statuses.join(', ')}`);
      checkThat(
        'A.notify.invalid-event-400',
        refused,
        `statuses ${statuses.slice(0, judged.length).join(', ')}`,
        'a 400 for at least one',
      );
    },
  },
  {
    id: 'messaging.notify.body-forms',
    concurrent: true,
    rules: ['A.notify.body-forms', 'A.notify.body-content-type'],
    covers: [
      cover('A.notify.body-forms', {
        'notify-body': allOf('notify-body').filter((form) => bodyForms.some((item) => item.name === form)),
      }),
    ],
    needs: ['messaging.adapter'],
    title: 'Notify’s body, absent, JSON, text or binary, reaches the waiter byte for byte',
    expect:
      'Four waiters, one per event: a notify without a body, one with application/json, one with text/plain and one with application/octet-stream bytes that are not UTF-8 each answer 201, and each waiter gets exactly those bytes (its content type observed).',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const adapter = await messagingAdapter(ctx);
      const inbox = await openInbox(ctx, 'notify.body-forms');
      for (const [index, form] of bodyForms.entries()) {
        const event = uniqueId(ctx, form.name);
        await adapter.wait({ eventId: event, runId: uniqueId(ctx, 'run'), url: inbox.url(form.name), timeout: '1h' });
        const res = await client.call(`/v2/notify/${event}`, {
          ...(form.type !== undefined && { headers: { 'content-type': form.type } }),
          ...(form.body.length > 0 && { body: form.body }),
        });
        await means(async () => checkStatus('A.notify.status-201', res, 201, `notify ${index}, ${form.name}`));
      }
      const seenTypes: string[] = [];
      for (const form of bodyForms) {
        const [got] = await inbox.arrive('A.notify.body-forms', form.name, 1, `the ${form.name} event`);
        const body = got?.body ?? Buffer.alloc(0);
        checkThat(
          'A.notify.body-forms',
          body.equals(form.body),
          `${body.length} bytes ${show(body.toString('hex'), 80)} (hex)`,
          `${form.body.length} bytes ${show(form.body.toString('hex'), 80)} (hex)`,
          `the ${form.name} event`,
        );
        seenTypes.push(`${form.name}: ${show(got?.headers['content-type'] ?? null)}`);
      }
      ctx.observe(`content types at the waiters: ${seenTypes.join(', ')}`);
    },
  },
  {
    id: 'messaging.notify.internal-500',
    rules: ['A.notify.internal-500', 'A.errors.error-object'],
    needs: ['admin'],
    title: 'A notify that fails inside the service answers 500 with the Error object',
    expect:
      'With the admin hook arming the next notify of one event id to fail inside the service: that notify answers 500 with {"error": string}.',
    async run(ctx) {
      const client = createMessagingClient(ctx);
      const event = uniqueId(ctx, 'internal');
      if (!(await adminClient(ctx).failNextNotify(event))) {
        ctx.skip('the admin hook cannot make a notify fail inside the service (no POST /messaging/fail-notify).');
      }
      // The positive first: a notify of another event id answers as the spec says.
      await means(async () =>
        checkStatus('A.notify.status-201', await client.call(`/v2/notify/${event}-other`, { body: 'x' }), 201),
      );
      const res = await client.call(`/v2/notify/${event}`, { body: 'fails inside' });
      checkStatus('A.notify.internal-500', res, 500, 'the armed notify');
      checkErrorObject('A.errors.error-object', res, 'the 500');
    },
  },
  {
    id: 'messaging.waiter.deadline',
    concurrent: true,
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

/** Every request these cases receive is judged by its signature too (A.signature.verifiable). */
export const cases = signedCases(unsignedCases);
