/**
 * The soak's process faults on a real process: a node HTTP server started through a shell (so the
 * server is a grandchild, as under npx), killed and started again, paused and continued, restarted
 * gracefully, crashing on its own, and stopped with nothing left.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { ManagedProcess } from '../../../src/engines/soak/managed-process.ts';
import { findFreePort } from '../../../src/shared/free-port.ts';
import { alive } from '../../support/processes.ts';

const server = join(import.meta.dirname, 'fixtures', 'pid-server.mjs');
let managed: ManagedProcess | undefined;

afterEach(async () => {
  await managed?.stop();
  managed = undefined;
});

async function get(port: number, path = '/', timeoutMs = 2000): Promise<string> {
  const answer = await request(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
  return answer.body.text();
}

async function startServer(): Promise<{ port: number; process: ManagedProcess }> {
  const port = await findFreePort();
  managed = await ManagedProcess.start({
    command: 'bash',
    // `exec` is not used on purpose: the server is the shell's child, as an implementation under npx is.
    args: ['-c', `${process.execPath} ${server}; true`],
    env: { PID_SERVER_PORT: String(port) },
    ready: { url: `http://127.0.0.1:${port}/` },
    stopTimeoutMs: 3000,
  });
  return { port, process: managed };
}

describe('ManagedProcess', () => {
  test('kill: the whole group dies, a new process serves, the timing is in order', async () => {
    const { port, process: target } = await startServer();
    const before = Number(await get(port));
    const timing = await target.kill();
    const after = Number(await get(port));
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
    expect(timing.startedAt).toBeLessThanOrEqual(timing.healedAt);
    expect(timing.healedAt).toBeLessThan(timing.readyAt);
    expect(timing.pidBefore).not.toBe(timing.pidAfter);
    expect(target.unexpectedExits).toEqual([]);
  }, 30_000);

  test('pause: nothing answers while stopped, the same process answers after', async () => {
    const { port, process: target } = await startServer();
    const before = await get(port);
    const paused = target.pause(800);
    await sleep(100);
    expect(target.paused).toBe(true);
    await expect(get(port, '/', 300)).rejects.toThrow();
    const timing = await paused;
    expect(await get(port)).toBe(before);
    expect(timing.healedAt - timing.startedAt).toBeGreaterThanOrEqual(790);
    expect(target.paused).toBe(false);
  }, 30_000);

  test('restart: SIGTERM reaches the server, which says bye; a crash is an unexpected exit', async () => {
    const { port, process: target } = await startServer();
    await target.restart();
    expect(target.recentOutput).toContain('bye');
    expect(await get(port)).toMatch(/^\d+$/);
    await get(port, '/crash');
    await sleep(500);
    expect(target.unexpectedExits).toHaveLength(1);
  }, 30_000);

  test('stop ends the group, also while paused; a process that never gets ready is one line', async () => {
    const { port, process: target } = await startServer();
    const pid = Number(await get(port));
    void target.pause(5000);
    await sleep(100);
    await target.stop();
    expect(alive(pid)).toBe(false);
    await expect(get(port, '/', 500)).rejects.toThrow();
    const never = ManagedProcess.start({
      command: process.execPath,
      args: ['-e', 'setTimeout(() => {}, 60000)'],
      ready: { port: await findFreePort() },
      readyTimeoutMs: 500,
    });
    await expect(never).rejects.toThrow(/was not ready within 0.5 s/);
    const gone = ManagedProcess.start({ command: process.execPath, args: ['-e', 'process.exit(4)'], ready: { port } });
    await expect(gone).rejects.toThrow(/exited before it was ready/);
  }, 30_000);
});
