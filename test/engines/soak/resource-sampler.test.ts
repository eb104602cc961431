/**
 * The sampler on real processes: a server that leaks a known 20 MB a second, started through a shell
 * (its group is two processes, summed), killed and started again mid-way; the slope fitted across the
 * two lifetimes is the leak's, not the kill's drop. A group that is gone is skipped, never thrown.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { ManagedProcess } from '../../../src/engines/soak/managed-process.ts';
import { groupUsage } from '../../../src/engines/soak/process-group.ts';
import { sampleIntervalMs, startResourceSampler } from '../../../src/engines/soak/resource-sampler.ts';
import { trendSeries } from '../../../src/results/soak-trends.ts';
import { findFreePort } from '../../../src/shared/free-port.ts';

const leakServer = join(import.meta.dirname, 'fixtures', 'leak-server.mjs');
let managed: ManagedProcess | undefined;

afterEach(async () => {
  await managed?.stop();
  managed = undefined;
});

describe('the resource sampler', () => {
  test('every 5 s, or 30 samples over a short load, never under 250 ms', () => {
    expect(sampleIntervalMs(3_600_000)).toBe(5000);
    expect(sampleIntervalMs(150_000)).toBe(5000);
    expect(sampleIntervalMs(9000)).toBe(300);
    expect(sampleIntervalMs(3000)).toBe(250);
  });

  test('a process leaking 20 MB/s, killed mid-way: two lifetimes, one slope near the leak, the harness beside it', async () => {
    const port = await findFreePort();
    managed = await ManagedProcess.start({
      command: 'bash',
      // Not `exec`: the server is the shell's child, and the group is both.
      args: ['-c', `${process.execPath} ${leakServer}; true`],
      env: { LEAK_PORT: String(port), LEAK_MB_PER_S: '20' },
      ready: { url: `http://127.0.0.1:${port}/` },
      stopTimeoutMs: 3000,
    });
    const target = managed;
    const pgid = target.pid as number;
    const usage = groupUsage(pgid);
    expect(usage?.pids.length).toBeGreaterThanOrEqual(2);
    expect(usage?.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    const sampler = startResourceSampler({ intervalMs: 200, group: () => (target.ready ? target.pid : undefined) });
    await sleep(2500);
    await target.kill();
    await sleep(2500);
    const samples = sampler.stop();
    const implementation = trendSeries('implementation', samples.implementation ?? []);
    const harness = trendSeries('harness', samples.harness);
    const summary = JSON.stringify({ slope: implementation.slope, points: implementation.points.length });
    expect(implementation.lifetimes, summary).toBe(2);
    expect(implementation.points.length, summary).toBeGreaterThan(15);
    // 20 MB/s is 72,000 MB/h; a wide band for a loaded machine (a tick late, a GC's pause), but of the
    // leak's sign and size: one line through the kill's drop would be far below it.
    const slope = implementation.slope?.slope ?? Number.NaN;
    expect(slope, summary).toBeGreaterThan(72_000 * 0.5);
    expect(slope, summary).toBeLessThan(72_000 * 1.5);
    expect(implementation.slope?.lower, summary).toBeGreaterThan(0);
    // The leak's own RSS: tens of MB by the end of each lifetime.
    expect(Math.max(...implementation.points.map((point) => point.rssMb))).toBeGreaterThan(40);
    expect(harness.lifetimes).toBe(1);
    expect(harness.points.length).toBeGreaterThan(15);
    expect(harness.points[0]?.rssMb).toBeGreaterThan(10);
    expect(harness.cpuMeanCores).toBeGreaterThanOrEqual(0);
    // Stopped is stopped: no sample after.
    await sleep(300);
    expect(sampler.stop().harness).toHaveLength(samples.harness.length);
  }, 30_000);

  test('a group that is gone is skipped, not thrown; no group is the harness alone', async () => {
    const gone = startResourceSampler({ intervalMs: 50, group: () => 2 ** 30 });
    const none = startResourceSampler({ intervalMs: 50 });
    await sleep(300);
    const samples = gone.stop();
    expect(samples.implementation).toEqual([]);
    expect(samples.harness.length).toBeGreaterThan(2);
    expect(none.stop().implementation).toBeUndefined();
  });
});
