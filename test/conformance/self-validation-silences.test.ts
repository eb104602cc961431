/**
 * Self-validation through the silence switches (issue 35), the mirror of the fault switches: each
 * makes the reference take another legal choice where the spec is silent, and no case of its area may
 * fail, error or go stale: pass, observation, or a skip that says which capability the choice removed.
 * One run per switch over its area (batches of the programmatic API's runConformance), then one CLI run of
 * every area with every switch on, as a user runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SilenceSwitch } from '../../src/reference/fault-registry.ts';
import { allSilences } from '../../src/reference/reference-areas.ts';
import { type RunResult, runBatched, runConformance } from '../support/self-validation.ts';

const mustFailKinds = new Set(['fail', 'error', 'stale']);
let dir = '';
const runs = new Map<string, RunResult>();
let together: RunResult | undefined;

/** Every case that broke with the switches on, with its reason: what a silence must never cause. */
function broken(run: RunResult): string[] {
  return run.cases
    .filter((item) => mustFailKinds.has(item.verdict.kind))
    .map((item) => `${item.id}: ${item.verdict.kind} ${item.verdict.rule ?? ''} ${item.verdict.reason ?? ''}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-self-validation-'));
  // Two pools side by side. A messaging run mostly waits on the sink (28 s of wall time for 4.5 s of CPU
  // alone here), so six batches overlap; a kv or management run keeps a core busy for its few seconds, so
  // two batches beside them (with one, this file was the longest of its step: 364 s of 451 s).
  // With one pool of three CLI runs, this file was CI's long pole: 677 s of a 677 s step.
  const keyed = (silence: SilenceSwitch) => ({
    key: silence.name,
    run: { areas: [silence.area], silences: [silence.name] },
  });
  const waiting = allSilences.filter((silence) => silence.area === 'messaging').map(keyed);
  const busy = allSilences.filter((silence) => silence.area !== 'messaging').map(keyed);
  // The run with every switch on goes beside the pools: most of it waits on the sink too, and after them
  // it was this file's last 60 to 100 s alone.
  const [waited, worked, all] = await Promise.all([
    runBatched(dir, waiting, 6),
    runBatched(dir, busy, 2),
    runConformance(
      dir,
      'kv,messaging,management',
      allSilences.flatMap((silence) => ['--silence', silence.name]),
      360_000,
    ),
  ]);
  for (const [name, run] of [...waited, ...worked]) runs.set(name, run);
  together = all;
}, 1_800_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('every silence switch leaves every case of its area passing (pass, observation or a skip that says why)', () => {
  test('there are silence switches in every area', () => {
    expect(new Set(allSilences.map((silence) => silence.area))).toEqual(new Set(['kv', 'messaging', 'management']));
  });

  test.each(allSilences.map((silence) => [silence.name, silence] as const))('%s', (name) => {
    const run = runs.get(name) as RunResult;
    expect(broken(run), run.output.slice(-1500)).toEqual([]);
    expect(run.cases.length, run.output.slice(-1500)).toBeGreaterThan(5);
    expect(run.exitCode, run.output.slice(-1500)).toBe(0);
  });
});

describe('every silence switch at once', () => {
  test('all three suites pass: exit code 0, no case failing', () => {
    const run = together as RunResult;
    expect(broken(run), run.output.slice(-1500)).toEqual([]);
    expect(new Set(run.cases.map((item) => item.id.split('.')[0]))).toEqual(new Set(['kv', 'messaging', 'management']));
    expect(run.exitCode, run.output.slice(-1500)).toBe(0);
  });
});
