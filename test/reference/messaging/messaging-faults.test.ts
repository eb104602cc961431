/**
 * Every area A fault switch visibly changes behaviour: the same probe, run against a reference with
 * the switch on and one without, gives different observations, and the one without gives the
 * spec's answer. Every switch names a rule of the area A catalog.
 *
 * One redis-server for the file; each reference has a logical database of its own (its delivery
 * loop claims every due message of its database, so two references on one database would deliver
 * each other's messages). Faults whose probes cannot disturb each other share a reference; the
 * probes' observations hold no ids or times, so a clean and a faulty run compare equal when the
 * fault changes nothing.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { messagingRuleCatalog } from '../../../conformance/rules/messaging-rules.ts';
import { type MessagingFaultName, messagingFaults } from '../../../src/reference/messaging/messaging-faults.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { checkSignature } from '../../../src/sink/sink-signature.ts';
import { callMessaging, publish } from '../../support/messaging-client.ts';
import { type Received, type Receiver, startReceiver } from '../../support/receiver.ts';
import { startTestRedis, startTestReference } from '../../support/reference-fixture.ts';

type Probe = (ref: RunningReference) => Promise<unknown>;

interface FaultProbe {
  readonly probe: Probe;
  /** What the reference without faults answers: the spec's observation. */
  readonly correct: unknown;
}

/** The plan's maximum message size on every reference of this file, so size probes stay small. */
const maxMessageSize = 1000;
/** How long a probe waits for a request that must not come (or must come at once on the clean reference). */
const absentMs = 800;

/**
 * The faulty references: the faults of one group share a reference, since no probe of the group
 * reads what another fault of the group changes. Faults that change every path or every error get
 * a reference of their own.
 */
const groups: readonly (readonly MessagingFaultName[])[] = [
  [
    'delivery-drops-body',
    'message-size-unchecked',
    'notify-status-200',
    'notify-deduplicated-string',
    'notify-integers-as-doubles',
    'waiter-omits-timeout-url',
    'workflow-headers-plain',
    'notify-invalid-id-accepted',
    'rotate-omits-next',
    'rotate-keeps-current',
    'pause-status-204',
    'paused-queue-refuses',
    'notify-omits-workflow-fields',
    'notify-binary-mangled',
    'notify-500-plain',
    'retries-above-plan',
    'region-secondary-drops',
    'waiter-deadline-ms',
  ],
  [
    'signature-other-body',
    'notify-first-waiter-only',
    'notify-event-not-delivered',
    'notification-drops-workflow-headers',
    'notify-event-kept',
    'notify-by-run-drops-early',
    'pause-twice-resumes',
    'paused-queue-delivers',
    'notify-failure-swallowed',
    'enqueue-ignores-callback-config',
  ],
  // failure-callback-early sends no failure callback at all when Svc-Retries is 0: away from those probes.
  // parallelism-unlimited's probe lowers max_parallelism for its length only, as the rate probe its rate.
  ['no-rate-limit', 'query-token-refused', 'failure-callback-early', 'parallelism-unlimited'],
  // Each probe sends its own operation without valid credentials; no other fault of the group lets it in.
  [
    'publish-no-auth',
    'enqueue-no-auth',
    'rotate-no-auth',
    'pause-no-auth',
    'notify-by-run-no-auth',
    'query-token-any-value',
    'auth-any-scheme',
  ],
  ['v1-prefix'],
  // publish-write-behind holds every publish in memory before it is stored: alone.
  ['publish-write-behind'],
  // delivery-dropped loses every publish: beside a probe that publishes nothing.
  ['auth-any-token', 'delivery-dropped'],
  ['error-body-plain-text'],
  [
    'callback-omits-source-message-id',
    'callback-timestamps-numbers',
    'callback-method-ignored',
    'callback-forward-dropped',
    'enqueue-ignores-callback',
    'callback-dropped-with-failure-callback',
    'failure-callback-no-dlq-id',
    'failure-callback-method-ignored',
    'failure-callback-forward-dropped',
    'failure-callback-retries-ignored',
  ],
  ['callback-not-sent', 'dlq-id-unknown', 'retry-signature-expired'],
  // URL groups and the account's limits: each probe makes groups (or queues) of its own; the limit probes
  // change the account for their length only (no other probe here makes a queue or reads a dead letter).
  [
    'callback-omits-topic-name',
    'callback-endpoint-name-wrong',
    'failure-callback-omits-endpoint-name',
    'topic-limit-unchecked',
    'endpoint-limit-unchecked',
    'queue-limit-unchecked',
    'dlq-limit-unchecked',
  ],
  // Each probe reads one field or one signature claim, which no other fault of the group changes.
  [
    'callback-signed-wrong-sub',
    'callback-retried-off-by-one',
    'callback-status-first-attempt',
    'callback-body-raw',
    'source-body-unencoded',
    'callback-header-content-type-only',
    'callback-created-at-seconds',
    'callback-not-before-ignores-delay',
    'callback-max-retries-default',
    'source-header-drops-callback-headers',
    'source-header-forward-renamed',
    'callback-integers-as-doubles',
  ],
];

let redis: RedisBacking | undefined;
let sink: Receiver;
let clean: RunningReference;
const faulty = new Map<MessagingFaultName, RunningReference>();
const started: RunningReference[] = [];

let n = 0;
/** Paths and ids of their own for one run of a probe, so no two runs read each other's requests. */
function fresh(label: string) {
  const base = `/${label}-${++n}`;
  return {
    id: `${label}-${n}`,
    dest: `${base}/dest`,
    cb: `${base}/cb`,
    fcb: `${base}/fcb`,
    url: (path: string) => `${sink.url}${path}`,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const decode = (got: Received | undefined) =>
  JSON.parse(got?.body.toString('utf8') ?? 'null') as Record<string, unknown>;
const first = async (prefix: string) => (await sink.waitFor(prefix, 1, 10_000))[0];
/** How many requests reached `prefix` within `ms` (at least one is enough to stop waiting). */
async function arrivals(prefix: string, ms = absentMs): Promise<number> {
  await sink.waitFor(prefix, 1, ms).catch(() => []);
  return sink.on(prefix).length;
}

const call = (ref: RunningReference, path: string, options: Parameters<typeof callMessaging>[2] = {}) =>
  callMessaging(ref.target, path, options);
const get = (ref: RunningReference, path: string, token?: string | null) =>
  call(ref, path, { method: 'GET', ...(token !== undefined && { token }) });

/** Publishes to the probe's destination; answers the message id. */
const send = (ref: RunningReference, dest: string, headers: Record<string, string> = {}, body = 'payload') =>
  publish(ref.target, `${sink.url}${dest}`, headers, body);

/** Registers a waiter for `eventId` under `runId`; answers the wait response. */
async function wait(ref: RunningReference, eventId: string, runId: string, body: Record<string, unknown>) {
  const answer = await call(ref, `/v2/wait/${eventId}`, { headers: { 'Svc-Workflow-Runid': runId }, body });
  expect(answer.status, answer.text).toBe(201);
  return answer.json as { notified: boolean };
}

async function notify(ref: RunningReference, eventId: string, body = 'event-data') {
  return call(ref, `/v2/notify/${eventId}`, { body });
}

async function newQueue(ref: RunningReference, queueName: string, paused = false): Promise<void> {
  const answer = await call(ref, '/v2/queues', { body: { queueName, parallelism: 1, paused } });
  expect(answer.status, answer.text).toBe(200);
}

type GroupEndpoints = readonly { readonly name?: string; readonly url: string }[];

/** Upserts a URL group's endpoints; answers the reference's answer. */
const upsertGroup = (ref: RunningReference, name: string, endpoints: GroupEndpoints) =>
  call(ref, `/v2/topics/${name}/endpoints`, { body: { endpoints } });

async function newGroup(ref: RunningReference, name: string, endpoints: GroupEndpoints): Promise<void> {
  const answer = await upsertGroup(ref, name, endpoints);
  expect(answer.status, answer.text).toBe(200);
}

/** The plan's rate while the rate probe runs: low, so a burst exceeds it on a busy machine too. */
const lowRate = 20;

/**
 * Runs `during` with the account's max_requests_per_second at `perSecond`, then puts the default
 * (500) back; each change waits out area A's cache of the account.
 */
async function withRate<T>(ref: RunningReference, perSecond: number, during: () => Promise<T>): Promise<T> {
  await setAccount(ref, { max_requests_per_second: perSecond });
  try {
    return await during();
  } finally {
    await setAccount(ref, { max_requests_per_second: 500 });
    // The next probe starts in a one-second window of its own.
    await sleep(1000 - (Date.now() % 1000) + 20);
  }
}

/** Arms the next notify of `eventId` to fail inside the reference (its admin hook). */
async function armNotifyFailure(ref: RunningReference, eventId: string): Promise<void> {
  const admin = ref.target.admin;
  const res = await fetch(`${admin?.url}/messaging/fail-notify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ eventId }),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** The status of a request without credentials (or with `headers`' own). */
const unauthenticated = async (ref: RunningReference, path: string, headers: Record<string, string> = {}) =>
  (await call(ref, path, { token: null, headers, body: 'x' })).status;

const probes: Record<MessagingFaultName, FaultProbe> = {
  // Authentication on every operation (issue 20)
  'publish-no-auth': {
    correct: 401,
    probe: async (ref) => {
      const p = fresh('no-auth-publish');
      return unauthenticated(ref, `/v2/publish/${p.url(p.dest)}`);
    },
  },
  'enqueue-no-auth': {
    correct: 401,
    probe: async (ref) => {
      const p = fresh('no-auth-enqueue');
      return unauthenticated(ref, `/v2/enqueue/${p.id}/${p.url(p.dest)}`);
    },
  },
  'rotate-no-auth': {
    correct: 401,
    probe: async (ref) => (await call(ref, '/v2/keys/rotate', { token: null })).status,
  },
  'pause-no-auth': {
    correct: { status: 401, paused: false },
    probe: async (ref) => {
      const queue = fresh('no-auth-pause').id;
      await newQueue(ref, queue);
      const status = (await call(ref, `/v2/queues/${queue}/pause`, { token: null })).status;
      return { status, paused: ((await get(ref, `/v2/queues/${queue}`)).json as { paused: unknown }).paused };
    },
  },
  'notify-by-run-no-auth': {
    correct: 401,
    probe: async (ref) => {
      const p = fresh('no-auth-by-run');
      return unauthenticated(ref, `/v2/notify/${p.id}-run/${p.id}`);
    },
  },
  'query-token-any-value': {
    correct: 401,
    probe: async (ref) => (await get(ref, '/v2/keys?svc_token=not-the-token', null)).status,
  },
  'auth-any-scheme': {
    correct: 401,
    probe: async (ref) =>
      (
        await call(ref, '/v2/keys', {
          method: 'GET',
          token: null,
          headers: { authorization: `Token ${ref.target.messaging?.token}` },
        })
      ).status,
  },

  // Queues, notify, limits and regions (issue 20)
  'paused-queue-refuses': {
    correct: 200,
    probe: async (ref) => {
      const p = fresh('paused-accepts');
      await newQueue(ref, p.id, true);
      return (await call(ref, `/v2/enqueue/${p.id}/${p.url(p.dest)}`, { body: 'held' })).status;
    },
  },
  'notify-omits-workflow-fields': {
    correct: [{ runId: true, createdAt: 'number' }],
    probe: async (ref) => {
      const p = fresh('wf-fields');
      await wait(ref, p.id, `${p.id}-run`, { url: p.url(p.dest), timeout: '1h' });
      const items = (await notify(ref, p.id)).json as { workflowRunId?: unknown; workflowCreatedAt?: unknown }[];
      return items.map((item) => ({
        runId: item.workflowRunId === `${p.id}-run`,
        createdAt: typeof item.workflowCreatedAt,
      }));
    },
  },
  'notify-binary-mangled': {
    correct: 'fffe0080',
    probe: async (ref) => {
      const p = fresh('notify-binary');
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      await call(ref, `/v2/notify/${p.id}`, {
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from([0xff, 0xfe, 0x00, 0x80]),
      });
      return (await first(p.dest))?.body.toString('hex');
    },
  },
  'notify-500-plain': {
    correct: { status: 500, json: { error: expect.any(String) } },
    probe: async (ref) => {
      const p = fresh('notify-500');
      await armNotifyFailure(ref, p.id);
      const answer = await notify(ref, p.id);
      return { status: answer.status, json: answer.json };
    },
  },
  'notify-failure-swallowed': {
    correct: 500,
    probe: async (ref) => {
      const p = fresh('notify-swallowed');
      await armNotifyFailure(ref, p.id);
      return (await notify(ref, p.id)).status;
    },
  },
  'retries-above-plan': {
    correct: 400,
    probe: async (ref) => {
      const p = fresh('retries-plan');
      // The plan's max_retries is 20 on every reference of this file.
      return (await call(ref, `/v2/publish/${p.url(p.dest)}`, { headers: { 'Svc-Retries': '21' }, body: 'x' })).status;
    },
  },
  'parallelism-unlimited': {
    correct: 1,
    probe: async (ref) => {
      const p = fresh('parallelism');
      sink.answer(p.dest, { delayMs: 300 });
      await setAccount(ref, { max_parallelism: 1 });
      try {
        await Promise.all([1, 2, 3].map(() => send(ref, p.dest)));
        const got = await sink.waitFor(p.dest, 3, 10_000);
        // In flight together: arrivals less than the receiver's 300 ms hold apart.
        return Math.max(...got.map((a) => got.filter((b) => b.at <= a.at && a.at < b.at + 250).length));
      } finally {
        await setAccount(ref, { max_parallelism: 10 });
      }
    },
  },
  'region-secondary-drops': {
    correct: 1,
    probe: async (ref) => {
      const p = fresh('region');
      const baseUrl = ref.target.messaging?.regions?.['us-east-1'];
      expect(baseUrl).toBeDefined();
      await call(ref, `/v2/publish/${p.url(p.dest)}`, { body: 'from us-east-1', ...(baseUrl && { baseUrl }) });
      return arrivals(p.dest, 3000);
    },
  },

  // URL groups (issue 21)
  'callback-omits-topic-name': {
    correct: true,
    probe: async (ref) => {
      const p = fresh('group-topic');
      await newGroup(ref, p.id, [{ name: 'e', url: p.url(p.dest) }]);
      await call(ref, `/v2/publish/${p.id}`, { headers: { 'Svc-Callback': p.url(p.cb) }, body: 'x' });
      return decode(await first(p.cb)).topicName === p.id;
    },
  },
  'callback-endpoint-name-wrong': {
    correct: 'e',
    probe: async (ref) => {
      const p = fresh('group-endpoint');
      await newGroup(ref, p.id, [{ name: 'e', url: p.url(p.dest) }]);
      await call(ref, `/v2/publish/${p.id}`, { headers: { 'Svc-Callback': p.url(p.cb) }, body: 'x' });
      return decode(await first(p.cb)).endpointName;
    },
  },
  'failure-callback-omits-endpoint-name': {
    correct: 'e',
    probe: async (ref) => {
      const p = fresh('group-failure');
      sink.answer(p.dest, { status: 500 });
      await newGroup(ref, p.id, [{ name: 'e', url: p.url(p.dest) }]);
      await call(ref, `/v2/publish/${p.id}`, {
        headers: { 'Svc-Retries': '0', 'Svc-Failure-Callback': p.url(p.fcb) },
        body: 'x',
      });
      return decode(await first(p.fcb)).endpointName;
    },
  },
  'topic-limit-unchecked': {
    correct: [200, 400],
    probe: async (ref) => {
      const p = fresh('group-limit');
      const groups = ((await get(ref, '/v2/topics')).json as unknown[]).length;
      await setAccount(ref, { max_topics: groups + 1 });
      try {
        const endpoints = [{ url: p.url(p.dest) }];
        return [
          (await upsertGroup(ref, `${p.id}-a`, endpoints)).status,
          (await upsertGroup(ref, `${p.id}-b`, endpoints)).status,
        ];
      } finally {
        await setAccount(ref, { max_topics: 1000 });
      }
    },
  },
  'endpoint-limit-unchecked': {
    correct: 400,
    probe: async (ref) => {
      const p = fresh('endpoint-limit');
      await setAccount(ref, { max_endpoints_per_topic: 1 });
      try {
        return (await upsertGroup(ref, p.id, [{ url: p.url(`${p.dest}/a`) }, { url: p.url(`${p.dest}/b`) }])).status;
      } finally {
        await setAccount(ref, { max_endpoints_per_topic: 100 });
      }
    },
  },

  'queue-limit-unchecked': {
    correct: [200, 400, 400],
    probe: async (ref) => {
      const p = fresh('queue-limit');
      const queues = ((await get(ref, '/v2/queues')).json as unknown[]).length;
      await setAccount(ref, { max_queues: queues + 1 });
      try {
        return [
          (await call(ref, '/v2/queues', { body: { queueName: `${p.id}-a`, parallelism: 1 } })).status,
          (await call(ref, '/v2/queues', { body: { queueName: `${p.id}-b`, parallelism: 1 } })).status,
          (await call(ref, `/v2/enqueue/${p.id}-c/${p.url(p.dest)}`, { body: 'x' })).status,
        ];
      } finally {
        await setAccount(ref, { max_queues: 1000 });
      }
    },
  },
  'dlq-limit-unchecked': {
    correct: true,
    probe: async (ref) => {
      const p = fresh('dlq-limit');
      sink.answer(p.dest, { status: 500 });
      const deadLetters = async () => ((await get(ref, '/v2/dlq')).json as { messages: unknown[] }).messages.length;
      const limit = (await deadLetters()) + 1;
      await setAccount(ref, { max_dlq_size: limit });
      try {
        for (const _ of [1, 2]) await send(ref, p.dest, { 'Svc-Retries': '0', 'Svc-Failure-Callback': p.url(p.fcb) });
        await sink.waitFor(p.fcb, 2, 10_000);
        return (await deadLetters()) <= limit;
      } finally {
        await setAccount(ref, { max_dlq_size: 100_000 });
      }
    },
  },

  // Callback headers on enqueue, failure-callback retries (issue 20)
  'enqueue-ignores-callback-config': {
    correct: 'PUT',
    probe: async (ref) => {
      const p = fresh('enqueue-cb-config');
      await call(ref, `/v2/enqueue/${p.id}/${p.url(p.dest)}`, {
        headers: { 'Svc-Callback': p.url(p.cb), 'Svc-Callback-Method': 'PUT' },
        body: 'queued',
      });
      return (await first(p.cb))?.method;
    },
  },
  'failure-callback-retries-ignored': {
    correct: 2,
    probe: async (ref) => {
      const p = fresh('fcb-retries');
      sink.answer(p.dest, { status: 500 });
      sink.answer(p.fcb, { status: 500 });
      await send(ref, p.dest, {
        'Svc-Retries': '0',
        'Svc-Failure-Callback': p.url(p.fcb),
        'Svc-Failure-Callback-Retries': '1',
      });
      await sink.waitFor(p.fcb, 2, 10_000);
      await sleep(absentMs);
      return sink.on(p.fcb).length;
    },
  },

  // Publish and delivery
  // Acknowledged before stored: a second publish with the same deduplication id is not found a duplicate
  // (the soak's checker is what catches the loss itself: test/cli/soak.test.ts).
  'publish-write-behind': {
    correct: true,
    probe: async (ref) => {
      const p = fresh('write-behind');
      const headers = { 'Svc-Deduplication-Id': p.id };
      await call(ref, `/v2/publish/${p.url(p.dest)}`, { headers, body: 'held' });
      const again = await call(ref, `/v2/publish/${p.url(p.dest)}`, { headers, body: 'held' });
      return (again.json as { deduplicated?: boolean }).deduplicated === true;
    },
  },
  'delivery-drops-body': {
    correct: 'hello',
    probe: async (ref) => {
      const p = fresh('drops-body');
      await send(ref, p.dest, {}, 'hello');
      return (await first(p.dest))?.body.toString();
    },
  },
  'signature-other-body': {
    correct: { ok: true, key: 'current' },
    probe: async (ref) => {
      const p = fresh('signature');
      await send(ref, `${p.dest}?q=1`, { 'content-type': 'text/plain' }, 'signed body');
      const got = await first(p.dest);
      const keys = (await get(ref, '/v2/keys')).json as { current: string; next: string };
      return checkSignature(
        got?.headers['svc-signature'] as string | undefined,
        keys,
        p.url(`${p.dest}?q=1`),
        got?.body ?? Buffer.alloc(0),
        'Svc',
      );
    },
  },
  'v1-prefix': {
    correct: { v2: 200, v1: 404 },
    probe: async (ref) => ({ v2: (await get(ref, '/v2/keys')).status, v1: (await get(ref, '/v1/keys')).status }),
  },
  'message-size-unchecked': {
    correct: { over: 413, at: 200 },
    probe: async (ref) => {
      const p = fresh('size');
      const over = await call(ref, `/v2/publish/${p.url(p.dest)}`, { body: 'x'.repeat(maxMessageSize + 1) });
      const at = await call(ref, `/v2/publish/${p.url(p.dest)}`, { body: 'x'.repeat(maxMessageSize) });
      return { over: over.status, at: at.status };
    },
  },

  // Notify and waiters
  'notify-status-200': {
    correct: { status: 201, body: [] },
    probe: async (ref) => {
      const answer = await notify(ref, fresh('status').id);
      return { status: answer.status, body: answer.json };
    },
  },
  'notify-first-waiter-only': {
    correct: { items: 2, delivered: 2 },
    probe: async (ref) => {
      const p = fresh('first-only');
      await wait(ref, p.id, `${p.id}-a`, { url: p.url(`${p.dest}/a`), timeout: '1h' });
      await wait(ref, p.id, `${p.id}-b`, { url: p.url(`${p.dest}/b`), timeout: '1h' });
      const items = (await notify(ref, p.id)).json as unknown[];
      await sink.waitFor(p.dest, items.length);
      await sleep(100);
      return { items: items.length, delivered: sink.on(p.dest).length };
    },
  },
  'notify-deduplicated-string': {
    correct: [false],
    probe: async (ref) => {
      const p = fresh('dedup');
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      return ((await notify(ref, p.id)).json as { deduplicated: unknown }[]).map((item) => item.deduplicated);
    },
  },
  'waiter-deadline-ms': {
    correct: true,
    probe: async (ref) => {
      const p = fresh('deadline-ms');
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      return ((await notify(ref, p.id)).json as { waiter: { deadline: number } }[]).every(
        (item) => item.waiter.deadline < 1e11,
      );
    },
  },
  'notify-integers-as-doubles': {
    correct: false,
    probe: async (ref) => {
      const p = fresh('notify-doubles');
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      return /"deadline":\d+\.0/.test((await notify(ref, p.id)).text);
    },
  },
  'waiter-omits-timeout-url': {
    correct: { listed: [true], notified: [true] },
    probe: async (ref) => {
      const p = fresh('timeout-url');
      const timeoutUrl = p.url(`${p.dest}/timeout`);
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h', timeoutUrl });
      type Listed = { timeoutUrl?: unknown };
      const listed = (await get(ref, `/v2/waiters/${p.id}`)).json as Listed[];
      const items = (await notify(ref, p.id)).json as { waiter: Listed }[];
      return {
        listed: listed.map((waiter) => waiter.timeoutUrl === timeoutUrl),
        notified: items.map((item) => item.waiter.timeoutUrl === timeoutUrl),
      };
    },
  },
  'workflow-headers-plain': {
    correct: [{ runId: true, url: true }],
    probe: async (ref) => {
      const p = fresh('wf-headers');
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      const items = (await notify(ref, p.id)).json as { waiter: { headers: Record<string, unknown> } }[];
      return items.map(({ waiter }) => ({
        runId: JSON.stringify(waiter.headers['Svc-Workflow-Runid']) === JSON.stringify([p.id]),
        url: JSON.stringify(waiter.headers['Svc-Workflow-Url']) === JSON.stringify([p.url(p.dest)]),
      }));
    },
  },
  'notify-event-not-delivered': {
    correct: 'the event data',
    probe: async (ref) => {
      const p = fresh('event-body');
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      await notify(ref, p.id, 'the event data');
      return (await first(p.dest))?.body.toString();
    },
  },
  'notification-drops-workflow-headers': {
    correct: { runId: true, url: true },
    probe: async (ref) => {
      const p = fresh('wf-sent');
      await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      await notify(ref, p.id, 'the event data');
      const headers = (await first(p.dest))?.headers ?? {};
      return { runId: headers['svc-workflow-runid'] === p.id, url: headers['svc-workflow-url'] === p.url(p.dest) };
    },
  },
  'notify-event-kept': {
    correct: { items: 0, notified: false, delivered: 0 },
    probe: async (ref) => {
      const p = fresh('kept');
      const items = (await notify(ref, p.id, 'nobody waits')).json as unknown[];
      const waited = await wait(ref, p.id, p.id, { url: p.url(p.dest), timeout: '1h' });
      return { items: items.length, notified: waited.notified, delivered: await arrivals(p.dest) };
    },
  },
  'notify-by-run-drops-early': {
    correct: { notified: true, body: 'early event' },
    probe: async (ref) => {
      const p = fresh('by-run');
      const early = await call(ref, `/v2/notify/${p.id}-run/${p.id}`, { body: 'early event' });
      expect(early.status).toBe(201);
      const waited = await wait(ref, p.id, `${p.id}-run`, { url: p.url(p.dest), timeout: '1h' });
      const delivered = (await arrivals(p.dest)) > 0 ? sink.on(p.dest)[0]?.body.toString() : undefined;
      return { notified: waited.notified, body: delivered };
    },
  },
  'notify-invalid-id-accepted': {
    correct: { tooLong: 400, space: 400 },
    probe: async (ref) => ({
      tooLong: (await notify(ref, 'e'.repeat(257))).status,
      space: (await notify(ref, 'an%20event')).status,
    }),
  },
  'no-rate-limit': {
    correct: [201, 429],
    probe: async (ref) => {
      const eventId = fresh('rate').id;
      const statuses = await withRate(ref, lowRate, () =>
        Promise.all(Array.from({ length: 5 * lowRate }, async () => (await notify(ref, eventId)).status)),
      );
      return [...new Set(statuses)].sort();
    },
  },

  // Authentication and errors
  'auth-any-token': {
    correct: { wrong: 401, none: 401, right: 200 },
    probe: async (ref) => ({
      wrong: (await get(ref, '/v2/keys', 'not-the-token')).status,
      none: (await get(ref, '/v2/keys', null)).status,
      right: (await get(ref, '/v2/keys')).status,
    }),
  },
  'query-token-refused': {
    correct: 200,
    probe: async (ref) => {
      const token = encodeURIComponent(ref.target.messaging?.token ?? '');
      return (await get(ref, `/v2/keys?svc_token=${token}`, null)).status;
    },
  },
  'error-body-plain-text': {
    correct: { status: 401, json: { error: expect.any(String) } },
    probe: async (ref) => {
      const answer = await get(ref, '/v2/keys', 'not-the-token');
      return { status: answer.status, json: answer.json };
    },
  },

  // Signing keys
  'rotate-omits-next': {
    correct: { status: 200, fields: ['current', 'next'] },
    probe: async (ref) => {
      const answer = await call(ref, '/v2/keys/rotate');
      const json = answer.json as Record<string, unknown>;
      return { status: answer.status, fields: Object.keys(json).filter((field) => typeof json[field] === 'string') };
    },
  },
  'rotate-keeps-current': {
    correct: { promoted: true, freshNext: true },
    probe: async (ref) => {
      const before = (await get(ref, '/v2/keys')).json as { current: string; next: string };
      await call(ref, '/v2/keys/rotate');
      const after = (await get(ref, '/v2/keys')).json as { current: string; next: string };
      return {
        promoted: after.current === before.next,
        freshNext: after.next !== before.next && after.next !== before.current,
      };
    },
  },

  // Queues
  'pause-status-204': {
    correct: 200,
    probe: async (ref) => {
      const queue = fresh('pause-status').id;
      await newQueue(ref, queue);
      return (await call(ref, `/v2/queues/${queue}/pause`)).status;
    },
  },
  'pause-twice-resumes': {
    correct: { statuses: [200, 200], paused: true },
    probe: async (ref) => {
      const queue = fresh('pause-twice').id;
      await newQueue(ref, queue);
      const statuses = [
        (await call(ref, `/v2/queues/${queue}/pause`)).status,
        (await call(ref, `/v2/queues/${queue}/pause`)).status,
      ];
      return { statuses, paused: ((await get(ref, `/v2/queues/${queue}`)).json as { paused: unknown }).paused };
    },
  },
  'paused-queue-delivers': {
    correct: { accepted: 200, whilePaused: 0, lag: 1 },
    probe: async (ref) => {
      const p = fresh('paused-holds');
      await newQueue(ref, p.id, true);
      const accepted = await call(ref, `/v2/enqueue/${p.id}/${p.url(p.dest)}`, { body: 'held' });
      const whilePaused = await arrivals(p.dest, 400);
      const lag = ((await get(ref, `/v2/queues/${p.id}`)).json as { lag: unknown }).lag;
      return { accepted: accepted.status, whilePaused, lag };
    },
  },

  // Callbacks
  'callback-not-sent': {
    correct: 1,
    probe: async (ref) => {
      const p = fresh('cb-sent');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      await first(p.dest);
      return arrivals(p.cb);
    },
  },
  'callback-omits-source-message-id': {
    correct: { present: true, isTheMessage: true },
    probe: async (ref) => {
      const p = fresh('cb-source-id');
      const id = await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      const body = decode(await first(p.cb));
      return { present: 'sourceMessageId' in body, isTheMessage: body.sourceMessageId === id };
    },
  },
  'callback-timestamps-numbers': {
    correct: { createdAt: true, notBefore: true },
    probe: async (ref) => {
      const p = fresh('cb-timestamps');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      const body = decode(await first(p.cb));
      const digits = (value: unknown) => typeof value === 'string' && /^\d+$/.test(value);
      return { createdAt: digits(body.createdAt), notBefore: digits(body.notBefore) };
    },
  },
  'callback-method-ignored': {
    correct: 'PUT',
    probe: async (ref) => {
      const p = fresh('cb-method');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb), 'Svc-Callback-Method': 'PUT' });
      return (await first(p.cb))?.method;
    },
  },
  'callback-forward-dropped': {
    correct: 'abc',
    probe: async (ref) => {
      const p = fresh('cb-forward');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb), 'Svc-Callback-Forward-X-Trace': 'abc' });
      return (await first(p.cb))?.headers['x-trace'];
    },
  },
  'enqueue-ignores-callback': {
    correct: { delivered: 1, callbacks: 1 },
    probe: async (ref) => {
      const p = fresh('enqueue-cb');
      const answer = await call(ref, `/v2/enqueue/${p.id}/${p.url(p.dest)}`, {
        headers: { 'Svc-Callback': p.url(p.cb) },
        body: 'queued',
      });
      expect(answer.status, answer.text).toBe(200);
      await first(p.dest);
      return { delivered: sink.on(p.dest).length, callbacks: await arrivals(p.cb) };
    },
  },
  'callback-dropped-with-failure-callback': {
    correct: { callbacks: 1, failureCallbacks: 0 },
    probe: async (ref) => {
      const p = fresh('cb-with-fcb');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb), 'Svc-Failure-Callback': p.url(p.fcb) });
      await first(p.dest);
      return { callbacks: await arrivals(p.cb), failureCallbacks: sink.on(p.fcb).length };
    },
  },
  'failure-callback-early': {
    correct: { attemptsBefore: 3, retried: 2, maxRetries: 2 },
    probe: async (ref) => {
      const p = fresh('fcb-early');
      sink.answer(p.dest, { status: 500 });
      await send(ref, p.dest, { 'Svc-Retries': '2', 'Svc-Failure-Callback': p.url(p.fcb) });
      const got = await first(p.fcb);
      const attemptsBefore = sink.on(p.dest).filter((attempt) => attempt.at <= (got?.at ?? 0)).length;
      const body = decode(got);
      return { attemptsBefore, retried: body.retried, maxRetries: body.maxRetries };
    },
  },
  'failure-callback-no-dlq-id': {
    correct: 'string',
    probe: async (ref) => {
      const p = fresh('fcb-dlq-id');
      sink.answer(p.dest, { status: 500 });
      await send(ref, p.dest, { 'Svc-Retries': '0', 'Svc-Failure-Callback': p.url(p.fcb) });
      return typeof decode(await first(p.fcb)).dlqId;
    },
  },
  'dlq-id-unknown': {
    correct: { status: 200, sameMessage: true },
    probe: async (ref) => {
      const p = fresh('fcb-dlq-entry');
      sink.answer(p.dest, { status: 500 });
      const id = await send(ref, p.dest, { 'Svc-Retries': '0', 'Svc-Failure-Callback': p.url(p.fcb) });
      const body = decode(await first(p.fcb));
      const entry = await get(ref, `/v2/dlq/${encodeURIComponent(String(body.dlqId))}`);
      return {
        status: entry.status,
        sameMessage: (entry.json as { messageId?: unknown } | undefined)?.messageId === id,
      };
    },
  },
  'failure-callback-method-ignored': {
    correct: 'PUT',
    probe: async (ref) => {
      const p = fresh('fcb-method');
      sink.answer(p.dest, { status: 500 });
      await send(ref, p.dest, {
        'Svc-Retries': '0',
        'Svc-Failure-Callback': p.url(p.fcb),
        'Svc-Failure-Callback-Method': 'PUT',
      });
      return (await first(p.fcb))?.method;
    },
  },
  'failure-callback-forward-dropped': {
    correct: 'because',
    probe: async (ref) => {
      const p = fresh('fcb-forward');
      sink.answer(p.dest, { status: 500 });
      await send(ref, p.dest, {
        'Svc-Retries': '0',
        'Svc-Failure-Callback': p.url(p.fcb),
        'Svc-Failure-Callback-Forward-X-Why': 'because',
      });
      return (await first(p.fcb))?.headers['x-why'];
    },
  },

  // Delivery, signatures and callback fields compared with what happened (issue 20)
  'delivery-dropped': {
    correct: 1,
    probe: async (ref) => {
      const p = fresh('dropped');
      await send(ref, p.dest);
      return arrivals(p.dest, 3000);
    },
  },
  'retry-signature-expired': {
    correct: { unexpired: true },
    probe: async (ref) => {
      const p = fresh('sig-expired');
      sink.answer(p.dest, { failFirst: 1 });
      await send(ref, p.dest, { 'Svc-Retries': '1' });
      const retry = (await sink.waitFor(p.dest, 2, 10_000))[1];
      return { unexpired: (claimsOf(retry).exp ?? 0) * 1000 > Date.now() };
    },
  },
  'callback-signed-wrong-sub': {
    correct: { subIsTheCallback: true },
    probe: async (ref) => {
      const p = fresh('sig-sub');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      return { subIsTheCallback: claimsOf(await first(p.cb)).sub === p.url(p.cb) };
    },
  },
  'callback-retried-off-by-one': {
    correct: 0,
    probe: async (ref) => {
      const p = fresh('cb-retried');
      await send(ref, p.dest, { 'Svc-Retries': '0', 'Svc-Callback': p.url(p.cb) });
      return decode(await first(p.cb)).retried;
    },
  },
  'source-header-drops-callback-headers': {
    correct: true,
    probe: async (ref) => {
      const p = fresh('src-drops');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      return 'svc-callback' in (decode(await first(p.cb)).sourceHeader as Record<string, unknown>);
    },
  },
  'source-header-forward-renamed': {
    correct: { asSent: true, renamed: false },
    probe: async (ref) => {
      const p = fresh('src-renamed');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb), 'Svc-Forward-X-Probe': 'kept' });
      const sourceHeader = decode(await first(p.cb)).sourceHeader as Record<string, unknown>;
      return { asSent: 'svc-forward-x-probe' in sourceHeader, renamed: 'x-probe' in sourceHeader };
    },
  },
  // The parsed numbers are the same: only the text shows the doubles.
  'callback-integers-as-doubles': {
    correct: false,
    probe: async (ref) => {
      const p = fresh('cb-doubles');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      return /"status":\d+\.0/.test((await first(p.cb))?.body.toString('utf8') ?? '');
    },
  },
  'callback-status-first-attempt': {
    correct: [500, 200],
    probe: async (ref) => {
      const p = fresh('cb-status');
      sink.answer(p.dest, { failFirst: 1 });
      await send(ref, p.dest, { 'Svc-Retries': '1', 'Svc-Callback': p.url(p.cb) });
      const bodies = (await sink.waitFor(p.cb, 2, 10_000)).map(decode);
      return bodies.sort((x, y) => Number(x.retried) - Number(y.retried)).map((body) => body.status);
    },
  },
  'callback-body-raw': {
    correct: Buffer.from('answered ✓!').toString('base64'),
    probe: async (ref) => {
      const p = fresh('cb-raw');
      sink.answer(p.dest, { body: 'answered ✓!' });
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      return decode(await first(p.cb)).body;
    },
  },
  'source-body-unencoded': {
    correct: Buffer.from('payload ✓!').toString('base64'),
    probe: async (ref) => {
      const p = fresh('cb-source-body');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) }, 'payload ✓!');
      return decode(await first(p.cb)).sourceBody;
    },
  },
  'callback-header-content-type-only': {
    correct: ['yes'],
    probe: async (ref) => {
      const p = fresh('cb-header');
      sink.answer(p.dest, { headers: { 'x-answer': 'yes' } });
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      return (decode(await first(p.cb)).header as Record<string, unknown>)['x-answer'];
    },
  },
  'callback-created-at-seconds': {
    correct: { milliseconds: true },
    probe: async (ref) => {
      const p = fresh('cb-created');
      await send(ref, p.dest, { 'Svc-Callback': p.url(p.cb) });
      return { milliseconds: Number(decode(await first(p.cb)).createdAt) > 1e12 };
    },
  },
  'callback-not-before-ignores-delay': {
    correct: 1000,
    probe: async (ref) => {
      const p = fresh('cb-not-before');
      await send(ref, p.dest, { 'Svc-Delay': '1s', 'Svc-Callback': p.url(p.cb) });
      const body = decode(await first(p.cb));
      return Number(body.notBefore) - Number(body.createdAt);
    },
  },
  'callback-max-retries-default': {
    correct: 1,
    probe: async (ref) => {
      const p = fresh('cb-max-retries');
      await send(ref, p.dest, { 'Svc-Retries': '1', 'Svc-Callback': p.url(p.cb) });
      return decode(await first(p.cb)).maxRetries;
    },
  },
};

/** The claims of a request's signature (verified elsewhere: here only what the token says). */
function claimsOf(got: Received | undefined): { jti?: string; exp?: number; sub?: string } {
  return decodeJwt(String(got?.headers['svc-signature'] ?? ''));
}

/**
 * Changes the account's limits through the admin endpoint (area C's), then waits out area A's cache
 * of the account (500 ms) and makes one request, which reads it again.
 */
async function setAccount(ref: RunningReference, patch: Record<string, number>): Promise<void> {
  const admin = ref.target.admin;
  const res = await fetch(`${admin?.url}/account`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${admin?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(patch),
  });
  if (res.status !== 200) throw new Error(`PUT /account answered ${res.status}: ${await res.text()}`);
  await sleep(600);
  await get(ref, '/v2/keys');
}

/**
 * The database path of reference `i`'s Redis URL. Area A's client is meant to use the database after
 * the URL's (src/reference/account/area-redis.ts), but @redis/client lets a URL path of 1 or more
 * override that, so `/N` gives database N, and `/0` (or none) database 1. Skipping `/1` keeps every
 * reference in a database of its own either way: 1, 2, 3, … now, 1, 3, 4, … once the client obeys.
 */
const databasePath = (i: number) => (i === 0 ? 0 : i + 1);

/** A reference of its own database on the file's redis-server, the plan's message size lowered. */
async function startOn(backing: RedisBacking, i: number, faults: readonly MessagingFaultName[]) {
  const url = new URL(backing.url);
  url.pathname = `/${databasePath(i)}`;
  const ref = await startTestReference(backing, {
    redisUrl: url.href,
    areas: ['messaging', 'management'],
    faults,
    messaging: { retryBackoff: { kind: 'base', ms: 10 }, regions: ['eu-central-1', 'us-east-1'] },
  });
  started.push(ref);
  await setAccount(ref, { max_message_size: maxMessageSize });
  return ref;
}

beforeAll(async () => {
  redis = await startTestRedis();
  const backing = redis;
  sink = await startReceiver();
  // Each its own database: databasePath(groups.length) + 1 must stay within redis-server's 16.
  expect(databasePath(groups.length) + 1).toBeLessThan(16);
  const refs = await Promise.all([
    startOn(backing, 0, []),
    ...groups.map((faults, i) => startOn(backing, i + 1, faults)),
  ]);
  clean = refs[0] as RunningReference;
  groups.forEach((faults, i) => {
    for (const fault of faults) faulty.set(fault, refs[i + 1] as RunningReference);
  });
  const keys = await Promise.all(
    refs.map(async (ref) => ((await get(ref, '/v2/keys')).json as { current: string }).current),
  );
  // Signing keys are made on a reference's first start on a database: all different, no database shared.
  expect(new Set(keys).size, 'two references share a Redis database').toBe(refs.length);
});

afterAll(async () => {
  await Promise.all(started.map((ref) => ref.stop()));
  await sink?.close();
  await redis?.stop();
});

describe('messaging fault switches', () => {
  test('have unique names, each naming a rule of the area A catalog, each with a probe and a reference', () => {
    const names = messagingFaults.map((fault) => fault.name);
    expect(new Set(names).size).toBe(names.length);
    const ruleIds = new Set(messagingRuleCatalog.map((rule) => rule.id));
    for (const fault of messagingFaults) {
      expect(ruleIds.has(fault.rule), fault.name).toBe(true);
      expect(fault.area).toBe('messaging');
    }
    expect(Object.keys(probes).sort()).toEqual([...names].sort());
    expect(groups.flat().sort()).toEqual([...names].sort());
  });

  test.each(messagingFaults.map((fault) => fault.name))('%s changes what the service does', async (name) => {
    const { probe, correct } = probes[name];
    const ref = faulty.get(name);
    if (ref === undefined) throw new Error(`no reference runs ${name}`);
    const withoutFault = await probe(clean);
    expect(withoutFault).toEqual(correct);
    const withFault = await probe(ref);
    expect(withFault).not.toEqual(withoutFault);
  });
});
