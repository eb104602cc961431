/**
 * Scenario parameters (`--param name=value`): the values the command line gives, checked against
 * what the run's scenarios declare (`Scenario.params`) before anything starts, and each scenario's
 * values with its defaults filled in. A name no scenario of the run declares, or a value outside a
 * declaring scenario's bounds, is one usage line naming the scenario(s).
 */
import type { Scenario, ScenarioParam } from '../../protocol/scenario.ts';
import { harnessError } from '../../shared/errors.ts';
import { loadScenario, scenarioFile, scenarioNames, scenariosDir } from './scenario-registry.ts';

/** What a check needs of a scenario: its name and what it declares. */
export interface DeclaringScenario {
  readonly name: string;
  readonly scenario: Pick<Scenario, 'params'>;
}

const given = (name: string, value: number) => `--param ${name}=${value}`;

/** `a whole number from 1 to 100`, `a number from 0 to 1`. */
export function paramRange(param: ScenarioParam): string {
  return `${param.integer ? 'a whole number' : 'a number'} from ${param.min} to ${param.max}`;
}

/** Why `value` does not fit `param`, or undefined when it does. */
function misfit(param: ScenarioParam, value: number): string | undefined {
  if (param.integer && !Number.isInteger(value)) return paramRange(param);
  return value < param.min || value > param.max ? paramRange(param) : undefined;
}

/**
 * Throws one usage line for the first value given that no scenario of the run declares, or that a
 * declaring scenario's bounds refuse. `command` opens the line (`load`, `run`, `k6 manifest`).
 */
export function checkParams(
  values: Readonly<Record<string, number>>,
  scenarios: readonly DeclaringScenario[],
  command: string,
): void {
  for (const [name, value] of Object.entries(values)) {
    const declaring = scenarios.filter((item) => item.scenario.params?.[name] !== undefined);
    if (declaring.length === 0) {
      const taken = scenarios
        .filter((item) => Object.keys(item.scenario.params ?? {}).length > 0)
        .map((item) => `${item.name} takes ${Object.keys(item.scenario.params ?? {}).join(', ')}`);
      const known = taken.length > 0 ? taken.join('; ') : 'none of them takes a parameter';
      throw harnessError(
        'SVC_USAGE',
        `${command}: ${given(name, value)}: no scenario of this run declares ${name} (${known})`,
      );
    }
    for (const item of declaring) {
      const param = item.scenario.params?.[name] as ScenarioParam;
      const why = misfit(param, value);
      if (why !== undefined) {
        throw harnessError('SVC_USAGE', `${command}: ${given(name, value)}: ${item.name}'s ${name} is ${why}`);
      }
    }
  }
}

/**
 * A scenario's parameters: each one it declares, the given value or its default. Values for
 * parameters it does not declare are another scenario's, and left out.
 */
export function scenarioParams(
  scenario: Pick<Scenario, 'params'>,
  values: Readonly<Record<string, number>> = {},
): Readonly<Record<string, number>> {
  return Object.fromEntries(
    Object.entries(scenario.params ?? {}).map(([name, param]) => [name, values[name] ?? param.default]),
  );
}

/** One line per parameter, for `load --list` and docs/load.md: `endpoints=8  a whole number from 1 to 100: …`. */
export function paramLines(scenario: Pick<Scenario, 'params'>): string[] {
  return Object.entries(scenario.params ?? {}).map(
    ([name, param]) => `${name}=${param.default}  ${param.description} (${paramRange(param)})`,
  );
}

/**
 * `checkParams` for a caller that has not loaded the scenarios yet (`svc-harness run`, before its
 * conformance part starts): the named ones, or every scenario.
 */
export async function checkScenarioParams(
  values: Readonly<Record<string, number>>,
  command: string,
  names: readonly string[] = [],
  dir = scenariosDir,
): Promise<void> {
  if (Object.keys(values).length === 0) return;
  const chosen = names.length > 0 ? names : scenarioNames(dir);
  const scenarios = await Promise.all(
    chosen.map(async (name) => ({ name, scenario: await loadScenario(scenarioFile(name, dir)) })),
  );
  checkParams(values, scenarios, command);
}
