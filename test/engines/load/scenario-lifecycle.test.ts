/**
 * The contract every load driver keeps (issue 37: the lifecycle was written twice and had diverged):
 * node on its sockets, node on undici and k6 each run the same scenario through the same lifecycle
 * (src/engines/load/scenario-lifecycle.ts) against the embedded reference, and each:
 * - runs set-up once before the load and finish once after it, with the load's tallies, and puts
 *   finish's checks in the result;
 * - sends the planned arrivals (rate × duration) and names itself in the result;
 * - on a set-up that fails, makes no load, skips finish, and says why in one problem;
 * - on a finish that fails, keeps what the load measured and says why;
 * - interrupted, still runs finish and says it was interrupted;
 * - awaits the run's `loadEnded` (the soak's final heal) after the load and before finish.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findK6, type K6Binary } from '../../../src/engines/load/k6/k6-binary.ts';
import { k6Driver } from '../../../src/engines/load/k6/run-k6-scenario.ts';
import { parseLoadSettings } from '../../../src/engines/load/load-settings.ts';
import { kvLoadTarget } from '../../../src/engines/load/load-target.ts';
import { nodeDriver } from '../../../src/engines/load/run-scenario.ts';
import { type LoadDriver, runScenarioLifecycle } from '../../../src/engines/load/scenario-lifecycle.ts';
import type { ScenarioRun } from '../../../src/engines/load/scenario-plan.ts';
import { loadScenario, scenarioFile } from '../../../src/engines/load/scenario-registry.ts';
import type { Scenario } from '../../../src/protocol/scenario.ts';
import { type EmbeddedReference, startEmbeddedReference } from '../../../src/reference/embedded.ts';
import { parseThresholds } from '../../../src/results/threshold.ts';

let reference: EmbeddedReference;
let k6: K6Binary;
let command: Scenario;
const file = scenarioFile('command');

beforeAll(async () => {
  reference = await startEmbeddedReference([]);
  k6 = await findK6({ build: false });
  command = (await loadScenario(file)) as Scenario;
}, 60_000);
afterAll(async () => {
  await reference?.stop();
});

const drivers: readonly (readonly [string, () => LoadDriver])[] = [
  ['node', () => nodeDriver('net')],
  ['node-undici', () => nodeDriver('undici')],
  ['k6', () => k6Driver(k6, 1)],
];

/** What the lifecycle did with the scenario's hooks. */
interface Calls {
  setup: number;
  finish: number;
  /** The tallies finish was given. */
  tallies?: Readonly<Record<string, number>>;
  /** The signal's state when finish ran. */
  abortedAtFinish?: boolean;
  /** The load's end and finish, in the order they happened. */
  order: string[];
}

function runOf(
  engine: string,
  calls: Calls,
  hooks: { setupFails?: boolean; finishFails?: boolean; signal?: AbortSignal } = {},
): ScenarioRun {
  const target = kvLoadTarget(reference.target);
  if (!target) throw new Error('the embedded reference has no kv area');
  const signal = hooks.signal ?? new AbortController().signal;
  const scenario: Scenario = {
    ...command,
    async setup(context) {
      calls.setup += 1;
      if (hooks.setupFails) throw new Error('the contract’s set-up fails');
      return command.setup?.(context);
    },
    async finish(state, context, tallies) {
      calls.finish += 1;
      calls.order.push('finish');
      calls.tallies = tallies;
      calls.abortedAtFinish = signal.aborted;
      if (hooks.finishFails) throw new Error('the contract’s finish fails');
      const own = (await command.finish?.(state, context, tallies)) ?? {};
      return { ...own, checks: [...(own.checks ?? []), { name: 'the contract’s finish ran', ok: true }] };
    },
  };
  return {
    scenario,
    file,
    settings: parseLoadSettings({ engine: engine === 'k6' ? 'k6' : 'node', rate: '20', duration: '1s', warmup: '0' }),
    thresholds: parseThresholds(command.thresholds, 'scenario'),
    target,
    runId: `contract-${engine}`,
    signal,
    progress: () => {},
    // Slow on purpose: finish must wait for it, as the soak's heal of a kill in the last second.
    loadEnded: async (name) => {
      calls.order.push(`load of ${name} ended`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      calls.order.push('healed');
    },
  };
}

describe.each(drivers)('the %s driver keeps the scenario lifecycle’s contract', (engine, driver) => {
  test('set-up once, the planned arrivals, finish once with the tallies, its checks in the result', async () => {
    const calls: Calls = { setup: 0, finish: 0, order: [] };
    const result = await runScenarioLifecycle(runOf(engine, calls), driver());
    expect(result.problem).toBeUndefined();
    expect(result.engine).toBe(engine);
    expect([calls.setup, calls.finish]).toEqual([1, 1]);
    expect(calls.order).toEqual(['load of command ended', 'healed', 'finish']);
    expect(result.requests.sent).toBe(20);
    expect(result.requests.completed).toBe(20);
    expect(calls.tallies).toEqual(result.counters);
    expect(result.checks.find((check) => check.name === 'the contract’s finish ran')).toMatchObject({ passes: 1 });
    expect(result.checks.filter((check) => check.fails > 0)).toEqual([]);
  }, 60_000);

  test('a set-up that fails: no load, no finish, one problem', async () => {
    const calls: Calls = { setup: 0, finish: 0, order: [] };
    const result = await runScenarioLifecycle(runOf(engine, calls, { setupFails: true }), driver());
    expect(result.problem).toBe('setup failed: the contract’s set-up fails');
    expect([calls.setup, calls.finish]).toEqual([1, 0]);
    expect(result.requests.sent).toBe(0);
  }, 60_000);

  test('a finish that fails: what the load measured is kept, one problem says why', async () => {
    const calls: Calls = { setup: 0, finish: 0, order: [] };
    const result = await runScenarioLifecycle(runOf(engine, calls, { finishFails: true }), driver());
    expect(result.problem).toBe(
      'finish failed (what it wrote may be left under its prefix): the contract’s finish fails',
    );
    expect(result.requests.sent).toBe(20);
  }, 60_000);

  test('interrupted before its load: finish still runs, and the result says it was interrupted', async () => {
    const calls: Calls = { setup: 0, finish: 0, order: [] };
    const controller = new AbortController();
    const run = runOf(engine, calls, { signal: controller.signal });
    const interrupting: ScenarioRun = {
      ...run,
      scenario: {
        ...run.scenario,
        async setup(context) {
          const state = await run.scenario.setup?.(context);
          controller.abort('SIGINT');
          return state;
        },
      },
    };
    const result = await runScenarioLifecycle(interrupting, driver());
    expect(result.problem?.split('; ')).toContain('interrupted');
    expect([calls.setup, calls.finish]).toEqual([1, 1]);
    expect(calls.abortedAtFinish).toBe(true);
    expect(result.requests.sent).toBeLessThan(20);
  }, 60_000);
});
