/**
 * The programmatic API as the README shows it: `runLoad({ scenarios })` with no settings runs each
 * scenario at its own rate and duration on the node engine (it threw a TypeError, issue 36), and a
 * reporter of one's own gets the run's events, typed by the exported `Reporter`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LoadProgress, type Reporter, runLoad } from '../../src/cli/api.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-api-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('runLoad with only scenarios: the defaults, a report model back, a reporter of its own called', async () => {
  const progress: LoadProgress[] = [];
  const ended: string[] = [];
  const mine: Reporter = {
    name: 'mine',
    onProgress: (item) => progress.push(item),
    onScenarioEnd: (result) => ended.push(result.name),
  };
  const run = await runLoad({ scenarios: ['transaction'], reportDir: join(dir, 'api'), reporters: [mine] });
  expect(run.scenarios.map((scenario) => scenario.name)).toEqual(['transaction']);
  expect(run.scenarios[0]?.requests.sent).toBeGreaterThan(0);
  expect(run.scenarios[0]?.engine).toBe('node');
  expect(ended).toEqual(['transaction']);
  expect(progress.length).toBeGreaterThan(0);
  expect(progress[0]?.scenario).toBe('transaction');
}, 60_000);
