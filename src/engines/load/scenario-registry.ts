/**
 * The load scenarios: one module per file in scenarios/ (README.md aside), each exporting a
 * scenario by default, and a user's own scenario files named by path. Names are checked before a run; a module that is not a scenario is one line.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Scenario } from '../../protocol/scenario.ts';
import { didYouMean } from '../../shared/did-you-mean.ts';
import { harnessError } from '../../shared/errors.ts';
import { sourceExtension, sourceFile } from '../../shared/source-files.ts';
import { importableFile, importUserModule } from '../../shared/user-module.ts';
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
 * `.ts`, `.mts`, `.cts`, `.js`, `.mjs` or `.cjs`.
 */
export function isScenarioPath(name: string): boolean {
  return name.includes('/') || /\.[mc]?[tj]s$/.test(name);
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
      throw harnessError(
        'SVC_USAGE',
        `load: no scenario "${name}" (known: ${known.join(', ')})${didYouMean(name, known)}`,
      );
    }
  }
}

/** What a scenario module's default export must hold: each field and the kind of value it takes. */
const scenarioShape: readonly (readonly [
  field: string,
  kind: 'string' | 'function' | 'object' | 'array',
  required: boolean,
])[] = [
  ['name', 'string', true],
  ['title', 'string', true],
  ['area', 'string', true],
  ['defaults', 'object', true],
  ['thresholds', 'array', true],
  ['request', 'function', true],
  ['check', 'function', true],
  ['setup', 'function', false],
  ['finish', 'function', false],
  ['largestAnswer', 'function', false],
  ['params', 'object', false],
  ['fanout', 'object', false],
  ['sink', 'object', false],
];

/** The first field of `value` that breaks the scenario shape, as a phrase; undefined when none does. */
function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) {
    return 'its default export is not a scenario (export default defineScenario({...}))';
  }
  const fields = value as Record<string, unknown>;
  for (const [field, kind, required] of scenarioShape) {
    const item = fields[field];
    if (item === undefined) {
      if (required) return `its scenario has no "${field}" (${kind === 'function' ? 'a function' : `a ${kind}`})`;
      continue;
    }
    const actual = Array.isArray(item) ? 'array' : typeof item;
    if (actual !== kind)
      return `its scenario's "${field}" is ${Array.isArray(item) ? 'an array' : `a ${typeof item}`}, not ${kind === 'array' ? 'an array' : kind === 'object' ? 'an object' : `a ${kind}`}`;
  }
  if (fields.area !== 'kv' && fields.area !== 'messaging') {
    return `its scenario's "area" is ${JSON.stringify(fields.area)}, not "kv" or "messaging"`;
  }
  return undefined;
}

/**
 * A scenario module, checked field by field when it loads (not after its load has run), with the file
 * to import it by elsewhere (worker threads, the sink's threads, k6's bundle): a user's `.ts` or `.js`
 * compiled to an ES module beside it (src/shared/user-module.ts), the harness's own as it is.
 */
export async function loadScenarioModule(
  file: string,
): Promise<{ readonly scenario: Scenario; readonly file: string }> {
  const importable = await importableFile(file, 'scenario', repoRoot);
  const module = await importUserModule(importable, 'scenario', repoRoot);
  const problem = shapeProblem(module.default);
  if (problem !== undefined) throw harnessError('SVC_CONFIG', `scenario ${file}: ${problem}`);
  return { scenario: module.default as Scenario, file: importable };
}

export async function loadScenario(file: string): Promise<Scenario> {
  return (await loadScenarioModule(file)).scenario;
}
