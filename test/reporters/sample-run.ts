/** A small ConformanceRun with every verdict kind, for the renderers' tests. */

import type { CaseResult, ConformanceRun } from '../../src/results/conformance-run.ts';
import { createRuleCatalog } from '../../src/results/rule.ts';
import type { Verdict } from '../../src/results/verdict.ts';

export const sampleCatalog = createRuleCatalog([
  { id: 'B.a', area: 'kv', level: 'MUST', section: 'Errors', text: 'A.' },
  { id: 'B.b', area: 'kv', level: 'MUST', section: 'Errors', text: 'B.' },
  { id: 'B.o', area: 'kv', level: 'OBSERVE', section: 'Errors', text: 'O.' },
  { id: 'A.x', area: 'messaging', level: 'MUST', section: 'Events', text: 'X.' },
]);

const result = (caseId: string, rules: string[], verdict: Verdict, notes: string[] = []): CaseResult => ({
  target: 'ref',
  area: 'kv',
  file: 'conformance/kv/sample.test.ts',
  caseId,
  rules,
  title: `title of ${caseId}`,
  expect: `expect of ${caseId}`,
  verdict,
  notes,
  durationMs: 12,
});

/** The request behind kv.fail, as the engine words it (case-exchange.ts). */
export const sampleExchange = {
  curl: `curl -sS -i -X GET -H 'authorization: Bearer '"$SVC_KV_TOKEN" http://127.0.0.1:1/get/k`,
  answer: '400 application/json, 9 bytes: {"e":"<x>"}',
} as const;

export const sampleResults: CaseResult[] = [
  result('kv.pass', ['B.a'], { kind: 'pass' }, ['a note']),
  {
    ...result('kv.fail', ['B.a', 'B.b'], {
      kind: 'fail',
      reason: 'received <400> & "x" / expected 200 | y',
      rule: 'B.b',
    }),
    exchange: sampleExchange,
  },
  result('kv.skip', ['B.b'], { kind: 'skip', reason: 'no admin hook' }),
  result('kv.xfail', ['B.b'], { kind: 'expected-failure', reason: 'known' }),
  result('kv.stale', ['B.a'], { kind: 'stale', reason: 'passed although expected to fail' }),
  result('kv.observe', ['B.o'], { kind: 'observation', reason: '401 text is "Unauthorized"' }),
  result('kv.error', ['B.a'], { kind: 'error', reason: 'did not answer within 300 ms\u0001' }),
];

export const sampleRun: ConformanceRun = {
  startedAt: '2026-11-21T00:00:00.000Z',
  finishedAt: '2026-11-21T00:00:01.500Z',
  durationMs: 1500,
  settings: { areas: ['kv'], rules: 'B.*', faults: ['some-fault'], silences: [] },
  targets: [
    {
      name: 'ref',
      description: { name: 'ref', dialect: 'svc', kv: { url: 'http://127.0.0.1:1', readOnlyToken: false } },
      embedded: true,
      areas: ['kv'],
      cases: sampleResults,
    },
  ],
  results: sampleResults,
  problems: [],
  exitCode: 1,
  reportDir: '/tmp/x',
};

/** Results of a target reached with a wrong token: most cases fail or block on a 401, a few say it otherwise. */
export function wrongTokenResults(unauthorized: number, other: number): CaseResult[] {
  const answered401 = 'received status 401 (application/json) "{\\"error\\":\\"WRONGPASS\\"}" / expected status 200';
  return [
    result('kv.pass', ['B.a'], { kind: 'pass' }),
    ...Array.from({ length: unauthorized }, (_, index) =>
      result(
        `kv.401.${index}`,
        ['B.a'],
        index % 2 === 0
          ? { kind: 'fail', reason: answered401, rule: 'B.a' }
          : { kind: 'blocked', reason: `a step it needs did not work: ${answered401}`, rule: 'B.b' },
      ),
    ),
    ...Array.from({ length: other }, (_, index) =>
      result(`kv.other.${index}`, ['B.b'], { kind: 'fail', reason: 'received {"error":"string"} / expected {}' }),
    ),
    result('kv.skip', ['B.b'], { kind: 'skip', reason: 'no admin hook' }),
  ];
}
