/**
 * `svc-harness serve` gives memory back (issue 25): slow SSE subscribers are sent more than the
 * reference holds for one, it drops them all, and once they are gone the process's RSS is back near
 * its idle figure, without a collection forced from outside. Real clients on raw sockets, the real
 * bin in its own process; RSS read from /proc.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest } from '../../src/http/http-client.ts';
import { loadTargetFile } from '../../src/target/read-target.ts';
import { startCli } from '../support/run-cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-serve-memory-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

async function until(test: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await test()) return true;
    await sleep(50);
  }
  return test();
}

/** A subscriber that reads nothing: everything published for it queues in the reference. */
async function stalledSubscriber(url: URL, token: string, channel: string): Promise<Socket> {
  const socket = createConnection({ host: url.hostname, port: Number(url.port) });
  socket.pause();
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    `POST /subscribe/${channel} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
      'accept: text/event-stream\r\ncontent-length: 0\r\n\r\n',
  );
  return socket;
}

describe.runIf(process.platform === 'linux')('svc-harness serve: memory given back', () => {
  it('returns to near its idle RSS after 40 slow subscribers, sent 44 MiB each, are dropped and gone', async () => {
    const file = join(dir, 'target.json');
    const started = startCli(['serve', '--write-target', file], { timeoutMs: 120_000 });
    const sockets: Socket[] = [];
    try {
      expect(await until(() => started.stdout().includes('Stop with Ctrl-C'), 30_000)).toBe(true);
      const pid = started.child.pid ?? 0;
      const target = await loadTargetFile(file);
      const kvUrl = target.kv?.url ?? '';
      const token = target.kv?.token ?? '';
      const call = async (path: string, body?: string) =>
        JSON.parse(
          (
            await httpRequest({
              url: `${kvUrl}${path}`,
              method: body === undefined ? 'GET' : 'POST',
              headers: { authorization: `Bearer ${token}` },
              ...(body !== undefined && { body }),
            })
          ).body.toString(),
        ) as { result: unknown };
      const subscribers = async (channel: string) =>
        Number(((await call(`/pubsub/numsub/${channel}`)).result as [string, number])[1]);

      const message = 'x'.repeat(1024 * 1024);
      /** n subscribers stalled on `channel`, sent 44 MiB each, past the reference's 32 MiB buffer for one and what the kernel takes: all dropped. */
      const burst = async (channel: string, n: number) => {
        const stalled: Socket[] = [];
        for (let i = 0; i < n; i++) stalled.push(await stalledSubscriber(new URL(kvUrl), token, channel));
        sockets.push(...stalled);
        expect(await until(async () => (await subscribers(channel)) === n, 5_000)).toBe(true);
        for (let i = 0; i < 44; i++) await call(`/publish/${channel}`, `${i}:${message}`);
        const peak = rssMb(pid);
        expect(await until(async () => (await subscribers(channel)) === 0, 10_000)).toBe(true);
        for (const socket of stalled) socket.destroy();
        return peak;
      };

      await sleep(500);
      const fresh = rssMb(pid);
      // The idle figure: after one slow subscriber was dropped and the reference settled. The waits are
      // polls with room, not fixed sleeps: on a machine whose cores are busy the settling (a second after
      // the last big exchange, then a collection) comes later, and CI failed a fixed 2.5 s wait that way.
      await burst('warm', 1);
      await until(() => rssMb(pid) <= fresh + 40, 15_000);
      const idle = rssMb(pid);
      const peak = await burst('slow', 40);
      // Back near its fresh figure after the drops, with nothing forced from outside. The same bound; the
      // wait has room for a machine whose cores the other tests fill (CI's unit step once measured 168 MB
      // at 15 s, and the same test alone settled within seconds).
      const settled = await until(() => rssMb(pid) <= Math.max(idle, fresh) + 40, 40_000);
      const after = rssMb(pid);
      const tunables = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((line) => line.startsWith('GLIBC_TUNABLES='));
      const figures = `fresh ${fresh.toFixed(0)} MB, idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${after.toFixed(0)} MB (${tunables ?? 'no GLIBC_TUNABLES'})`;
      expect(settled, figures).toBe(true);
      // And the settling is the reference's own doing: `serve` collects once it has started, and a process
      // that never collected after the drops stays far above that (360 to 424 MB against 111).
      expect(after, figures).toBeLessThanOrEqual(fresh + 40);
    } finally {
      for (const socket of sockets) socket.destroy();
      started.child.kill('SIGTERM');
      await started.finished;
    }
  }, 120_000);
});
