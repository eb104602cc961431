/**
 * Operations the spec does not document but the messaging suite needs to arrange its cases: creating
 * a waiter, enqueueing, creating and resuming a queue, reading a dead letter, the signing keys, URL
 * groups (making one, reading it, publishing to it), and what the limit cases count (queues, dead
 * letters). The
 * built-in `real-world` adapter calls the real service's endpoints (the reference has them); another
 * implementation names a module in its target file (`messaging.adapter`) whose default export is a
 * `MessagingAdapterFactory`. Without one, the cases that need it are skipped with the reason.
 */
import { pathToFileURL } from 'node:url';
import {
  Blocked,
  type CaseContext,
  type HttpResponse,
  harnessError,
  type Target,
} from '../../src/suite-kit/suite-api.ts';
import { isRecord } from './checks.ts';
import { createMessagingClient, type MessagingClient } from './messaging-client.ts';

export interface WaitRequest {
  readonly eventId: string;
  /** The URL the waiter is notified at. */
  readonly url: string;
  /** The workflow run the waiter belongs to. */
  readonly runId: string;
  /** `10s`, `1h`. */
  readonly timeout: string;
  readonly timeoutUrl?: string;
  /** Base64. */
  readonly timeoutBody?: string;
  readonly timeoutHeaders?: Readonly<Record<string, readonly string[]>>;
  readonly headers?: Readonly<Record<string, readonly string[]>>;
}

/** An endpoint of a URL group (topic): its URL and, optionally, its name within the group. */
export interface UrlGroupEndpoint {
  readonly name?: string;
  readonly url: string;
}

/**
 * URL groups (topics): the spec names them (the callback body's topicName and endpointName, the
 * account's max_topics and max_endpoints_per_topic) but not how one is made or published to; the
 * real service's API does it.
 */
export interface UrlGroupSteps {
  /** Adds endpoints to a group, creating it; a refusal blocks the case. */
  upsert(group: string, endpoints: readonly UrlGroupEndpoint[]): Promise<void>;
  /** The same, for a case where a refusal is an outcome (a limit): whether the target took them, and its answer. */
  tryUpsert(group: string, endpoints: readonly UrlGroupEndpoint[]): Promise<TryOutcome>;
  /** The group's endpoints, or undefined when there is no such group. */
  endpoints(group: string): Promise<readonly UrlGroupEndpoint[] | undefined>;
  /** How many groups the target holds. */
  count(): Promise<number>;
  /** Publishes a message to the group (the publish headers as for a URL); a refusal blocks the case. */
  publish(group: string, headers: Readonly<Record<string, string>>, body: string): Promise<void>;
  /** Removes a group (best effort). */
  delete(group: string): Promise<void>;
}

/** The outcome of a step where a refusal is an outcome (a limit): whether the target took it, and its answer. */
export interface TryOutcome {
  readonly accepted: boolean;
  readonly answer: string;
}

/**
 * Queues as the max_queues case needs them: the spec names the limit (the account's max_queues) but
 * not how a queue is made, listed or read; the real service's API does it.
 */
export interface QueueLimitSteps {
  /** Creates a queue (parallelism 1). */
  tryCreate(queue: string): Promise<TryOutcome>;
  /** Enqueues a message (which makes the queue on first use). */
  tryEnqueue(queue: string, destination: string, body: string): Promise<TryOutcome>;
  /** Whether the target holds the queue. */
  exists(queue: string): Promise<boolean>;
  /** How many queues the target holds. */
  count(): Promise<number>;
}

/** The dead letter queue as the max_dlq_size case needs it: how many entries it holds. */
export interface DeadLetterSteps {
  count(): Promise<number>;
}

export interface MessagingAdapter {
  wait(request: WaitRequest): Promise<void>;
  /** Enqueues a message; the headers are the publish headers (callbacks included). */
  enqueue(queue: string, destination: string, headers: Readonly<Record<string, string>>, body: string): Promise<void>;
  createQueue(queue: string, settings: { readonly parallelism: number; readonly paused?: boolean }): Promise<void>;
  resume(queue: string): Promise<void>;
  /** The dead letter named by a failure callback's dlqId, or undefined when there is none. */
  deadLetter(dlqId: string): Promise<unknown>;
  signingKeys(): Promise<{ readonly current: string; readonly next: string }>;
  /** Removes what a case created (best effort). */
  deleteQueue?(queue: string): Promise<void>;
  /** URL groups; the cases that need them are skipped without. */
  readonly urlGroups?: UrlGroupSteps;
  /** Counting and trying queues (the max_queues case); it is skipped without. */
  readonly queues?: QueueLimitSteps;
  /** Counting dead letters (the max_dlq_size case); it is skipped without. */
  readonly deadLetters?: DeadLetterSteps;
}

export type MessagingAdapterFactory = (target: Target) => MessagingAdapter | Promise<MessagingAdapter>;

/**
 * The rule an adapter step that did not work blocks on: the operations it calls are ones the spec
 * does not document, whose statuses it does not show (an OBSERVE rule), so no MUST is blamed.
 */
export const adapterRule = 'A.errors.other-statuses';

/**
 * An adapter step that failed: it arranges a case, it is not under test, so the case is BLOCKED
 * (the target answered; "error" is kept for a target that stopped answering or a harness fault).
 */
function adapterFailure(what: string, status: number, body: string): Blocked {
  return new Blocked(adapterRule, `the messaging adapter could not ${what}: status ${status} ${body.slice(0, 200)}`);
}

const isSuccess = (status: number) => status >= 200 && status <= 299;

/** The JSON of an adapter answer; an answer that is not JSON blocks the case like a refusal. */
function adapterJson(what: string, status: number, body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw adapterFailure(what, status, `(not JSON) ${body}`);
  }
}

function realWorld(ctx: CaseContext): MessagingAdapter {
  const client = createMessagingClient(ctx);
  const expectOk = async (what: string, path: string, request: Parameters<typeof client.call>[1]) => {
    const res = await client.call(path, request);
    // Any 2xx: the real service's statuses for these are not in the spec (a 201 for a 200 is no defect).
    if (!isSuccess(res.status)) throw adapterFailure(what, res.status, res.body.toString('utf8'));
    return res;
  };
  return {
    async wait(request) {
      await expectOk('create a waiter', `/v2/wait/${encodeURIComponent(request.eventId)}`, {
        headers: { [client.h('Workflow-Runid')]: request.runId },
        body: {
          url: request.url,
          timeout: request.timeout,
          ...(request.timeoutUrl !== undefined && { timeoutUrl: request.timeoutUrl }),
          ...(request.timeoutBody !== undefined && { timeoutBody: request.timeoutBody }),
          ...(request.timeoutHeaders !== undefined && { timeoutHeaders: request.timeoutHeaders }),
          ...(request.headers !== undefined && { headers: request.headers }),
        },
      });
    },
    async enqueue(queue, destination, headers, body) {
      await expectOk('enqueue', `/v2/enqueue/${encodeURIComponent(queue)}/${destination}`, { headers, body });
    },
    async createQueue(queue, settings) {
      await expectOk('create a queue', '/v2/queues', {
        body: {
          queueName: queue,
          parallelism: settings.parallelism,
          ...(settings.paused !== undefined && { paused: settings.paused }),
        },
      });
    },
    async resume(queue) {
      await expectOk('resume a queue', `/v2/queues/${encodeURIComponent(queue)}/resume`, {});
    },
    async deadLetter(dlqId) {
      const res = await client.call(`/v2/dlq/${encodeURIComponent(dlqId)}`, { method: 'GET' });
      if (res.status === 404) return undefined;
      if (!isSuccess(res.status)) throw adapterFailure('read a dead letter', res.status, res.body.toString('utf8'));
      return adapterJson('read a dead letter', res.status, res.body.toString('utf8'));
    },
    async signingKeys() {
      const what = 'read the signing keys';
      const res = await expectOk(what, '/v2/keys', { method: 'GET' });
      const keys = adapterJson(what, res.status, res.body.toString('utf8'));
      if (!isRecord(keys) || typeof keys.current !== 'string' || typeof keys.next !== 'string') {
        throw adapterFailure(what, res.status, `(no current and next strings) ${res.body.toString('utf8')}`);
      }
      return { current: keys.current, next: keys.next };
    },
    async deleteQueue(queue) {
      await client.call(`/v2/queues/${encodeURIComponent(queue)}`, { method: 'DELETE' });
    },
    urlGroups: realWorldUrlGroups(client, expectOk),
    queues: realWorldQueues(client, expectOk),
    deadLetters: realWorldDeadLetters(expectOk),
  };
}

type ExpectOk = (what: string, path: string, request: Parameters<MessagingClient['call']>[1]) => Promise<HttpResponse>;

/** A step's answer as a TryOutcome: any 2xx is taken. */
const outcome = (res: HttpResponse): TryOutcome => ({
  accepted: isSuccess(res.status),
  answer: `${res.status} ${res.body.toString('utf8').slice(0, 200)}`,
});

/** How many items a list endpoint of the real service (`GET` of a JSON array) holds. */
async function listLength(expectOk: ExpectOk, what: string, path: string): Promise<number> {
  const res = await expectOk(what, path, { method: 'GET' });
  const body = adapterJson(what, res.status, res.body.toString('utf8'));
  if (!Array.isArray(body)) throw adapterFailure(what, res.status, `(not an array) ${res.body.toString('utf8')}`);
  return body.length;
}

/** The real service's topics API: `/v2/topics/{name}/endpoints`, `/v2/topics`, `/v2/publish/{name}`. */
function realWorldUrlGroups(client: MessagingClient, expectOk: ExpectOk): UrlGroupSteps {
  const endpointsPath = (group: string) => `/v2/topics/${encodeURIComponent(group)}/endpoints`;
  return {
    async upsert(group, endpoints) {
      await expectOk('add endpoints to a URL group', endpointsPath(group), { body: { endpoints } });
    },
    async tryUpsert(group, endpoints) {
      return outcome(await client.call(endpointsPath(group), { body: { endpoints } }));
    },
    async endpoints(group) {
      const what = 'read a URL group';
      const res = await client.call(`/v2/topics/${encodeURIComponent(group)}`, { method: 'GET' });
      if (res.status === 404) return undefined;
      if (!isSuccess(res.status)) throw adapterFailure(what, res.status, res.body.toString('utf8'));
      const body = adapterJson(what, res.status, res.body.toString('utf8'));
      if (!isRecord(body) || !Array.isArray(body.endpoints)) {
        throw adapterFailure(what, res.status, `(no endpoints array) ${res.body.toString('utf8')}`);
      }
      return body.endpoints.filter(isRecord).map((item) => ({
        ...(typeof item.name === 'string' && item.name !== '' && { name: item.name }),
        url: String(item.url),
      }));
    },
    count: () => listLength(expectOk, 'list the URL groups', '/v2/topics'),
    async publish(group, headers, body) {
      await expectOk('publish to a URL group', `/v2/publish/${encodeURIComponent(group)}`, {
        headers: { 'content-type': 'text/plain', ...headers },
        body,
      });
    },
    async delete(group) {
      await client.call(`/v2/topics/${encodeURIComponent(group)}`, { method: 'DELETE' });
    },
  };
}

/** The real service's queues API: upsert `/v2/queues`, `/v2/enqueue/{queue}/{url}`, get and list. */
function realWorldQueues(client: MessagingClient, expectOk: ExpectOk): QueueLimitSteps {
  return {
    async tryCreate(queue) {
      return outcome(await client.call('/v2/queues', { body: { queueName: queue, parallelism: 1 } }));
    },
    async tryEnqueue(queue, destination, body) {
      return outcome(
        await client.call(`/v2/enqueue/${encodeURIComponent(queue)}/${destination}`, {
          headers: { 'content-type': 'text/plain' },
          body,
        }),
      );
    },
    async exists(queue) {
      const res = await client.call(`/v2/queues/${encodeURIComponent(queue)}`, { method: 'GET' });
      if (res.status === 404) return false;
      if (!isSuccess(res.status)) throw adapterFailure('read a queue', res.status, res.body.toString('utf8'));
      return true;
    },
    count: () => listLength(expectOk, 'list the queues', '/v2/queues'),
  };
}

/** The most pages of the dead letter queue the count reads (1,000 entries each), so a count stays bounded. */
const maxDlqPages = 200;

/** The real service's `GET /v2/dlq`: `{messages, cursor}`, paged until there is no cursor. */
function realWorldDeadLetters(expectOk: ExpectOk): DeadLetterSteps {
  return {
    async count() {
      const what = 'list the dead letter queue';
      let total = 0;
      let cursor: string | undefined;
      for (let page = 0; page < maxDlqPages; page++) {
        const query = `count=1000${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
        const res = await expectOk(what, `/v2/dlq?${query}`, { method: 'GET' });
        const body = adapterJson(what, res.status, res.body.toString('utf8'));
        if (!isRecord(body) || !Array.isArray(body.messages)) {
          throw adapterFailure(what, res.status, `(no messages array) ${res.body.toString('utf8').slice(0, 200)}`);
        }
        total += body.messages.length;
        if (typeof body.cursor !== 'string' || body.cursor === '' || body.messages.length === 0) return total;
        cursor = body.cursor;
      }
      throw adapterFailure(what, 200, `more than ${maxDlqPages} pages of dead letters: too many to count`);
    },
  };
}

const loaded = new Map<string, Promise<MessagingAdapterFactory>>();

/** The target's adapter; the case is skipped (with the reason) when the target names none. */
export async function messagingAdapter(ctx: CaseContext): Promise<MessagingAdapter> {
  const name = ctx.target.messaging?.adapter;
  if (name === undefined) {
    ctx.skip(
      'the target names no adapter for operations the spec does not document (messaging.adapter: "real-world" or a module path).',
    );
  }
  if (name === 'real-world') return realWorld(ctx);
  let factory = loaded.get(name);
  if (factory === undefined) {
    factory = import(pathToFileURL(name).href).then((module: { default?: unknown }) => {
      if (typeof module.default !== 'function') {
        throw harnessError('SVC_CONFIG', `messaging.adapter ${name} has no default export that builds an adapter`);
      }
      return module.default as MessagingAdapterFactory;
    });
    loaded.set(name, factory);
  }
  return (await factory)(ctx.target);
}

/** The signing keys from the target file, else from the adapter; undefined when neither has them. */
export async function signingKeysOf(ctx: CaseContext): Promise<{ current: string; next: string } | undefined> {
  const keys = ctx.target.messaging?.signingKeys;
  if (keys !== undefined) return { current: keys.current, next: keys.next };
  if (ctx.target.messaging?.adapter === undefined) return undefined;
  return (await messagingAdapter(ctx)).signingKeys();
}
