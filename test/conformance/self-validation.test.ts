/**
 * Self-validation of the key-value suite (issue 3): the reference without faults passes every MUST
 * case, and for every area-B fault switch a run with that switch on reports a failing case linked to
 * the rule the switch breaks. The share caught is the suite's mutation score; it must be 100%.
 * The clean run is the CLI as a user runs it; each fault's run is filtered to its rule, in batches of the
 * programmatic API's runConformance, two batches at a time (test/support/conformance-batch.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { allFaults } from '../../src/reference/reference-areas.ts';
import { expectCaught, type RunResult, runConformance, runFaults } from '../support/self-validation.ts';

// A switch the soak's checker judges (judgedBy: 'soak') no conformance case can see: test/cli/soak.test.ts runs it.
const kvFaults = allFaults.filter((fault) => fault.area === 'kv' && fault.judgedBy === undefined);
const mustFailKinds = new Set(['fail', 'error', 'stale']);
let dir = '';
let clean: RunResult;
let faultRuns = new Map<string, RunResult>();

beforeAll(
  async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-self-validation-'));
    clean = await runConformance(dir, 'kv', []);
    faultRuns = await runFaults(dir, 'kv', kvFaults);
    // One run per switch, two batches at a time: the budget grows with the switches, at the rate the first
    // 65 had as CLI runs (600 s, about 9 s each), not at a flat 600 s that 15 more switches outgrew; and the
    // clean run's own budget before them (self-validation.ts).
  },
  300_000 + kvFaults.length * 9_000,
);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the key-value suite against the reference without faults', () => {
  test('passes: exit code 0 and no MUST case fails', () => {
    const failing = clean.cases.filter((item) => mustFailKinds.has(item.verdict.kind));
    expect(failing.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    expect(clean.cases.length).toBeGreaterThan(50);
    expect(clean.exitCode, clean.output.slice(-2000)).toBe(0);
  });

  test('skips nothing: the reference offers every capability (read-only token, admin hook)', () => {
    const skipped = clean.cases.filter((item) => item.verdict.kind === 'skip');
    expect(skipped.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    const revoke = clean.cases.find((item) => item.id === 'kv.acl.password-reset-revokes');
    expect(revoke?.verdict.kind).toBe('pass');
  });
});

describe('an answer whose content type contradicts its body is judged, not an infrastructure error', () => {
  test('resp2 labelled application/json: the whole suite runs to the end and fails B.format.resp2 (exit 1)', async () => {
    const run = await runConformance(dir, 'kv', ['--fault', 'resp2-labelled-json']);
    expect(run.exitCode, run.output.slice(-2000)).toBe(1);
    expect(run.cases.length).toBe(clean.cases.length);
    expect(run.cases.filter((item) => item.verdict.kind === 'error').map((item) => item.id)).toEqual([]);
    const failed = run.cases.filter((item) => item.verdict.kind === 'fail');
    expect(failed.length).toBeGreaterThan(3);
    expect(failed.filter((item) => item.verdict.rule !== 'B.format.resp2').map((item) => item.id)).toEqual([]);
  }, 300_000);
});

describe('every area-B fault switch is caught (mutation score 100%)', () => {
  test('there are area-B fault switches', () => {
    expect(kvFaults.length).toBeGreaterThan(0);
  });

  test.each(kvFaults.map((fault) => [fault.name, fault] as const))('%s', (_name, fault) => {
    expectCaught(faultRuns.get(fault.name) as RunResult, fault);
  });
});
