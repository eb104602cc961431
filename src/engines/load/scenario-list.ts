/**
 * `load --list`: each scenario with its area, its default rate and duration, its title, and the
 * parameters `--param` may set (name=default, what it is, its bounds), read from the modules
 * themselves, so the list cannot drift from what a run checks.
 */
import type { Scenario } from '../../protocol/scenario.ts';
import { paramLines } from './scenario-params.ts';
import { checkScenarioNames, loadScenario, scenarioFile, scenarioNames, scenariosDir } from './scenario-registry.ts';

/** The text of one scenario: a heading line, then an indented line per parameter. */
export function scenarioEntry(scenario: Scenario): string {
  const { rate, durationS } = scenario.defaults;
  const lines = [
    `${scenario.name}  (${scenario.area}; ${rate}/s for ${durationS} s by default${scenario.needsOpenModel ? '; open model only' : ''})`,
    `  ${scenario.title}`,
    ...paramLines(scenario).map((line) => `  --param ${line}`),
  ];
  return lines.join('\n');
}

/** The named scenarios (checked first), or all, as `load --list` prints them. */
export async function listScenarios(names: readonly string[] = [], dir = scenariosDir): Promise<string> {
  if (names.length > 0) checkScenarioNames(names, dir);
  const chosen = names.length > 0 ? names : scenarioNames(dir);
  const scenarios = await Promise.all(chosen.map((name) => loadScenario(scenarioFile(name, dir))));
  return `${scenarios.map(scenarioEntry).join('\n\n')}\n`;
}
