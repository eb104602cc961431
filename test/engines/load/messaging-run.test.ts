/**
 * Messaging scenarios in a load run: a target without a messaging area, or whose remote messaging
 * area has no sink it could call back, leaves them out with a reason (silently in the main job);
 * an interrupted run still accounts for what arrived, without waiting out the grace.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openRunContext, readRunTargets } from '../../../src/engines/context/run-context.ts';
import { parseLoadSettings } from '../../../src/engines/load/load-settings.ts';
import { loadPart, runLoad } from '../../../src/engines/load/run-load.ts';
import { type RunningReference, startReference } from '../../../src/reference/reference-service.ts';
import type { ScenarioResult } from '../../../src/results/load-run.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-load-messaging-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function targetFile(name: string, target: object): Promise<string> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ name, ...target }));
  return file;
}

const settings = parseLoadSettings({ duration: '1s', rate: '5' });

describe('left out with a reason', () => {
  test('a target without a messaging area: a problem line per scenario; the main job says nothing', async () => {
    const target = await targetFile('kv-only', { kv: { url: 'http://127.0.0.1:9', token: 'kv-token-123456' } });
    const run = await runLoad({
      scenarios: ['publish-fanout', 'notify-fanout'],
      target,
      settings,
      reporters: [],
      reportDir: join(dir, 'kv-only'),
    });
    expect(run.scenarios).toEqual([]);
    expect(run.problems).toEqual([
      'publish-fanout: the target has no messaging area, which the scenario loads',
      'notify-fanout: the target has no messaging area, which the scenario loads',
    ]);
    expect(run.exitCode).toBe(2);
    // The main job's load part (runMainJob calls it so) leaves them out without a word.
    const context = await openRunContext('run', readRunTargets(target), { reportDir: join(dir, 'kv-only-quiet') });
    const quiet = await loadPart({ scenarios: ['publish-fanout'], settings, onlySupported: true }, context).finally(
      () => context.close(),
    );
    expect(quiet.problems).toEqual([]);
    expect(quiet.scenarios).toEqual([]);
  });

  test('a remote messaging area without sink settings: it could not call a loopback sink back', async () => {
    const target = await targetFile('remote', {
      messaging: { url: 'https://messaging.example.test', token: 'messaging-token-123456' },
    });
    const run = await runLoad({
      scenarios: ['callback-throughput'],
      target,
      settings,
      reporters: [],
      reportDir: join(dir, 'remote'),
    });
    expect(run.scenarios).toEqual([]);
    expect(run.problems).toEqual([
      'callback-throughput: the target has no sink (sink.url in the target file, or --sink-url): its messaging area at messaging.example.test cannot call back a sink on loopback',
    ]);
    // Sink settings that name no URL or host of their own do not make a loopback sink reachable.
    const threadsOnly = await runLoad({
      scenarios: ['callback-throughput'],
      target,
      settings,
      sink: { threads: 2 },
      reporters: [],
      reportDir: join(dir, 'remote-threads'),
    });
    expect(threadsOnly.problems).toHaveLength(1);
  });
});

describe('against the reference', () => {
  let reference: RunningReference;
  beforeAll(async () => {
    reference = await startReference({ messaging: { retryBackoff: { kind: 'base', ms: 10 } } });
  }, 120_000);
  afterAll(() => reference?.stop());

  test('interrupted: what arrived is accounted at once, without the grace', async () => {
    const target = await targetFile('reference', reference.target);
    const controller = new AbortController();
    setTimeout(() => controller.abort('SIGINT'), 2500);
    const started = Date.now();
    const run = await runLoad({
      scenarios: ['publish-fanout'],
      target,
      settings: parseLoadSettings({ duration: '30s', rate: '10' }),
      reporters: [],
      reportDir: join(dir, 'interrupted'),
      signal: controller.signal,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.aborted).toContain('interrupted');
    const result = run.scenarios[0] as ScenarioResult;
    expect(result.problem).toContain('interrupted');
    const messaging = result.accounting.messaging;
    expect(messaging?.accepted).toBeGreaterThan(5);
    expect(messaging?.accepted).toBeLessThan(300);
    expect(messaging?.waitedS).toBeLessThan(1);
    const delivery = messaging?.delivery;
    expect(delivery?.expected).toBe((messaging?.accepted ?? 0) * 8);
    expect(delivery?.received).toBeGreaterThan(0);
    expect((delivery?.received ?? 0) + (delivery?.lost ?? 0)).toBe(delivery?.expected);
  }, 60_000);
});
