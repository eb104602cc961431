/**
 * The config file, found as vitest finds its own: `--config FILE`, else the first of
 * `svc-harness.config.{ts,mts,cts,mjs,js,cjs,json}` in the working folder. It holds defaults for the flags of
 * conformance, load, run, regions and k6 manifest (schemas/config.schema.json); a flag given on the command line
 * wins. Keys are the flags' names in camelCase, plus `areas`, `reporters`, `thresholds`, `params` and
 * `scenarios` (names, paths or globs). Paths in it are relative to the file. A key a command has no flag
 * for is left out of that command, so one file serves them all.
 */
import { existsSync, globSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import schema from '../../schemas/config.schema.json' with { type: 'json' };
import { isScenarioPath } from '../engines/load/scenario-registry.ts';
import { harnessError, isHarnessError } from '../shared/errors.ts';
import { lazyValidator, readJsonFile, schemaProblem } from '../shared/json-file.ts';
import { importUserModule } from '../shared/user-module.ts';
import { Refusal } from '../shared/value-kinds.ts';
import { type CommandSpec, commandTable, type OptionSpec } from './command-table.ts';
import { configKeyFlags, configKeyOf, type SvcHarnessConfig } from './config-keys.ts';
import { didYouMean } from './parse-argv.ts';
import { readOption } from './read-option.ts';

export { configKeyFlags, type SvcHarnessConfig } from './config-keys.ts';

/** `defineConfig` is an identity function for types, as vitest's is. */
export function defineConfig(config: SvcHarnessConfig): SvcHarnessConfig {
  return config;
}

export const configFileNames = [
  'svc-harness.config.ts',
  'svc-harness.config.mts',
  'svc-harness.config.cts',
  'svc-harness.config.mjs',
  'svc-harness.config.js',
  'svc-harness.config.cjs',
  'svc-harness.config.json',
] as const;

const configValidator = lazyValidator<SvcHarnessConfig>(schema, { allErrors: false });

/** The config file to read: the one `--config` names, else the first found in `cwd`, else none. */
export function findConfigFile(given: string | undefined, cwd: string): string | undefined {
  if (given !== undefined) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw harnessError('SVC_CONFIG', `config file ${given}: no such file`);
    return path;
  }
  return configFileNames.map((name) => join(cwd, name)).find((path) => existsSync(path));
}

export async function readConfigFile(path: string): Promise<SvcHarnessConfig> {
  let value: unknown;
  if (path.endsWith('.json')) value = readJsonFile(path, 'config file');
  else {
    value = (await importUserModule(path, 'config file')).default;
  }
  const validate = configValidator();
  if (!validate(value)) {
    const problem = schemaProblem(validate.errors, (error) => {
      if (error.keyword !== 'additionalProperties') return error.message;
      const key = String(error.params.additionalProperty);
      return `has "${key}", which is no key of a config file${didYouMean(key, Object.keys(schema.properties))}`;
    });
    throw harnessError('SVC_CONFIG', `config file ${path}: ${problem}`);
  }
  return value;
}

const isGlob = (text: string) => /[*?[]/.test(text);

/** A scenario entry: a name as it is; a path resolved from the file; a glob expanded there, sorted. */
function scenarioEntries(entry: string, base: string): string[] {
  if (isGlob(entry)) {
    const found = globSync(entry, { cwd: base }).sort();
    if (found.length === 0) throw harnessError('SVC_CONFIG', `config file: scenarios "${entry}" matches no file`);
    return found.map((path) => resolve(base, path));
  }
  return [isScenarioPath(entry) ? resolve(base, entry) : entry];
}

const commands: Readonly<Record<string, CommandSpec>> = commandTable;

/** The name of the command whose row `spec` is, for the lines that blame a key. */
function commandOf(spec: CommandSpec): string {
  return Object.entries(commands).find(([, row]) => row === spec)?.[0] ?? '';
}

/**
 * `values` with the config's defaults filled in where the command line gave nothing, each read by its
 * flag's kind as parse-argv reads the flag (a value of the wrong kind is one line blaming the file's
 * key); keys the command has no flag for are left out.
 */
export function applyConfig(
  spec: CommandSpec,
  values: Readonly<Record<string, unknown>>,
  config: SvcHarnessConfig,
  file: string,
  applied?: Map<string, string>,
): Record<string, unknown> {
  const base = dirname(file);
  const out: Record<string, unknown> = { ...values };
  const unset = (flag: string) => {
    const given = out[flag];
    return given === undefined || (Array.isArray(given) && given.length === 0);
  };
  if (config.scenarios !== undefined && spec.positionals !== undefined && unset('_')) {
    out._ = config.scenarios.flatMap((entry) => scenarioEntries(entry, base));
    applied?.set('_', 'scenarios');
  }
  for (const [key, value] of Object.entries(config)) {
    const flag = configKeyFlags[key];
    const option = flag === undefined ? undefined : spec.options[flag];
    if (flag === undefined || option === undefined || value === undefined || !unset(flag)) continue;
    // `outs` fills load's repeatable --out, not k6 manifest's one file (config-keys.ts).
    if (configKeyOf(flag, option) !== key) continue;
    out[flag] = configValue(commandOf(spec), option, key, value, file);
    applied?.set(flag, key);
  }
  return out;
}

/** One key's value read by its flag's kind; a refusal names the file and the key. */
function configValue(command: string, option: OptionSpec, key: string, value: unknown, file: string): unknown {
  // One file serves every command: conformance's repeatable --target takes an array, the others' one target a one-item array.
  const one =
    !option.multiple && option.kind !== 'list' && Array.isArray(value) && value.length === 1 ? value[0] : value;
  try {
    return readOption(option, one, dirname(file));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw harnessError('SVC_CONFIG', `${command}: ${error.text(`config file ${file}: ${key}`)}`);
  }
}

/**
 * A usage error about a flag whose value came from the config file, reworded to blame the file's key
 * (issue 36: `duration: '-5s'` in the file was reported as `--duration "-5s"`, a flag nobody typed).
 * `applied` maps each flag the file filled in to its key.
 */
export function blameConfigFile(error: unknown, file: string, applied: ReadonlyMap<string, string>): unknown {
  if (!isHarnessError(error) || error.code !== 'SVC_USAGE') return error;
  for (const [flag, key] of applied) {
    const named = new RegExp(`--${flag}(?![\\w-])`);
    if (named.test(error.message))
      return harnessError('SVC_CONFIG', error.message.replace(named, `config file ${file}: ${key}`), error);
  }
  return error;
}
