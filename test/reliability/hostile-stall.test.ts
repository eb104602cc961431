/**
 * A target that answers the first ping and then stops answering: the conformance run waits out three
 * cases, each for the --timeout it was given, and ends the rest at once as errors (register-cases.ts
 * `stalledAfterCases`), exit code 2. A file of its own, since its run waits, so it runs beside the other
 * hostile targets' tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stalledAfterCases } from '../../src/engines/conformance/register-cases.ts';
import { conformanceAgainstHostile } from '../support/hostile-conformance.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-hostile-stall-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a hostile target after a good first ping', () => {
  test('a target that stops answering: three cases wait, the rest end at once as errors', async () => {
    const { run, report, cases } = await conformanceAgainstHostile(dir, 'stall', {}, {}, ['--timeout', '2s']);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(report.gate).toBe('error');
    expect(cases.every((item) => item.verdict.kind === 'error' || item.verdict.kind === 'skip')).toBe(true);
    const waited = cases.filter(
      (item) => item.verdict.kind === 'error' && !item.verdict.reason?.includes('the target stopped answering'),
    );
    // The cases that waited out the stall before the run gave up on the target.
    expect(waited.length, JSON.stringify(waited.map((item) => [item.id, item.verdict.reason]))).toBe(stalledAfterCases);
    // Each waited the 2 s --timeout gives its requests, not the default 10 s.
    for (const item of waited) expect(item.verdict.reason).toMatch(/\b2000 ms\b|\b2 s\b/);
    // Three cases of about 2 s (the request) + up to 5 s (cleanup) each, then the rest at once: with the
    // default 10 s timeout the run took about 50 s.
    expect(run.durationMs).toBeLessThan(35_000);
  }, 180_000);
});
