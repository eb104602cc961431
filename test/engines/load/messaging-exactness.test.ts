/**
 * Exact accounting of messaging load, with the sink behind a proxy (the issue: "A target that drops
 * 1 delivery in 40, or delivers 1 in 55 twice, must show exactly those counts"). A real reference
 * (upstash dialect, so the scenarios' `Svc-` headers must be renamed to reach it) delivers to a
 * real HTTP proxy named as the target's `sink.url`; the proxy answers every 40th delivery 200 itself
 * without forwarding it (the message is lost to the sink, delivered as far as the target knows) and
 * forwards every 55th twice (a duplicate, with the same signature: a replay); waiters' requests
 * likewise. The report must show
 * those counts and no others; the default thresholds fail on the lost ones (exit 99).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseLoadSettings } from '../../../src/engines/load/load-settings.ts';
import { runLoad } from '../../../src/engines/load/run-load.ts';
import { type RunningReference, startReference } from '../../../src/reference/reference-service.ts';
import { createReporters } from '../../../src/reporters/registry.ts';
import type { MessagingAccounting, ScenarioResult } from '../../../src/results/load-run.ts';
import { findFreePort } from '../../../src/shared/free-port.ts';
import { closeServer, listenOnLoopback } from '../../support/loopback.ts';

/** The grace the wrapped scenarios wait for what is missing: the lost ones never come. */
const graceS = 4;

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * What the proxy did to deliveries to destinations that answer 2xx (a failing one is left alone) and
 * to waiters' requests.
 */
interface ProxyCounts {
  deliveries: number;
  dropped: number;
  doubled: number;
}

async function startProxy(sinkUrl: string) {
  const counts: ProxyCounts = { deliveries: 0, dropped: 0, doubled: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const path = req.url ?? '/';
      const [, , role, rest = ''] = /^\/([^/]+)\/([^/]+)(.*)$/.exec(path) ?? [];
      const counted = (role === 'dest' && !rest.startsWith('/fail/')) || role === 'waiter';
      const n = counted ? ++counts.deliveries : 0;
      if (counted && n % 40 === 0) {
        counts.dropped++;
        res.writeHead(200).end('ok');
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name),
        ),
      ) as Record<string, string>;
      const forward = async () => {
        const answer = await request(`${sinkUrl}${path}`, { method: req.method as 'POST', headers, body });
        return { status: answer.statusCode, text: await answer.body.text() };
      };
      const answer = await forward();
      if (counted && n % 55 === 0) {
        counts.doubled++;
        await forward();
      }
      res.writeHead(answer.status).end(answer.text);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  const { url } = await listenOnLoopback(server);
  return {
    url,
    counts,
    reset: () => Object.assign(counts, { deliveries: 0, dropped: 0, doubled: 0 }),
    close: () => closeServer(server),
  };
}

let dir: string;
let reference: RunningReference;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let target: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-load-exactness-'));
  reference = await startReference({ dialect: 'upstash', messaging: { retryBackoff: { kind: 'base', ms: 10 } } });
  const sinkPort = await findFreePort();
  proxy = await startProxy(`http://127.0.0.1:${sinkPort}`);
  target = join(dir, 'target.json');
  await writeFile(
    target,
    JSON.stringify({ ...reference.target, sink: { host: '127.0.0.1', port: sinkPort, url: proxy.url } }),
  );
  // The scenarios as they are, with a short grace: what the proxy dropped would be waited for 30 s.
  const scenarios = join(dir, 'scenarios');
  await rm(scenarios, { recursive: true, force: true });
  await mkdir(scenarios);
  for (const name of ['publish-fanout', 'callback-throughput', 'notify-fanout']) {
    const original = pathToFileURL(join(import.meta.dirname, '../../../scenarios', `${name}.ts`)).href;
    await writeFile(
      join(scenarios, `${name}.ts`),
      `import base from '${original}';\nexport default { ...base, sink: { ...base.sink, graceS: ${graceS} } };\n`,
    );
  }
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await reference?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function loadThroughProxy(scenario: string, rate: string) {
  proxy.reset();
  const reportDir = join(dir, scenario);
  const run = await runLoad({
    scenarios: [scenario],
    target,
    scenariosDir: join(dir, 'scenarios'),
    settings: parseLoadSettings({ duration: '5s', rate }),
    reporters: createReporters(['json']),
    reportDir,
  });
  expect(run.scenarios).toHaveLength(1);
  const result = run.scenarios[0] as ScenarioResult;
  const messaging = result.accounting.messaging as MessagingAccounting;
  expect(messaging).toBeDefined();
  return { run, result, messaging };
}

describe('the sink behind a proxy that drops every 40th delivery and doubles every 55th', () => {
  test('publish-fanout: 400 deliveries show exactly 10 lost and 7 duplicated', async () => {
    const { run, result, messaging } = await loadThroughProxy('publish-fanout', '10');
    expect(result.requests).toMatchObject({ sent: 50, completed: 50, failed: 0 });
    expect(messaging.accepted).toBe(50);
    expect(proxy.counts).toEqual({ deliveries: 400, dropped: 10, doubled: 7 });
    expect(messaging.delivery).toMatchObject({
      expected: 400,
      received: 390,
      lost: 10,
      duplicated: 7,
      unexpected: 0,
      badSignatures: 0,
    });
    // Per endpoint, the same counts add up.
    const byTags = messaging.delivery?.byTags ?? [];
    expect(byTags).toHaveLength(8);
    expect(byTags.reduce((sum, entry) => sum + entry.lost, 0)).toBe(10);
    expect(byTags.reduce((sum, entry) => sum + entry.duplicated, 0)).toBe(7);
    expect(byTags.every((entry) => entry.expected === 50)).toBe(true);
    // The doubled requests carried the same signature: verified, and each a replay.
    expect(messaging.signatures).toEqual({ verified: 397, failed: 0, unchecked: 0, replays: 7 });
    expect(messaging.waitedS).toBeGreaterThanOrEqual(graceS - 0.2);
    expect(result.thresholds.find((item) => item.metric === 'messages_lost')).toMatchObject({ ok: false, value: 10 });
    expect(run.exitCode).toBe(99);
    const report = JSON.parse(await readFile(join(dir, 'publish-fanout', 'report.json'), 'utf8')) as {
      load: { scenarios: { messaging: { delivery: { lost: number; duplicated: number } } }[] };
    };
    expect(report.load.scenarios[0]?.messaging.delivery).toMatchObject({ lost: 10, duplicated: 7 });
  }, 90_000);

  test('callback-throughput: the deliveries the proxy touched, and nothing else, are lost or doubled', async () => {
    const { result, messaging } = await loadThroughProxy('callback-throughput', '40');
    expect(result.requests).toMatchObject({ sent: 200, completed: 200, failed: 0 });
    expect(messaging.accepted).toBe(200);
    const { deliveries, dropped, doubled } = proxy.counts;
    // Deliveries to destinations that answer 2xx: one per message that does not fail; 5 % of 200 fail, exactly.
    const failing = (messaging.failureCallbacks?.expected ?? 0) as number;
    expect(failing).toBe(10);
    expect(deliveries).toBe(200 - failing);
    expect(dropped).toBe(Math.floor(deliveries / 40));
    expect(doubled).toBe(Math.floor(deliveries / 55));
    // A failing message is attempted twice (one retry), each attempt called back, then its failure callback.
    expect(messaging.delivery).toMatchObject({
      expected: 200 + failing,
      received: 200 + failing - dropped,
      lost: dropped,
      duplicated: doubled,
      unexpected: 0,
    });
    // The target saw 200 for a delivery the proxy kept: its callback still comes, once.
    expect(messaging.callbacks).toMatchObject({ expected: 200 + failing, lost: 0, duplicated: 0, unexpected: 0 });
    expect(messaging.failureCallbacks).toMatchObject({ expected: failing, lost: 0, duplicated: 0, unexpected: 0 });
    expect(messaging.signatures).toMatchObject({ failed: 0, unchecked: 0, replays: doubled });
    expect(messaging.callbacks?.latencyMs.count).toBe(200 + failing - dropped);
    expect(result.thresholds.find((item) => item.metric === 'messages_lost')).toMatchObject({
      ok: false,
      value: dropped,
    });
  }, 90_000);

  test('notify-fanout: 1,000 waiter requests show exactly 25 lost and 16 duplicated', async () => {
    const { result, messaging } = await loadThroughProxy('notify-fanout', '2');
    expect(result.requests).toMatchObject({ sent: 10, completed: 10, failed: 0 });
    expect(messaging.accepted).toBe(10);
    // Every 55th doubled, except the 440th and 880th, which the 40-rule dropped first.
    expect(proxy.counts).toEqual({ deliveries: 1000, dropped: 25, doubled: 16 });
    expect(messaging.waiters).toMatchObject({
      expected: 1000,
      received: 975,
      lost: 25,
      duplicated: 16,
      unexpected: 0,
      badSignatures: 0,
    });
    expect(messaging.signatures).toMatchObject({ failed: 0, unchecked: 0, replays: 16 });
    // A round is complete only when all 100 of its waiters arrived: the lost ones leave some incomplete.
    expect(messaging.complete?.latencyMs.count).toBeLessThan(10);
  }, 90_000);
});
