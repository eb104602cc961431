/**
 * Scenario parameters: `--param` texts parsed (NAME=NUMBER, each name once), checked against what the
 * run's scenarios declare (an unknown name lists what they take; a bad value names the declaring
 * scenario and its bounds), each scenario's values filled with its defaults, and the scenarios as
 * `load --list` prints them.
 */
import { describe, expect, test } from 'vitest';
import { parseLoadSettings, parseParams } from '../../../src/engines/load/load-settings.ts';
import { listScenarios } from '../../../src/engines/load/scenario-list.ts';
import { checkParams, checkScenarioParams, scenarioParams } from '../../../src/engines/load/scenario-params.ts';
import { scenarioOptions } from '../../../src/engines/load/scenario-plan.ts';
import { loadScenario, scenarioFile } from '../../../src/engines/load/scenario-registry.ts';
import type { Scenario, ScenarioParam } from '../../../src/protocol/scenario.ts';
import { harnessErrorMessage } from '../../support/harness-error.ts';

const usageLine = (run: () => unknown) => harnessErrorMessage('SVC_USAGE', run);

const endpoints: ScenarioParam = { description: 'endpoints', default: 8, integer: true, min: 1, max: 100 };
const share: ScenarioParam = { description: 'share', default: 0.05, min: 0, max: 1 };
const fanout = { name: 'fan', scenario: { params: { endpoints } } };
const callbacks = { name: 'cb', scenario: { params: { 'fail-share': share } } };
const plain = { name: 'command', scenario: {} };

describe('--param texts', () => {
  test('NAME=NUMBER, each name once', () => {
    expect(parseParams(['endpoints=4', 'fail-share=0.1', 'waiters=1e3'])).toEqual({
      endpoints: 4,
      'fail-share': 0.1,
      waiters: 1000,
    });
    expect(parseLoadSettings({}, ['endpoints=4']).params).toEqual({ endpoints: 4 });
    expect(parseLoadSettings({}).params).toBeUndefined();
  });

  test.each([
    ['endpoints', /--param "endpoints" is not NAME=NUMBER/],
    ['endpoints=', /--param "endpoints=" is not NAME=NUMBER/],
    ['endpoints=four', /--param "endpoints=four" is not NAME=NUMBER/],
    ['Endpoints=4', /--param "Endpoints=4" is not NAME=NUMBER/],
    ['=4', /--param "=4" is not NAME=NUMBER/],
    ['endpoints=Infinity', /--param "endpoints=Infinity" is not NAME=NUMBER/],
  ])('%s is one usage line', (text, line) => {
    expect(usageLine(() => parseParams([text]))).toMatch(line);
  });

  test('a name given twice is refused, whichever value was meant', () => {
    expect(usageLine(() => parseLoadSettings({}, ['endpoints=4', 'endpoints=5'], 'run'))).toBe(
      'run: --param endpoints given more than once; it takes one value',
    );
  });
});

describe('checked against the run’s scenarios', () => {
  test('a name no scenario of the run declares lists what they take', () => {
    expect(usageLine(() => checkParams({ endpoint: 4 }, [plain, fanout, callbacks], 'load'))).toBe(
      'load: --param endpoint=4: no scenario of this run declares endpoint (fan takes endpoints; cb takes fail-share)',
    );
    expect(usageLine(() => checkParams({ endpoints: 4 }, [plain], 'run'))).toBe(
      'run: --param endpoints=4: no scenario of this run declares endpoints (none of them takes a parameter)',
    );
  });

  test('a value out of bounds, or not whole, names the scenario that declares it', () => {
    expect(usageLine(() => checkParams({ endpoints: 0 }, [fanout], 'load'))).toBe(
      "load: --param endpoints=0: fan's endpoints is a whole number from 1 to 100",
    );
    expect(usageLine(() => checkParams({ endpoints: 2.5 }, [fanout], 'load'))).toBe(
      "load: --param endpoints=2.5: fan's endpoints is a whole number from 1 to 100",
    );
    expect(usageLine(() => checkParams({ 'fail-share': 1.5 }, [callbacks], 'k6 manifest'))).toBe(
      "k6 manifest: --param fail-share=1.5: cb's fail-share is a number from 0 to 1",
    );
    // Two scenarios declare it: each one's bounds apply.
    const strict = { name: 'strict', scenario: { params: { endpoints: { ...endpoints, max: 3 } } } };
    expect(usageLine(() => checkParams({ endpoints: 4 }, [fanout, strict], 'load'))).toBe(
      "load: --param endpoints=4: strict's endpoints is a whole number from 1 to 3",
    );
    expect(() => checkParams({ endpoints: 100, 'fail-share': 0 }, [fanout, callbacks], 'load')).not.toThrow();
  });

  test('each scenario gets what it declares, a given value or its default, and nothing else', () => {
    const given = { endpoints: 3 };
    expect(scenarioParams(fanout.scenario, given)).toEqual({ endpoints: 3 });
    expect(scenarioParams(callbacks.scenario, given)).toEqual({ 'fail-share': 0.05 });
    expect(scenarioParams(plain.scenario, given)).toEqual({});
  });

  test('the scenario files: options carry them (k6 and the manifest read options too); run checks every scenario', async () => {
    const scenario = (await loadScenario(scenarioFile('publish-fanout'))) as Scenario;
    const settings = parseLoadSettings({}, ['endpoints=3']);
    expect(scenarioOptions({ scenario, settings }).params).toEqual({ endpoints: 3 });
    expect(scenarioOptions({ scenario, settings: parseLoadSettings({}) }).params).toEqual({ endpoints: 8 });
    await expect(checkScenarioParams({ waiters: 20, 'fail-share': 0.2 }, 'run')).resolves.toBeUndefined();
    await expect(checkScenarioParams({ waiters: 0 }, 'run')).rejects.toThrow(
      "run: --param waiters=0: notify-fanout's waiters is a whole number from 1 to 10000",
    );
    await expect(checkScenarioParams({ waiters: 20 }, 'run', ['command'])).rejects.toThrow(
      'no scenario of this run declares waiters (none of them takes a parameter)',
    );
  });
});

test('load --list: every scenario with its area, defaults and parameters', async () => {
  const text = await listScenarios();
  for (const name of ['command', 'pipeline', 'transaction', 'kv-fanout', 'publish-fanout', 'notify-fanout']) {
    expect(text).toMatch(new RegExp(`^${name}  \\(`, 'm'));
  }
  expect(text).toContain('publish-fanout  (messaging; 20/s for 5 s by default)');
  expect(text).toMatch(/^ {2}--param endpoints=8 {2}endpoints in the URL group .*\(a whole number from 1 to 1000\)$/m);
  expect(text).toMatch(/^ {2}--param fail-share=0\.05 {2}share of messages .*\(a number from 0 to 1\)$/m);
  expect(text).toContain('notify-fanout  (messaging; 2/s for 5 s by default; open model only)');
  expect(text).toMatch(/^ {2}--param waiters=100 {2}/m);
  expect(await listScenarios(['command'])).toBe(
    'command  (kv; 200/s for 10 s by default)\n  Single commands: a GET/SET mix over 1,000 keys\n',
  );
});
