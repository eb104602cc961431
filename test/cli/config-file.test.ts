import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import configSchema from '../../schemas/config.schema.json' with { type: 'json' };
import { type CommandSpec, commandTable } from '../../src/cli/command-table.ts';
import {
  applyConfig,
  blameConfigFile,
  configFileNames,
  configKeyFlags,
  findConfigFile,
  readConfigFile,
} from '../../src/cli/config-file.ts';
import type { ConfigKey, SvcHarnessConfig } from '../../src/cli/config-keys.ts';
import { configSchema as tableSchema } from '../../src/cli/config-schema.ts';
import { parseArgv } from '../../src/cli/parse-argv.ts';
import { harnessError, isHarnessError } from '../../src/shared/errors.ts';
import { harnessErrorMessage } from '../support/harness-error.ts';
import { runCli } from '../support/run-cli.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'harness-config-'));
  await mkdir(join(dir, 'perf'));
  await writeFile(join(dir, 'perf', 'b.ts'), '');
  await writeFile(join(dir, 'perf', 'a.ts'), '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const values = (argv: string[]) => {
  const parsed = parseArgv(argv);
  if (parsed.kind !== 'run') throw new Error('not a run');
  return parsed.values;
};

describe('the config file', () => {
  test('found as vitest finds its own: --config, else the first svc-harness.config.* in the folder, else none', async () => {
    expect(findConfigFile(undefined, dir)).toBeUndefined();
    await writeFile(join(dir, 'svc-harness.config.json'), '{}');
    await writeFile(join(dir, 'svc-harness.config.ts'), 'export default {};');
    expect(findConfigFile(undefined, dir)).toBe(join(dir, configFileNames[0]));
    expect(findConfigFile('svc-harness.config.json', dir)).toBe(join(dir, 'svc-harness.config.json'));
    expect(harnessErrorMessage('SVC_CONFIG', () => findConfigFile('other.json', dir))).toBe(
      'config file other.json: no such file',
    );
    await rm(join(dir, 'svc-harness.config.json'));
    await rm(join(dir, 'svc-harness.config.ts'));
  });

  test('fills the flags the command line left out, each in its flag form; the command line wins; other commands ignore keys they lack', () => {
    const config = {
      target: 'targets/staging.json',
      areas: ['kv', 'messaging'],
      scenarios: ['command', 'perf/*.ts'],
      rate: 50,
      duration: '1m30s',
      thresholds: ['http_req_duration: p(99)<300'],
      params: { endpoints: 3 },
      sinkPort: 8899,
      reportDir: 'out',
    } as const;
    const file = join(dir, 'svc-harness.config.json');
    const load = applyConfig(commandTable.load, values(['load', '--rate', '7']), config, file);
    expect(load).toMatchObject({
      target: join(dir, 'targets/staging.json'),
      _: ['command', join(dir, 'perf/a.ts'), join(dir, 'perf/b.ts')],
      rate: 7,
      duration: 90_000,
      threshold: ['http_req_duration: p(99)<300'],
      param: ['endpoints=3'],
      'sink-port': 8899,
      'report-dir': join(dir, 'out'),
    });
    expect(load).not.toHaveProperty('area');
    const conformance = applyConfig(commandTable.conformance, values(['conformance']), config, file);
    expect(conformance).toMatchObject({ target: [join(dir, 'targets/staging.json')], area: ['kv', 'messaging'] });
    expect(conformance).not.toHaveProperty('rate');
    expect(applyConfig(commandTable.load, values(['load', 'pipeline']), config, file)._).toEqual(['pipeline']);
  });

  test('a TypeScript config with defineConfig loads; a key that is none, a bad value or a file that does not load is one line', async () => {
    const ts = join(dir, 'good.config.ts');
    await writeFile(
      ts,
      "import { defineConfig } from '" +
        new URL('../../src/cli/api.ts', import.meta.url).pathname +
        "';\nexport default defineConfig({ rate: 5, areas: ['kv'] });\n",
    );
    expect(await readConfigFile(ts)).toEqual({ rate: 5, areas: ['kv'] });
    const bad = async (name: string, text: string) => {
      await writeFile(join(dir, name), text);
      return readConfigFile(join(dir, name)).then(
        () => 'loaded',
        (error: Error) => error.message,
      );
    };
    expect(await bad('a.json', '{"rat": 5}')).toMatch(
      /has "rat", which is no key of a config file; did you mean rate\?$/,
    );
    expect(await bad('b.json', '{"areas": ["queues"]}')).toMatch(
      /config file .*b\.json: areas\.0 must be equal to one of the allowed values$/,
    );
    expect(await bad('c.json', '{"rate": ')).toMatch(/not JSON/);
    expect(await bad('d.mjs', 'export default {; }')).toMatch(/it does not load/);
  });

  test('svc-harness load in a folder with a config file: its scenarios and settings, one line for a bad one', async () => {
    const project = join(dir, 'project');
    await mkdir(project);
    await writeFile(
      join(project, 'svc-harness.config.json'),
      JSON.stringify({ scenarios: ['command'], rate: 10, duration: '1s', reportDir: 'out' }),
    );
    const run = await runCli(['load'], { cwd: project, reportDir: join(project, 'out'), timeoutMs: 60_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/command \(node, open\): 10\/10 completed/);
    await writeFile(join(project, 'svc-harness.config.json'), '{"duration": "soon"}');
    const bad = await runCli(['load', 'command'], { cwd: project });
    expect(bad.exitCode).toBe(2);
    // Blamed on the file's key, not on a flag nobody typed (issue 36); the flag, when typed, is blamed as before.
    const configFile = join(project, 'svc-harness.config.json');
    expect(bad.stderr.trim()).toBe(
      `svc-harness: load: config file ${configFile}: duration "soon" is not a duration (500ms, 10s, 2m, 1h, 1m30s) [SVC_CONFIG]`,
    );
    const typed = await runCli(['load', 'command', '--rate', 'x'], { cwd: project });
    expect(typed.stderr.trim()).toMatch(/^svc-harness: load: --rate "x" is not a number above zero \[SVC_USAGE\]$/);
  }, 90_000);

  test('a usage error is blamed on the config key that gave the flag its value, and only then', () => {
    const applied = new Map([
      ['duration', 'duration'],
      ['report-dir', 'reportDir'],
    ]);
    const blamed = blameConfigFile(harnessError('SVC_USAGE', 'load: --report-dir "x" is a file'), 'c.json', applied);
    expect(isHarnessError(blamed) && [blamed.code, blamed.message]).toEqual([
      'SVC_CONFIG',
      'load: config file c.json: reportDir "x" is a file',
    ]);
    const typed = harnessError('SVC_USAGE', 'load: --rate "x" is not a number above zero');
    expect(blameConfigFile(typed, 'c.json', applied)).toBe(typed);
    // --duration-x is another flag: the name must end where the flag's does.
    const other = harnessError('SVC_USAGE', 'load: --duration-x "1"');
    expect(blameConfigFile(other, 'c.json', applied)).toBe(other);
    const notUsage = harnessError('SVC_TARGET_UNREACHABLE', 'load: --duration');
    expect(blameConfigFile(notUsage, 'c.json', applied)).toBe(notUsage);
  });

  // The type is held to configKeyFlags by the compiler (a record of every key); these hold the schema
  // and the command table to it, so the three cannot drift (issue 37, item 3).
  test('the schema, the type and the command table name the same keys: every flag of a command that reads the file is one', () => {
    const keys = Object.keys(configKeyFlags).sort();
    expect(
      Object.keys(configSchema.properties)
        .filter((key) => key !== '$schema')
        .sort(),
    ).toEqual(keys);
    const readers = Object.values(commandTable as Readonly<Record<string, CommandSpec>>).filter(
      (spec) => spec.options.config !== undefined,
    );
    const flags = new Set(readers.flatMap((spec) => Object.keys(spec.options)));
    // Flags that are no default of a run: which file to read, and listing instead of running.
    const notConfig = new Set(['config', 'list', 'list-faults', 'list-silences', 'json']);
    const filled = new Set<string>(Object.values(configKeyFlags));
    expect([...flags].filter((flag) => !notConfig.has(flag) && !filled.has(flag))).toEqual([]);
    expect([...filled].filter((flag) => flag !== '_' && !flags.has(flag))).toEqual([]);
  });

  test('the keys that were flags a config file rejected fill their flags', () => {
    const spec = commandTable.conformance;
    const filled = applyConfig(
      spec,
      values(['conformance']),
      { concurrency: 2, faults: ['x'], orderSeed: 3 },
      join(dir, 'c.json'),
    );
    expect([filled.concurrency, filled.fault, filled['order-seed']]).toEqual([2, ['x'], 3]);
    const load = applyConfig(commandTable.load, values(['load']), { segments: 2 }, join(dir, 'c.json'));
    expect(load.segments).toBe(2);
  });

  // The schema and the type are made from the command table; these hold the file written from it
  // (`npm run readme`) and the type's keys to it, so neither can drift from the flags.
  test('schemas/config.schema.json is the schema the command table gives (npm run readme writes it)', () => {
    expect(configSchema).toEqual(tableSchema());
  });

  test("the config type's keys and each key's type follow from its flag's kind", () => {
    const keys = [
      'target',
      'areas',
      'rules',
      'expectations',
      'reportDir',
      'reporters',
      'scenarios',
      'engine',
      'model',
      'rate',
      'duration',
      'warmup',
      'ramp',
      'connections',
      'workers',
      'batch',
      'valueSize',
      'seed',
      'timeout',
      'thresholds',
      'params',
      'sinkHost',
      'sinkPort',
      'sinkUrl',
      'sinkThreads',
      'sinkWait',
      'baseline',
      'tolerances',
      'image',
      'concurrency',
      'faults',
      'silences',
      'orderSeed',
      'segments',
      'rounds',
      'parallelism',
      'baseUrl',
      'name',
      'namespace',
      'tokenSecret',
      'resultsClaim',
      'k6Extension',
      'out',
      'outs',
      'quiet',
      'verbose',
    ] as const;
    expectTypeOf<ConfigKey>().toEqualTypeOf<(typeof keys)[number]>();
    expect(Object.keys(configKeyFlags).sort()).toEqual([...keys].sort());
    expectTypeOf<SvcHarnessConfig['duration']>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<SvcHarnessConfig['areas']>().toEqualTypeOf<
      readonly ('kv' | 'messaging' | 'management')[] | string | undefined
    >();
    expectTypeOf<SvcHarnessConfig['target']>().toEqualTypeOf<string | readonly string[] | undefined>();
    expectTypeOf<SvcHarnessConfig['params']>().toEqualTypeOf<Readonly<Record<string, number>> | undefined>();
    expectTypeOf<SvcHarnessConfig['model']>().toEqualTypeOf<'open' | 'closed' | undefined>();
  });

  test("a config value is read by its flag's kind, and a wrong one blames the file's key", () => {
    const file = join(dir, 'c.json');
    const read = (command: 'conformance' | 'load', config: SvcHarnessConfig) =>
      applyConfig(commandTable[command], values([command]), config, file);
    // A number is seconds, as the duration grammar's bare number is.
    expect(read('load', { duration: 90, timeout: '2s', batch: [1, 10], engine: 'node,k6' })).toMatchObject({
      duration: 90_000,
      timeout: 2000,
      batch: [1, 10],
      engine: ['node', 'k6'],
    });
    // One file serves every command: load's one --target takes a one-item array.
    expect(read('load', { target: ['t.json'] }).target).toBe(join(dir, 't.json'));
    const blamed = (command: 'conformance' | 'load', config: SvcHarnessConfig) =>
      harnessErrorMessage('SVC_CONFIG', () => read(command, config));
    expect(blamed('conformance', { timeout: 'soon' })).toBe(
      `conformance: config file ${file}: timeout takes a duration (2s), not "soon"`,
    );
    expect(blamed('conformance', { sinkWait: 7200 })).toBe(
      `conformance: config file ${file}: sinkWait takes a duration up to 1 hour (15s, 2m, 1m30s, 1h), not 7200`,
    );
    expect(blamed('conformance', { areas: 'kv,queues' })).toBe(
      `conformance: unknown area "queues" in config file ${file}: areas (areas: kv, messaging, management)`,
    );
    expect(blamed('load', { connections: 0 })).toBe(
      `load: config file ${file}: connections 0 is not a whole number above zero`,
    );
    expect(blamed('conformance', { concurrency: 0 })).toBe(
      `conformance: config file ${file}: concurrency must be at least 1, got 0`,
    );
    expect(blamed('load', { engine: ['node', 'node'] })).toBe(
      `load: config file ${file}: engine ["node","node"] is not node, node-undici, k6 or a list of them (node,k6)`,
    );
  });
});
