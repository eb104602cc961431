import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { probeTarget } from '../../../src/engines/conformance/probe-target.ts';
import type { Target } from '../../../src/target/target.ts';
import { type BadServer, refusedUrl, startGarbageServer, startStallingServer } from './fixtures/bad-servers.ts';
import { type FixtureServer, startFixtureServer } from './fixtures/fixture-server.ts';

const kvTarget = (url: string, token = 'probe-token-1'): Target => ({
  name: 'probe',
  dialect: 'svc',
  kv: { url, token },
});

describe('probeTarget', () => {
  let good: FixtureServer;
  let garbage: BadServer;
  let stalling: BadServer;
  beforeAll(async () => {
    [good, garbage, stalling] = await Promise.all([startFixtureServer(), startGarbageServer(), startStallingServer()]);
  });
  afterAll(() => Promise.all([good.close(), garbage.close(), stalling.close()]));

  test('a target that answers HTTP passes, whatever the status', async () => {
    expect(await probeTarget(kvTarget(good.url, good.token), ['kv'])).toBeUndefined();
    expect(await probeTarget(kvTarget(good.url, 'wrong-token'), ['kv'])).toBeUndefined();
  });

  test('a refused connection is SVC_TARGET_UNREACHABLE, naming target and area', async () => {
    const problem = await probeTarget(kvTarget(await refusedUrl()), ['kv']);
    expect(problem?.code).toBe('SVC_TARGET_UNREACHABLE');
    expect(problem?.message).toMatch(/^target "probe" \(kv\): http:\/\/127\.0\.0\.1:\d+ refused the connection$/);
  });

  test('garbage bytes are SVC_TARGET_GARBAGE', async () => {
    const problem = await probeTarget(kvTarget(garbage.url), ['kv']);
    expect(problem?.code).toBe('SVC_TARGET_GARBAGE');
  });

  test('a stall ends after the timeout', async () => {
    const started = performance.now();
    const problem = await probeTarget(kvTarget(stalling.url), ['kv'], 300);
    expect(problem?.message).toContain('did not answer within 300 ms');
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test('areas the target does not have are not probed', async () => {
    expect(await probeTarget(kvTarget(await refusedUrl()), ['messaging'])).toBeUndefined();
  });
});
