/**
 * The load scenarios: one module per file in scenarios/ (README.md aside), each exporting a
 * scenario by default. Names are checked before a run; a module that is not a scenario is one line.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scenario } from '../../protocol/scenario.ts';
import { harnessError } from '../../shared/errors.ts';
import { repoRoot } from '../conformance/repo-paths.ts';

export const scenariosDir = join(repoRoot, 'scenarios');

/** Every scenario name, in the order the main job runs them. */
export function scenarioNames(dir = scenariosDir): string[] {
  const order = [
    'command',
    'pipeline',
    'transaction',
    'kv-fanout',
    'publish-fanout',
    'callback-throughput',
    'notify-fanout',
  ];
  const names = readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3));
  return names.sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
}

const rank = (order: readonly string[], name: string) => {
  const index = order.indexOf(name);
  return index === -1 ? order.length : index;
};

export function scenarioFile(name: string, dir = scenariosDir): string {
  return join(dir, `${name}.ts`);
}

export function checkScenarioNames(names: readonly string[], dir = scenariosDir): void {
  const known = scenarioNames(dir);
  for (const name of names) {
    if (!known.includes(name)) {
      throw harnessError('SVC_USAGE', `load: no scenario "${name}" (known: ${known.join(', ')})`);
    }
  }
}

function isScenario(value: unknown): value is Scenario {
  return (
    typeof value === 'object' &&
    value !== null &&
    'name' in value &&
    'request' in value &&
    typeof value.request === 'function' &&
    'check' in value &&
    typeof value.check === 'function'
  );
}

export async function loadScenario(file: string): Promise<Scenario> {
  const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  if (!isScenario(module.default)) {
    throw harnessError('SVC_CONFIG', `scenario ${file}: its default export is not a scenario (defineScenario({...}))`);
  }
  return module.default;
}
