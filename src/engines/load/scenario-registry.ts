/**
 * The load scenarios: one module per file in scenarios/ (README.md aside), each exporting a
 * scenario by default, and a user's own scenario files named by path. Names are checked before a run; a module that is not a scenario is one line.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scenario } from '../../protocol/scenario.ts';
import { harnessError } from '../../shared/errors.ts';
import { sourceExtension, sourceFile } from '../../shared/source-files.ts';
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
    .filter((file) => file.endsWith(sourceExtension))
    .map((file) => file.slice(0, -sourceExtension.length));
  return names.sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
}

const rank = (order: readonly string[], name: string) => {
  const index = order.indexOf(name);
  return index === -1 ? order.length : index;
};

/**
 * A scenario given by its file (`./perf/checkout.ts`, a user's own module importing
 * `svc-harness/scenario`) rather than by the name of one of the harness's: it has a slash or ends in
 * `.ts`, `.mts`, `.js` or `.mjs`.
 */
export function isScenarioPath(name: string): boolean {
  return name.includes('/') || /\.(ts|mts|js|mjs)$/.test(name);
}

export function scenarioFile(name: string, dir = scenariosDir): string {
  return isScenarioPath(name) ? resolve(name) : join(dir, sourceFile(name));
}

export function checkScenarioNames(names: readonly string[], dir = scenariosDir): void {
  const known = scenarioNames(dir);
  for (const name of names) {
    if (isScenarioPath(name)) {
      if (!existsSync(resolve(name)))
        throw harnessError('SVC_USAGE', `load: no scenario file ${name} (${resolve(name)})`);
      continue;
    }
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
