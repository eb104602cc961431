/**
 * The soak's network faults through a real toxiproxy (built from the Go module proxy into the cache, or
 * found) in front of a real HTTP server: latency added and healed, a partition that answers nothing
 * and closes nothing, resets, a bandwidth cap, two faults on one path healed apart.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NetworkFaults } from '../../../src/engines/soak/network-faults.ts';
import { cachedToxiproxyPath, findToxiproxy, Toxiproxy } from '../../../src/engines/soak/toxiproxy.ts';
import { type NetworkFaultSpec, parseFaultSpec } from '../../../src/shared/fault-spec.ts';

let upstream: Server;
let server: Toxiproxy;
let faults: NetworkFaults;
let url: string;
const body = 'x'.repeat(20 * 1024);

beforeAll(async () => {
  upstream = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  server = await Toxiproxy.start(await findToxiproxy(), 1);
  const proxy = await server.proxy('target', `127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  faults = new NetworkFaults(server, new Map([['target', [proxy]]]));
  url = `http://${proxy.listen}/`;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  upstream?.close();
});

const spec = (text: string) => parseFaultSpec(text) as NetworkFaultSpec;

/** A request on a new connection: its time, or how it failed. */
async function timed(timeoutMs = 3000): Promise<{ ms: number; ok: boolean; error?: string }> {
  const started = performance.now();
  try {
    const answer = await request(url, { reset: true, signal: AbortSignal.timeout(timeoutMs) });
    const text = await answer.body.text();
    return { ms: performance.now() - started, ok: text.length === body.length };
  } catch (error) {
    return { ms: performance.now() - started, ok: false, error: (error as Error).name };
  }
}

describe('findToxiproxy', () => {
  test('TOXIPROXY_BINARY naming nothing is one line; the cache is used when PATH has none', async () => {
    await expect(findToxiproxy({ TOXIPROXY_BINARY: '/nope/toxiproxy-server' })).rejects.toThrow(
      /^TOXIPROXY_BINARY names \/nope\/toxiproxy-server, which does not exist$/,
    );
    const cache = await mkdtemp(join(tmpdir(), 'svc-toxiproxy-cache-'));
    try {
      const cached = cachedToxiproxyPath({ SVC_HARNESS_CACHE: cache });
      await mkdir(dirname(cached), { recursive: true });
      await writeFile(cached, '');
      expect(await findToxiproxy({ PATH: '', SVC_HARNESS_CACHE: cache })).toBe(cached);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});

describe('NetworkFaults on toxiproxy', () => {
  test('latency 300ms: every answer at least 300 ms later; healed, it answers', async () => {
    const latency = spec('latency 300ms for 5s every 1m');
    await faults.inject(latency, 'f1-1');
    const slow = await timed();
    expect(slow.ok).toBe(true);
    expect(slow.ms).toBeGreaterThanOrEqual(290);
    await faults.heal(latency, 'f1-1');
    expect((await timed()).ok).toBe(true);
  });

  test('partition: nothing answers and nothing is refused (a timeout, not a reset); healed, it answers', async () => {
    const partition = spec('partition 5s every 1m');
    await faults.inject(partition, 'f2-1');
    const cut = await timed(700);
    expect(cut.ok).toBe(false);
    expect(cut.error).toMatch(/Timeout|Abort/);
    expect(cut.ms).toBeGreaterThanOrEqual(650);
    await faults.heal(partition, 'f2-1');
    expect((await timed()).ok).toBe(true);
  });

  test('reset: the request fails at once; a bandwidth cap of 10KB/s makes 20 KB take over a second', async () => {
    const reset = spec('reset for 5s every 1m');
    await faults.inject(reset, 'f3-1');
    const refused = await timed();
    expect(refused.ok).toBe(false);
    expect(refused.error).not.toMatch(/Timeout|Abort/);
    await faults.heal(reset, 'f3-1');
    const bandwidth = spec('bandwidth 10KB/s for 5s every 1m');
    await faults.inject(bandwidth, 'f4-1');
    const capped = await timed(10_000);
    expect(capped.ok).toBe(true);
    expect(capped.ms).toBeGreaterThanOrEqual(1000);
    await faults.heal(bandwidth, 'f4-1');
  }, 30_000);

  test('two faults on one path heal apart; healAll removes what is left', async () => {
    const latency = spec('latency 300ms for 5s every 1m');
    const partition = spec('partition 5s every 1m');
    await faults.inject(latency, 'f5-1');
    await faults.inject(partition, 'f6-1');
    await faults.heal(partition, 'f6-1');
    const still = await timed();
    expect(still.ok).toBe(true);
    expect(still.ms).toBeGreaterThanOrEqual(290);
    await faults.healAll();
    await expect(faults.heal(latency, 'f5-1')).rejects.toThrow(/404/);
    expect((await timed()).ok).toBe(true);
  });
});
