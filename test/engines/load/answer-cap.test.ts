/**
 * The cap on one answer of a load run: the scenario's largest answer its checks can pass (with room for
 * escapes and spacing), or the target's `maxAnswerBytes` when that is lower. A scenario that declares
 * none reads up to the target's cap. Every built-in scenario declares one, and it grows with what its
 * options ask for (bigger values, bigger batches, more endpoints or waiters).
 */
import { describe, expect, test } from 'vitest';
import { parseLoadSettings } from '../../../src/engines/load/load-settings.ts';
import type { LoadTarget } from '../../../src/engines/load/load-target.ts';
import { type ScenarioRun, scenarioOptions, withAnswerCap } from '../../../src/engines/load/scenario-plan.ts';
import { loadScenario, scenarioFile, scenarioNames } from '../../../src/engines/load/scenario-registry.ts';
import { answerRoom, type Scenario } from '../../../src/protocol/scenario.ts';

const target: LoadTarget = {
  baseUrl: 'http://127.0.0.1:1',
  headers: {},
  headerPrefix: 'Svc-',
  maxAnswerBytes: 100 << 20,
};

function runOf(scenario: Scenario, flags: Record<string, string> = {}, params?: string[]): ScenarioRun {
  return {
    scenario,
    file: '',
    settings: parseLoadSettings(flags, params),
    thresholds: [],
    target,
    runId: 'r',
    signal: new AbortController().signal,
    progress: () => {},
  };
}

const capOf = (run: ScenarioRun) => withAnswerCap(run, scenarioOptions(run)).target.maxAnswerBytes;

describe('the cap on one answer', () => {
  test('room: six times the compact answer (a JSON escape is six characters) and 64 KiB', () => {
    expect(answerRoom(0)).toBe(65_536);
    expect(answerRoom(96)).toBe(6 * 96 + 65_536);
  });

  test("the scenario's largest answer with room, or the target's cap when lower; none declared, the target's", async () => {
    const command = await loadScenario(scenarioFile('command'));
    expect(capOf(runOf(command))).toBe(answerRoom(64 + 32));
    expect(capOf(runOf(command, { 'value-size': '1000000' }))).toBe(answerRoom(1_000_032));
    const low = { ...runOf(command), target: { ...target, maxAnswerBytes: 1000 } };
    expect(capOf(low)).toBe(1000);
    const { largestAnswer: _, ...undeclared } = command;
    expect(capOf(runOf(undeclared as Scenario))).toBe(target.maxAnswerBytes);
  });

  test.each([
    ['pipeline', { batch: '10', 'value-size': '16' }, { batch: '1000', 'value-size': '1024' }, []],
    ['transaction', { batch: '3' }, { batch: '30' }, []],
    ['publish-fanout', {}, {}, ['endpoints=500']],
    ['notify-fanout', {}, {}, ['waiters=5000']],
  ] as const)('%s: the cap grows with what the options ask for', async (name, small, big, params) => {
    const scenario = await loadScenario(scenarioFile(name));
    expect(capOf(runOf(scenario, big, params.length > 0 ? [...params] : undefined))).toBeGreaterThan(
      capOf(runOf(scenario, small)),
    );
  });

  test('every built-in scenario declares its largest answer', async () => {
    for (const name of scenarioNames()) {
      const scenario = await loadScenario(scenarioFile(name));
      expect(scenario.largestAnswer, name).toBeTypeOf('function');
      expect(capOf(runOf(scenario)), name).toBeLessThan(target.maxAnswerBytes);
    }
  });
});
