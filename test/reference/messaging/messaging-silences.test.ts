/**
 * Every area A and C silence switch names a place where the spec is silent (an OBSERVE rule of its
 * area's catalog, or a `notes:` item), and visibly changes what the reference does: the same probe,
 * run against a reference without switches and one with every switch on, gives the reference's own
 * choice and another. (That no case of the suites fails with a switch on is the CLI's self-validation.)
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { managementRuleCatalog } from '../../../conformance/rules/management-rules.ts';
import { messagingRuleCatalog } from '../../../conformance/rules/messaging-rules.ts';
import type { SilenceSwitch } from '../../../src/reference/fault-registry.ts';
import { managementSilences } from '../../../src/reference/management/management-silences.ts';
import { type MessagingSilenceName, messagingSilences } from '../../../src/reference/messaging/messaging-silences.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { callMessaging } from '../../support/messaging-client.ts';
import { type Received, type Receiver, startReceiver } from '../../support/receiver.ts';
import { setAccountLimits, startTestRedis, startTestReference } from '../../support/reference-fixture.ts';
import { getAccount, mgmt } from '../management/management-client.ts';

type Probe = (ref: RunningReference) => Promise<unknown>;

let redis: RedisBacking | undefined;
let sink: Receiver;
let clean: RunningReference;
let silenced: RunningReference;
let n = 0;

const fresh = (label: string) => `/${label}-${++n}`;
const first = async (path: string): Promise<Received | undefined> => (await sink.waitFor(path, 1, 10_000))[0];
const decode = (got: Received | undefined) =>
  JSON.parse(got?.body.toString('utf8') ?? 'null') as Record<string, unknown>;
const claimsOf = (got: Received | undefined) => decodeJwt(String(got?.headers['svc-signature'] ?? ''));
const send = (ref: RunningReference, path: string, headers: Record<string, string> = {}, body = 'payload') =>
  callMessaging(ref.target, `/v2/publish/${sink.url}${path}`, {
    headers: { 'content-type': 'text/plain', ...headers },
    body,
  });

/** What each switch changes, read so that the reference's own choice and the switch's differ. */
const probes: Record<MessagingSilenceName, Probe> = {
  'publish-answers-202': async (ref) => (await send(ref, fresh('status'))).status,
  'publish-answer-own-shape': async (ref) => Object.keys((await send(ref, fresh('shape'))).json as object).sort(),
  'message-ids-uuid': async (ref) => {
    const path = fresh('uuid');
    await send(ref, `${path}/dest`, { 'Svc-Callback': `${sink.url}${path}/cb` });
    return String(decode(await first(`${path}/cb`)).sourceMessageId).startsWith('msg_');
  },
  'rotate-answers-201': async (ref) => (await callMessaging(ref.target, '/v2/keys/rotate')).status,
  'error-statuses-own': async (ref) =>
    (await callMessaging(ref.target, '/v2/publish/ftp://x.invalid/', { body: 'x' })).status,
  'error-texts-own': async (ref) => (await callMessaging(ref.target, '/v2/queues/no-such-queue-here/pause')).json,
  'retries-header-ignored': async (ref) => {
    const path = fresh('retries');
    sink.answer(path, { status: 500 });
    await send(ref, path, { 'Svc-Retries': '0' });
    await sink.waitFor(path, 2, 4000).catch(() => []);
    return sink.on(path).length > 1;
  },
  'delay-header-ignored': async (ref) => {
    const path = fresh('delay');
    const from = Date.now();
    await send(ref, path, { 'Svc-Delay': '2s' });
    return ((await first(path))?.at ?? 0) - from >= 1900;
  },
  'timeout-header-ignored': async (ref) => {
    const path = fresh('timeout');
    sink.answer(path, { delayMs: 1500 });
    await send(ref, path, { 'Svc-Timeout': '1s', 'Svc-Retries': '1' });
    await sink.waitFor(path, 2, 3000).catch(() => []);
    return sink.on(path).length;
  },
  'deduplication-ignored': async (ref) => {
    const path = fresh('dedup');
    for (let i = 0; i < 2; i++) await send(ref, path, { 'Svc-Deduplication-Id': path });
    await sink.waitFor(path, 2, 1500).catch(() => []);
    return sink.on(path).length;
  },
  'limits-capped': async (ref) => (await send(ref, fresh('capped'), { 'Svc-Delay': '3650d' })).status < 300,
  'oversize-truncated': async (ref) => {
    const path = fresh('oversize');
    const res = await send(ref, path, {}, 'x'.repeat(2000));
    if (res.status >= 300) return res.status;
    return (await first(path))?.body.length;
  },
  'signature-without-jti': async (ref) => {
    const path = fresh('jti');
    await send(ref, path);
    return typeof claimsOf(await first(path)).jti;
  },
  'retry-token-reused': async (ref) => {
    const path = fresh('reused');
    sink.answer(path, { failFirst: 1 });
    await send(ref, path, { 'Svc-Retries': '1' });
    const [a, b] = await sink.waitFor(path, 2, 10_000);
    return a?.headers['svc-signature'] === b?.headers['svc-signature'];
  },
  'signature-body-unpadded': async (ref) => {
    const path = fresh('padding');
    await send(ref, path);
    return String(claimsOf(await first(path)).body).endsWith('=');
  },
  'slower-retries-later-callbacks': async (ref) => {
    const path = fresh('later');
    const dest = `${path}/dest`;
    await send(ref, dest, { 'Svc-Callback': `${sink.url}${path}/cb` });
    const delivered = (await first(dest))?.at ?? 0;
    return ((await first(`${path}/cb`))?.at ?? 0) - delivered >= 400;
  },
  'source-header-delivered-only': async (ref) => {
    const path = fresh('source');
    await send(ref, `${path}/dest`, { 'Svc-Callback': `${sink.url}${path}/cb`, 'Svc-Forward-X-Tag': 't' });
    return Object.keys(decode(await first(`${path}/cb`)).sourceHeader as object)
      .map((name) => name.toLowerCase())
      .filter((name) => name !== 'content-length' && name !== 'host' && name !== 'connection')
      .sort();
  },
  'waiter-omits-unset-timeouts': async (ref) => {
    const event = fresh('waiter').slice(1);
    const waited = await callMessaging(ref.target, `/v2/wait/${event}`, {
      body: { url: `${sink.url}/${event}`, timeout: '1h' },
    });
    return Object.keys((waited.json as { waiter: object }).waiter).sort();
  },
  'waiter-timeout-silent': async (ref) => {
    const event = fresh('deadline').slice(1);
    await callMessaging(ref.target, `/v2/wait/${event}`, {
      body: { url: `${sink.url}/${event}/step`, timeout: '1s', timeoutUrl: `${sink.url}/${event}/timeout` },
    });
    await sink.waitFor(`/${event}/timeout`, 1, 4000).catch(() => []);
    return sink.on(`/${event}/timeout`).length;
  },
  'notify-by-run-answers-202': async (ref) =>
    (await callMessaging(ref.target, `/v2/notify/run-${++n}/event-${n}`, { body: 'x' })).status,
  'notify-data-octet-stream': async (ref) => {
    const event = fresh('octet').slice(1);
    await callMessaging(ref.target, `/v2/wait/${event}`, { body: { url: `${sink.url}/${event}`, timeout: '1h' } });
    await callMessaging(ref.target, `/v2/notify/${event}`, { headers: { 'content-type': 'text/plain' }, body: 'x' });
    return (await first(`/${event}`))?.headers['content-type'] ?? null;
  },
  'plan-timeout-for-calls-only': async (ref) => {
    const path = fresh('plan-timeout');
    await setAccountLimits(ref, { timeout: 1 });
    try {
      sink.answer(path, { delayMs: 1500 });
      await send(ref, path, { 'Svc-Retries': '1' });
      await sink.waitFor(path, 2, 3000).catch(() => []);
      return sink.on(path).length;
    } finally {
      await setAccountLimits(ref, { timeout: 21_600 });
    }
  },
  'queue-operations-own-statuses': async (ref) => {
    const queue = fresh('queue').slice(1);
    const made = await callMessaging(ref.target, '/v2/queues', { body: { queueName: queue, parallelism: 1 } });
    const resumed = await callMessaging(ref.target, `/v2/queues/${queue}/resume`);
    return [made.status, resumed.status];
  },
  'delivery-without-id-headers': async (ref) => {
    const path = fresh('id-headers');
    await send(ref, path);
    const got = await first(path);
    return [got?.headers['svc-message-id'] !== undefined, got?.headers['svc-retried'] !== undefined];
  },
  'url-group-first-endpoint-only': async (ref) => {
    const group = fresh('group').slice(1);
    const endpoints = [{ url: `${sink.url}/${group}/a` }, { url: `${sink.url}/${group}/b` }];
    await callMessaging(ref.target, `/v2/topics/${group}/endpoints`, { body: { endpoints } });
    await callMessaging(ref.target, `/v2/publish/${group}`, { body: 'x' });
    await sink.waitFor(`/${group}/`, 2, 1500).catch(() => []);
    return sink.on(`/${group}/`).length;
  },
};

const observed = new Set(
  [...messagingRuleCatalog, ...managementRuleCatalog].filter((rule) => rule.level === 'OBSERVE').map((rule) => rule.id),
);

function namesASilence(silence: SilenceSwitch): boolean {
  const area = silence.area === 'messaging' ? 'A' : 'C';
  const places = typeof silence.silence === 'string' ? [silence.silence] : silence.silence;
  return places.length > 0 && places.every((place) => namesAPlace(place, area));
}

function namesAPlace(place: string, area: string): boolean {
  return (observed.has(place) && place.startsWith(`${area}.`)) || place.startsWith(`notes: ${area}.`);
}

beforeAll(async () => {
  redis = await startTestRedis();
  sink = await startReceiver();
  const options = (i: number, silences: readonly string[]) => {
    const url = new URL((redis as RedisBacking).url);
    url.pathname = `/${i}`;
    return {
      redisUrl: url.href,
      areas: ['messaging', 'management'] as const,
      silences,
      messaging: { retryBackoff: { kind: 'base', ms: 10 } as const },
    };
  };
  [clean, silenced] = await Promise.all([
    startTestReference(redis, options(0, [])),
    startTestReference(
      redis,
      options(
        2,
        [...messagingSilences, ...managementSilences].map((item) => item.name),
      ),
    ),
  ]);
  // The oversize probe's limit, on both.
  await Promise.all([clean, silenced].map((ref) => setAccountLimits(ref, { max_message_size: 1000 })));
});

afterAll(async () => {
  await Promise.all([clean?.stop(), silenced?.stop()]);
  await sink?.close();
  await redis?.stop();
});

describe('area A and C silence switches', () => {
  test('have unique names, each naming an observed rule or a notes item of its area', () => {
    const all = [...messagingSilences, ...managementSilences];
    expect(new Set(all.map((item) => item.name)).size).toBe(all.length);
    for (const silence of all) expect(namesASilence(silence), `${silence.name}: ${silence.silence}`).toBe(true);
    expect(Object.keys(probes).sort()).toEqual(messagingSilences.map((item) => item.name).sort());
  });

  test.each(messagingSilences.map((item) => item.name))('%s changes what the service does', async (name) => {
    const probe = probes[name];
    expect(await probe(silenced)).not.toEqual(await probe(clean));
  });

  test('management-errors-own answers an unknown index with another status, as text', async () => {
    const path = `/v2/search/${crypto.randomUUID()}`;
    const [own, reference] = await Promise.all([mgmt(silenced, path), mgmt(clean, path)]);
    expect([own.status, own.headers['content-type']]).not.toEqual([
      reference.status,
      reference.headers['content-type'],
    ]);
  });

  test('management-extra-fields adds fields to the account object', async () => {
    const [own, reference] = await Promise.all([getAccount(silenced), getAccount(clean)]);
    expect(Object.keys(own.json as object).length).toBeGreaterThan(Object.keys(reference.json as object).length);
  });
});
