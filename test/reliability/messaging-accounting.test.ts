/**
 * Nothing accepted is lost: 10,000 messages published concurrently to `svc-harness serve`, a tenth
 * to a destination that always fails, and the reference killed (SIGKILL) halfway and started again
 * on the same Redis and ports. Every accepted message must end delivered, or failed with exactly one
 * failure callback and one dead-letter entry, and the signing keys, a paused queue and a waiter are
 * still there. Duplicates (at least once) are counted and printed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RedisBacking } from '../../src/reference/redis/redis-backing.ts';
import { findFreePort } from '../../src/shared/free-port.ts';
import { waitFor } from '../support/processes.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { startTestRedis } from '../support/reference-fixture.ts';
import { type StartedProcess, startCli } from '../support/run-cli.ts';

const total = 10_000;
const failingShare = 10;
const inFlight = 64;

let redis: RedisBacking;
let sink: Receiver;
let dir: string;
let serve: StartedProcess | undefined;
const agent = new Agent({ connections: inFlight });

interface Ports {
  readonly messaging: number;
  readonly management: number;
  readonly admin: number;
}

async function startServe(ports: Ports, targetFile: string): Promise<StartedProcess> {
  const started = startCli(
    [
      'serve',
      '--redis-url',
      redis.url,
      '--messaging-port',
      String(ports.messaging),
      '--management-port',
      String(ports.management),
      '--admin-port',
      String(ports.admin),
      '--retry-backoff',
      '5ms',
      '--write-target',
      targetFile,
    ],
    { timeoutMs: 300_000 },
  );
  // 90 s, and its exit or its stderr said: a loaded CI machine's serve had printed nothing within 30 s.
  let exited = false;
  void started.finished.then(() => {
    exited = true;
  });
  const up = await waitFor(() => exited || started.stdout().includes('Stop with Ctrl-C'), 90_000);
  if (!up || !started.stdout().includes('Stop with Ctrl-C')) {
    throw new Error(
      `serve did not start${exited ? ' (it exited)' : ''}: ${started.stdout().slice(-1000)}\n${started.stderr().slice(-2000)}`,
    );
  }
  return started;
}

beforeAll(async () => {
  redis = await startTestRedis();
  sink = await startReceiver();
  sink.answer('/fail', { status: 500, body: 'always down' });
  dir = await mkdtemp(join(tmpdir(), 'svc-accounting-'));
});

afterAll(async () => {
  serve?.child.kill('SIGKILL');
  await agent.close();
  await sink?.close();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test(`${total} messages, a tenth failing, one SIGKILL of the reference: every accepted message is accounted for`, async () => {
  const ports = {
    messaging: await findFreePort(),
    management: await findFreePort(),
    admin: await findFreePort(),
  };
  const targetFile = join(dir, 'target.json');
  serve = await startServe(ports, targetFile);
  const target = JSON.parse(await readFile(targetFile, 'utf8')) as {
    messaging: { url: string; token: string };
    admin: { url: string; token: string };
  };
  // The plan's 500 requests per second would refuse most of a burst: raise it for this test.
  const raised = await request(`${target.admin.url}/account`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${target.admin.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ max_requests_per_second: 1_000_000, max_global_parallelism: 400 }),
  });
  expect(raised.statusCode).toBe(200);
  await raised.body.dump();
  await new Promise((resolve) => setTimeout(resolve, 600));

  // State besides messages that must survive the kill: the signing keys, a paused queue, a waiter.
  const call = async (path: string, method: 'GET' | 'POST', body?: unknown) => {
    const res = await request(`${target.messaging.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${target.messaging.token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  const keysBefore = (await call('/v2/keys', 'GET')).json;
  expect((await call('/v2/queues', 'POST', { queueName: 'kept', parallelism: 3, paused: true })).status).toBe(200);
  expect((await call('/v2/wait/kept-event', 'POST', { url: `${sink.url}/waiter`, timeout: '1h' })).status).toBe(201);

  const accepted = new Map<string, 'ok' | 'fail'>();
  let refused = 0;
  let unanswered = 0;
  let next = 0;
  let killed = false;
  let restarting: Promise<void> | undefined;

  const publishOne = async (index: number): Promise<void> => {
    const failing = index % failingShare === 0;
    const destination = failing ? `${sink.url}/fail/${index}` : `${sink.url}/ok/${index % 8}/${index}`;
    for (;;) {
      await restarting;
      try {
        const res = await request(`${target.messaging.url}/v2/publish/${destination}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${target.messaging.token}`,
            'Svc-Retries': '1',
            ...(failing && { 'Svc-Failure-Callback': `${sink.url}/fcb/${index}` }),
          },
          body: `message ${index}`,
          dispatcher: agent,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) {
          refused += 1;
          throw new Error(`publish answered ${res.statusCode}: ${text}`);
        }
        accepted.set((JSON.parse(text) as { messageId: string }).messageId, failing ? 'fail' : 'ok');
        return;
      } catch (error) {
        if (!killed || accepted.size >= total) throw error;
        // The reference is down: the message is not accepted (it may still have been stored; an
        // answer lost to the kill is counted as unanswered) and is published again after the restart.
        unanswered += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };

  const worker = async () => {
    while (next < total) {
      const index = next++;
      await publishOne(index);
      if (!killed && accepted.size >= total / 2) {
        killed = true;
        const old = serve as StartedProcess;
        restarting = (async () => {
          old.child.kill('SIGKILL');
          await old.finished;
          serve = await startServe(ports, targetFile);
        })();
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  await restarting;
  expect(killed).toBe(true);
  expect(accepted.size).toBe(total);

  // Wait until every accepted message is accounted for, or the deadline passes.
  const deliveredIds = () => new Set(sink.on('/ok/').map((got) => String(got.headers['svc-message-id'])));
  const failureSources = () => {
    const bySource = new Map<string, Set<string>>();
    for (const got of sink.on('/fcb/')) {
      const body = JSON.parse(got.body.toString()) as { sourceMessageId: string; dlqId: string };
      const ids = bySource.get(body.sourceMessageId) ?? new Set<string>();
      ids.add(String(got.headers['svc-message-id']));
      bySource.set(body.sourceMessageId, ids);
    }
    return bySource;
  };
  const missing = () => {
    const delivered = deliveredIds();
    const failed = failureSources();
    return [...accepted].filter(([id, kind]) => (kind === 'ok' ? !delivered.has(id) : !failed.has(id)));
  };
  await waitFor(() => missing().length === 0, 120_000);

  const delivered = deliveredIds();
  const failed = failureSources();
  const deliveries = sink.on('/ok/').length;
  const dlq = await request(`${target.messaging.url}/v2/dlq`, {
    headers: { authorization: `Bearer ${target.messaging.token}` },
  });
  const entries = ((await dlq.body.json()) as { messages: { messageId: string; dlqId: string }[] }).messages;
  const entriesBySource = new Map<string, string[]>();
  for (const entry of entries)
    entriesBySource.set(entry.messageId, [...(entriesBySource.get(entry.messageId) ?? []), entry.dlqId]);
  const failedIds = [...accepted].filter(([, kind]) => kind === 'fail').map(([id]) => id);
  const okIds = [...accepted].filter(([, kind]) => kind === 'ok').map(([id]) => id);
  const unknownDeliveries = [...delivered].filter((id) => !accepted.has(id)).length;
  process.stdout.write(
    `accounting: accepted ${accepted.size} (${okIds.length} to working, ${failedIds.length} to failing destinations), ` +
      `${unanswered} publishes unanswered during the restart, ${refused} refused; ` +
      `delivered ${okIds.filter((id) => delivered.has(id)).length} in ${deliveries} requests ` +
      `(${deliveries - delivered.size} duplicates, ${unknownDeliveries} of publishes whose answer was lost), ` +
      `failed ${failedIds.filter((id) => failed.has(id)).length} with ${entries.length} dead letters; missing ${missing().length}\n`,
  );
  expect(missing()).toEqual([]);
  expect(refused).toBe(0);
  expect((await call('/v2/keys', 'GET')).json).toEqual(keysBefore);
  expect((await call('/v2/queues/kept', 'GET')).json).toMatchObject({ parallelism: 3, paused: true });
  expect((await call('/v2/waiters/kept-event', 'GET')).json).toHaveLength(1);
  for (const id of failedIds) {
    // Exactly one failure callback message per failed message (a redelivery of that one callback
    // after the kill has the same message id), and exactly one dead-letter entry.
    expect(failed.get(id)?.size, id).toBe(1);
    expect(entriesBySource.get(id)?.length, id).toBe(1);
    expect(delivered.has(id)).toBe(false);
  }
}, 300_000);

test('a message whose delivery was in flight when the reference was killed is delivered again after the restart', async () => {
  serve?.child.kill('SIGKILL');
  await serve?.finished;
  const ports = { messaging: await findFreePort(), management: await findFreePort(), admin: await findFreePort() };
  const targetFile = join(dir, 'target-inflight.json');
  serve = await startServe(ports, targetFile);
  const target = JSON.parse(await readFile(targetFile, 'utf8')) as { messaging: { url: string; token: string } };
  // The destination holds its answer: the attempt is in flight when the kill comes.
  sink.answer('/slow', { delayMs: 5000 });
  const res = await request(`${target.messaging.url}/v2/publish/${sink.url}/slow/1`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.messaging.token}` },
    body: 'in flight',
  });
  const { messageId } = (await res.body.json()) as { messageId: string };
  await sink.waitFor('/slow', 1, 10_000);
  serve.child.kill('SIGKILL');
  await serve.finished;
  sink.answer('/slow', {});
  serve = await startServe(ports, targetFile);
  const again = await sink.waitFor('/slow', 2, 20_000);
  expect(again.map((got) => got.headers['svc-message-id'])).toEqual([messageId, messageId]);
}, 240_000);
