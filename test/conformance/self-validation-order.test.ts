/**
 * A case's verdict never depends on which cases ran beside it (issue 35, item 4): the key-value and
 * messaging suites run against the reference in two seeded orders (case-order.ts: the groups, files
 * and cases shuffled, the concurrent group kept whole), and every case's verdict kind, and the rule it
 * names, are the same in both. SVC_ORDER_SEEDS="a,b" picks other seeds (a difference found in CI is
 * reproduced with the seeds it prints).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runConformance } from '../../src/engines/conformance/run-conformance.ts';
import type { ConformanceRun } from '../../src/results/conformance-run.ts';
import { verdictRule } from '../../src/results/verdict.ts';

const seeds = (process.env.SVC_ORDER_SEEDS ?? '1,2').split(',').map(Number);
const mustFailKinds = new Set(['fail', 'error', 'stale']);
let dir = '';
const runs: ConformanceRun[] = [];

/** What two orders must agree on, per case: the verdict's kind and the rule it names. */
function verdicts(run: ConformanceRun): Map<string, string> {
  return new Map(
    run.results.map((result) => [result.caseId, `${result.verdict.kind} ${verdictRule(result.verdict) ?? ''}`.trim()]),
  );
}

function reasonOf(run: ConformanceRun, caseId: string): string {
  const found = run.results.find((result) => result.caseId === caseId);
  return found && 'reason' in found.verdict ? found.verdict.reason : '';
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-order-'));
  for (const seed of seeds) {
    runs.push(
      await runConformance({ areas: ['kv', 'messaging'], order: { seed }, reportDir: join(dir, `seed-${seed}`) }),
    );
  }
  // Each run is both suites once: about 20 s of key-value and a minute of messaging, slower beside other work.
}, 900_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe(`the key-value and messaging suites in two seeded orders (seeds ${seeds.join(', ')})`, () => {
  test('every case gets the same verdict kind and rule in both orders', () => {
    const [first, second] = runs.map(verdicts);
    expect(first?.size).toBeGreaterThan(150);
    expect([...(second?.keys() ?? [])].sort()).toEqual([...(first?.keys() ?? [])].sort());
    const differences = [...(first ?? [])].flatMap(([caseId, verdict]) => {
      const other = second?.get(caseId);
      if (other === verdict) return [];
      return [
        `${caseId}: seed ${seeds[0]}: ${verdict} (${reasonOf(runs[0] as ConformanceRun, caseId)}); seed ${seeds[1]}: ${other} (${reasonOf(runs[1] as ConformanceRun, caseId)})`,
      ];
    });
    expect(differences).toEqual([]);
  });

  test.each(seeds.map((seed, index) => [seed, index] as const))('seed %i: no MUST case fails', (_seed, index) => {
    const run = runs[index] as ConformanceRun;
    const failing = run.results.filter((result) => mustFailKinds.has(result.verdict.kind));
    expect(failing.map((result) => `${result.caseId}: ${reasonOf(run, result.caseId)}`)).toEqual([]);
    expect(run.problems).toEqual([]);
  });
});
