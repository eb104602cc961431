/**
 * The nemesis on a compressed schedule against a real server (started by ManagedProcess) behind a real
 * toxiproxy: a kill, a pause and added latency done and healed at their times and written down as they
 * happened; an abort heals what is on at once; `settled` waits for what is on; a fault with nothing to
 * act on is written down, not thrown.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { faultSchedule } from '../../../src/engines/soak/fault-schedule.ts';
import { ManagedProcess } from '../../../src/engines/soak/managed-process.ts';
import { runNemesis, startNemesis } from '../../../src/engines/soak/nemesis.ts';
import { NetworkFaults } from '../../../src/engines/soak/network-faults.ts';
import { findToxiproxy, Toxiproxy } from '../../../src/engines/soak/toxiproxy.ts';
import type { FaultChange } from '../../../src/results/reporter.ts';
import { parseFaultSpec } from '../../../src/shared/fault-spec.ts';
import { findFreePort } from '../../../src/shared/free-port.ts';

let managed: ManagedProcess;
let proxyServer: Toxiproxy;
let network: NetworkFaults;
let through: string;

beforeAll(async () => {
  const port = await findFreePort();
  managed = await ManagedProcess.start({
    command: process.execPath,
    args: [join(import.meta.dirname, 'fixtures', 'pid-server.mjs')],
    env: { PID_SERVER_PORT: String(port) },
    ready: { url: `http://127.0.0.1:${port}/` },
  });
  proxyServer = await Toxiproxy.start(await findToxiproxy(), 1);
  const proxy = await proxyServer.proxy('target', `127.0.0.1:${port}`);
  network = new NetworkFaults(proxyServer, new Map([['target', [proxy]]]));
  through = `http://${proxy.listen}/`;
}, 120_000);

afterAll(async () => {
  await managed?.stop();
  await proxyServer?.stop();
});

async function answerMs(timeoutMs = 2000): Promise<number> {
  const started = performance.now();
  const answer = await request(through, { reset: true, signal: AbortSignal.timeout(timeoutMs) });
  await answer.body.text();
  return performance.now() - started;
}

const timeline = (texts: string[], durationMs: number) => faultSchedule(texts.map(parseFaultSpec), durationMs, 1);

describe('runNemesis', () => {
  test('a kill, a pause and latency, each done at its time and healed, as they happened', async () => {
    const pidBefore = managed.pid;
    const origin = Date.now();
    const changes: FaultChange[] = [];
    const done = await runNemesis(
      timeline(
        ['kill every 10s after 300ms', 'pause 700ms every 10s after 1500ms', 'latency 300ms for 1s every 10s after 1s'],
        3000,
      ),
      origin,
      { process: managed, network, onChange: (change) => changes.push(change) },
      new AbortController().signal,
    );
    // Told as they happened, in time order, the network fault with its path.
    expect(changes.map((change) => `${change.id} ${change.edge}`)).toEqual([
      'f1-1 start',
      'f1-1 end',
      'f3-1 start',
      'f2-1 start',
      // The latency ends at 2 s sharp; the pause, begun at 1.5 s or later (after the kill's start-up), at 2.2 s or later.
      'f3-1 end',
      'f2-1 end',
    ]);
    expect(changes.find((change) => change.id === 'f3-1')?.path).toBe('target');
    expect(changes[0]?.elapsedS).toBeGreaterThanOrEqual(0.3);
    expect(done.map((item) => [item.id, item.action, item.error])).toEqual([
      ['f1-1', 'kill', undefined],
      ['f3-1', 'latency', undefined],
      ['f2-1', 'pause', undefined],
    ]);
    const [kill, latency, pause] = done;
    expect(kill?.startAt).toBeGreaterThanOrEqual(origin + 300);
    expect(kill?.downUntil).toBeLessThanOrEqual(kill?.healedAt ?? 0);
    expect(managed.pid).not.toBe(pidBefore);
    expect((latency?.healedAt ?? 0) - origin).toBeGreaterThanOrEqual(1990);
    expect((pause?.healedAt ?? 0) - (pause?.startAt ?? 0)).toBeGreaterThanOrEqual(690);
    expect(managed.paused).toBe(false);
    expect(await answerMs()).toBeLessThan(2000);
    expect(managed.unexpectedExits).toEqual([]);
  }, 30_000);

  test('an abort heals what is on at once: a partition and a pause cut short, the server answering after', async () => {
    const abort = new AbortController();
    const origin = Date.now();
    setTimeout(() => abort.abort(), 800);
    const done = await runNemesis(
      timeline(
        ['partition 20s every 60s after 100ms', 'pause 20s every 60s after 200ms', 'kill every 60s after 500ms'],
        60_000,
      ),
      origin,
      { process: managed, network },
      abort.signal,
    );
    expect(Date.now() - origin).toBeLessThan(5000);
    expect(done.map((item) => [item.id, item.cut])).toEqual([
      ['f1-1', true],
      ['f2-1', true],
    ]);
    expect(managed.paused).toBe(false);
    expect(await answerMs()).toBeLessThan(2000);
  }, 30_000);

  test('settled() waits for the faults on now to be healed, not for the timeline to end', async () => {
    const origin = Date.now();
    const abort = new AbortController();
    const run = startNemesis(
      timeline(['latency 100ms for 1500ms every 60s after 100ms', 'pause 600ms every 60s after 200ms'], 60_000),
      origin,
      { process: managed, network },
      abort.signal,
    );
    // Nothing on before the first start: settled at once.
    await run.settled();
    expect(Date.now() - origin).toBeLessThan(100);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await run.settled();
    // Both were on at 700 ms: settled once the later heal came (the latency's end at 1.6 s), the pause continued.
    expect(Date.now() - origin).toBeGreaterThanOrEqual(1590);
    expect(managed.paused).toBe(false);
    abort.abort();
    const done = await run.done;
    expect(done.map((item) => [item.id, item.cut])).toEqual([
      ['f1-1', undefined],
      ['f2-1', undefined],
    ]);
    expect(await answerMs()).toBeLessThan(2000);
  }, 30_000);

  test('a fault with nothing to act on is written down with its reason, and the others are done', async () => {
    const done = await runNemesis(
      timeline(['kill every 10s after 0s', 'latency 50ms for 200ms every 10s after 0s'], 500),
      Date.now(),
      { network },
      new AbortController().signal,
    );
    expect(done.find((item) => item.action === 'kill')?.error).toMatch(/no process of the soak’s own/);
    expect(done.find((item) => item.action === 'latency')?.error).toBeUndefined();
  });
});
