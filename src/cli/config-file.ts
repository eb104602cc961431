/**
 * The config file, found as vitest finds its own: `--config FILE`, else the first of
 * `svc-harness.config.{ts,mts,cts,mjs,js,cjs,json}` in the working folder. It holds defaults for the flags of
 * conformance, load, run, regions and k6 manifest (schemas/config.schema.json); a flag given on the command line
 * wins. Keys are the flags' names in camelCase, plus `areas`, `reporters`, `thresholds`, `params` and
 * `scenarios` (names, paths or globs). Paths in it are relative to the file. A key a command has no flag
 * for is left out of that command, so one file serves them all.
 */
import { existsSync, globSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import schema from '../../schemas/config.schema.json' with { type: 'json' };
import { isScenarioPath } from '../engines/load/scenario-registry.ts';
import { harnessError, isHarnessError } from '../shared/errors.ts';
import { lazyValidator, readJsonFile, schemaProblem } from '../shared/json-file.ts';
import { importUserModule } from '../shared/user-module.ts';
import type { CommandSpec } from './command-table.ts';
import { didYouMean } from './parse-argv.ts';
import type { ParsedValue, ParsedValues } from './parsed-values.ts';

/** What a config file holds (schemas/config.schema.json says the same for JSON). */
export interface SvcHarnessConfig {
  readonly target?: string | readonly string[];
  readonly areas?: readonly ('kv' | 'messaging' | 'management')[];
  readonly rules?: string;
  readonly expectations?: string;
  readonly reportDir?: string;
  readonly reporters?: readonly string[];
  /** Scenario names, paths of your own modules, or globs of them (`perf/*.ts`). */
  readonly scenarios?: readonly string[];
  readonly engine?: string | readonly ('node' | 'node-undici' | 'k6')[];
  readonly model?: 'open' | 'closed';
  readonly rate?: number | string;
  readonly duration?: number | string;
  /** `--warmup`: unmeasured seconds before each scenario's measured run (`'2s'`, `0` for none). */
  readonly warmup?: number | string;
  readonly ramp?: string;
  readonly connections?: number | string;
  readonly workers?: number | string;
  readonly batch?: readonly number[] | string;
  readonly valueSize?: readonly number[] | string;
  readonly seed?: number | string;
  readonly timeout?: number | string;
  readonly thresholds?: readonly string[];
  readonly params?: Readonly<Record<string, number>>;
  readonly sinkHost?: string;
  readonly sinkPort?: number;
  readonly sinkUrl?: string;
  readonly sinkThreads?: number;
  readonly sinkWait?: string;
  /** A report folder or report.json to compare with (`--baseline`). */
  readonly baseline?: string;
  /** `--tolerance`s by metric: `{ p99: '10%', 'error-rate': '1%', latency: '5ms' }`. */
  readonly tolerances?: Readonly<
    Partial<Record<'p50' | 'p90' | 'p99' | 'throughput' | 'error-rate' | 'latency', string>>
  >;
  /** An implementation's image to start as the target (`--image`). */
  readonly image?: string;
  /** `--concurrency`: conformance cases marked concurrent that run at once. */
  readonly concurrency?: number;
  /** `--fault`s of the embedded reference. */
  readonly faults?: readonly string[];
  /** `--silence`s of the embedded reference. */
  readonly silences?: readonly string[];
  readonly orderSeed?: number;
  readonly segments?: number | string;
  readonly rounds?: number;
  /** `k6 manifest`'s own flags. */
  readonly parallelism?: number;
  readonly baseUrl?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly tokenSecret?: string;
  readonly resultsClaim?: string;
  readonly out?: string;
}

/**
 * Every key of a config file and the flag it fills (`_`: the positional scenarios). Typed as a record
 * of every key of `SvcHarnessConfig`, so the type and this table cannot drift; a test holds the
 * schema and the command table to it (issue 37: `concurrency` and `segments` were flags a config
 * file rejected).
 */
export const configKeyFlags = {
  target: 'target',
  areas: 'area',
  rules: 'rules',
  expectations: 'expectations',
  reportDir: 'report-dir',
  reporters: 'reporter',
  scenarios: '_',
  engine: 'engine',
  model: 'model',
  rate: 'rate',
  duration: 'duration',
  warmup: 'warmup',
  ramp: 'ramp',
  connections: 'connections',
  workers: 'workers',
  batch: 'batch',
  valueSize: 'value-size',
  seed: 'seed',
  timeout: 'timeout',
  thresholds: 'threshold',
  params: 'param',
  sinkHost: 'sink-host',
  sinkPort: 'sink-port',
  sinkUrl: 'sink-url',
  sinkThreads: 'sink-threads',
  sinkWait: 'sink-wait',
  baseline: 'baseline',
  tolerances: 'tolerance',
  image: 'image',
  concurrency: 'concurrency',
  faults: 'fault',
  silences: 'silence',
  orderSeed: 'order-seed',
  segments: 'segments',
  rounds: 'rounds',
  parallelism: 'parallelism',
  baseUrl: 'base-url',
  name: 'name',
  namespace: 'namespace',
  tokenSecret: 'token-secret',
  resultsClaim: 'results-claim',
  out: 'out',
} as const satisfies Record<keyof SvcHarnessConfig, string>;

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

const configValidator = lazyValidator(schema, { allErrors: false });

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
  return value as SvcHarnessConfig;
}

/** The keys whose values are paths, resolved from the file's folder. */
const pathKeys = new Set(['target', 'expectations', 'reportDir', 'baseline', 'out']);
const flagOf: Readonly<Record<string, string>> = configKeyFlags;
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

/** The flag's value from a config value, in the form the parser gives that flag. */
function flagValue(spec: CommandSpec, flag: string, key: string, value: unknown, base: string): ParsedValue {
  const path = (text: string) => (pathKeys.has(key) && !isAbsolute(text) ? resolve(base, text) : text);
  if (flag === '_') return (value as readonly string[]).flatMap((entry) => scenarioEntries(entry, base));
  if (key === 'params' || key === 'tolerances') {
    return Object.entries(value as Record<string, number | string>).map(([name, n]) => `${name}=${n}`);
  }
  const option = spec.options[flag];
  const list = Array.isArray(value) ? value.map(String) : [String(value)];
  if (option?.multiple) return list.map(path);
  if (option?.type === 'number') return Number(value);
  return path(list.join(','));
}

/**
 * `values` with the config's defaults filled in where the command line gave nothing; keys the command
 * has no flag for are left out.
 */
export function applyConfig(
  spec: CommandSpec,
  values: ParsedValues,
  config: SvcHarnessConfig,
  file: string,
  applied?: Map<string, string>,
): ParsedValues {
  const base = dirname(file);
  const out: Record<string, ParsedValue> = { ...values };
  for (const [key, value] of Object.entries(config)) {
    if (key === '$schema' || value === undefined) continue;
    const flag = flagOf[key];
    if (flag === undefined) continue;
    if (flag === '_' ? spec.positionals === undefined : spec.options[flag] === undefined) continue;
    const given = out[flag];
    if (given !== undefined && !(Array.isArray(given) && given.length === 0)) continue;
    out[flag] = flagValue(spec, flag, key, value, base);
    applied?.set(flag, key);
  }
  return out;
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
