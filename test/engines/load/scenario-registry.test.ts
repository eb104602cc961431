import { describe, expect, test } from 'vitest';
import {
  checkScenarioNames,
  isScenarioPath,
  scenarioFile,
  scenarioNames,
  scenariosDir,
} from '../../../src/engines/load/scenario-registry.ts';
import { harnessErrorMessage } from '../../support/harness-error.ts';

describe('the scenario registry', () => {
  test("a name is one of the harness's scenarios; a path is a user's own module", () => {
    expect(isScenarioPath('command')).toBe(false);
    expect(isScenarioPath('./perf/my.ts')).toBe(true);
    expect(isScenarioPath('my.mjs')).toBe(true);
    expect(isScenarioPath('my.mts')).toBe(true);
    expect(scenarioFile('command')).toBe(`${scenariosDir}/command.ts`);
    expect(scenarioFile('./perf/my.ts')).toBe(`${process.cwd()}/perf/my.ts`);
    expect(scenarioNames()).toContain('publish-fanout');
  });

  test('a path that does not exist, or an unknown name, is one usage line', () => {
    expect(harnessErrorMessage('SVC_USAGE', () => checkScenarioNames(['./no/such-scenario.ts']))).toMatch(
      /^load: no scenario file \.\/no\/such-scenario\.ts \(/,
    );
    expect(harnessErrorMessage('SVC_USAGE', () => checkScenarioNames(['nope']))).toMatch(
      /^load: no scenario "nope" \(known: command, /,
    );
    expect(harnessErrorMessage('SVC_USAGE', () => checkScenarioNames(['nope']))).not.toMatch(/did you mean/);
    expect(harnessErrorMessage('SVC_USAGE', () => checkScenarioNames(['pipline']))).toMatch(
      /; did you mean pipeline\?$/,
    );
    expect(() => checkScenarioNames(['command', new URL(import.meta.url).pathname])).not.toThrow();
  });
});
