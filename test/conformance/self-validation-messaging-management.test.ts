/**
 * Self-validation of the messaging (area A) and management (area C) suites (issue 14): the reference
 * without faults passes every MUST case of both, skipping nothing, in the spec's names and in the
 * upstash dialect; and every fault switch of A and C is caught by a case failing on the switch's rule
 * (mutation score 100%). The clean runs are the CLI as a user runs it; each fault's run is filtered to its
 * rule, in batches of the programmatic API's runConformance, four batches at a time.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { allFaults } from '../../src/reference/reference-areas.ts';
import { waitFor } from '../support/processes.ts';
import { type StartedProcess, startCli } from '../support/run-cli.ts';
import { expectCaught, type RunResult, runConformance, runFaults } from '../support/self-validation.ts';

const areas = ['messaging', 'management'] as const;
// A switch the soak's checker judges (judgedBy: 'soak') no conformance case can see: test/cli/soak.test.ts runs it.
const faultsOf = (area: string) => allFaults.filter((fault) => fault.area === area && fault.judgedBy === undefined);
const mustFailKinds = new Set(['fail', 'error', 'stale']);
let dir = '';
const clean = new Map<string, RunResult>();
let upstash: RunResult | undefined;
const faultRuns = new Map<string, RunResult>();

/** The suites against `serve --dialect upstash`, through its target file. */
async function upstashRun(): Promise<RunResult> {
  const file = join(dir, 'upstash-target.json');
  let serve: StartedProcess | undefined;
  try {
    serve = startCli(['serve', '--dialect', 'upstash', '--retry-backoff', '10ms', '--write-target', file], {
      timeoutMs: 120_000,
    });
    const started = serve;
    if (!(await waitFor(() => started.stdout().includes('Stop with Ctrl-C'), 30_000))) {
      throw new Error(`serve did not start: ${started.stdout()}`);
    }
    JSON.parse(await readFile(file, 'utf8'));
    return await runConformance(dir, areas.join(','), ['--target', file]);
  } finally {
    serve?.child.kill('SIGTERM');
    await serve?.finished;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-self-validation-'));
  for (const area of areas) clean.set(area, await runConformance(dir, area, []));
  upstash = await upstashRun();
  for (const area of areas) {
    for (const [name, run] of await runFaults(dir, area, faultsOf(area), 4)) faultRuns.set(name, run);
  }
  // Generous: each fault's run takes 5 to 30 s, four at a time, and the switches grow with the suite.
}, 1_800_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.each(areas)('the %s suite against the reference without faults', (area) => {
  test('passes: exit code 0, no MUST case fails, nothing skipped', () => {
    const run = clean.get(area) as RunResult;
    const failing = run.cases.filter((item) => mustFailKinds.has(item.verdict.kind));
    expect(failing.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    const skipped = run.cases.filter((item) => item.verdict.kind === 'skip');
    expect(skipped.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    expect(run.cases.length).toBeGreaterThan(5);
    expect(run.exitCode, run.output.slice(-2000)).toBe(0);
  });
});

describe('in the upstash dialect', () => {
  test('both suites pass against serve --dialect upstash', () => {
    const run = upstash as RunResult;
    const failing = run.cases.filter((item) => mustFailKinds.has(item.verdict.kind));
    expect(failing.map((item) => `${item.id}: ${item.verdict.reason}`)).toEqual([]);
    expect(new Set(run.cases.map((item) => item.id.split('.')[0]))).toEqual(new Set(areas));
    expect(run.exitCode, run.output.slice(-2000)).toBe(0);
  });
});

describe.each(areas)('every %s fault switch is caught (mutation score 100%)', (area) => {
  test('there are fault switches', () => {
    expect(faultsOf(area).length).toBeGreaterThan(0);
  });

  test.each(faultsOf(area).map((fault) => [fault.name, fault] as const))('%s', (_name, fault) => {
    expectCaught(faultRuns.get(fault.name) as RunResult, fault);
  });
});
