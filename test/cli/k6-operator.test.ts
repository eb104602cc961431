/**
 * `svc-harness k6 manifest` and `k6 merge` as a k6-operator run uses them, without a cluster: the
 * TestRun validates against k6-operator's own CRD schema (vendored from v1.6.0; mutated copies fail
 * it, so the validator bites), names its ConfigMap and script key, and takes the token from a Secret,
 * never as a value. Then the bundled script runs on the real k6 as the operator's runners would (two
 * processes, one execution segment each, the token in SVC_K6_TOKEN, `--out json` per pod) against a
 * reference started with `svc-harness serve`, each runner's teardown deletes what its setup wrote, and
 * `k6 merge` makes one valid report of the two outputs whose counts are the sum of each alone.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import schema from '../../schemas/report.schema.json' with { type: 'json' };
import { findK6, type K6Binary } from '../../src/engines/load/k6/k6-binary.ts';
import { httpRequest } from '../../src/http/http-client.ts';
import { secretForms } from '../../src/shared/redact.ts';
import { loadTargetFile } from '../../src/target/read-target.ts';
import { type Target, targetSecrets } from '../../src/target/target.ts';
import { startHugeGetKv } from '../engines/load/fixtures/kv-fakes.ts';
import { expectLoadCompleted, expectOneLine } from '../support/cli-expect.ts';
import { alive, redisChildren, waitFor } from '../support/processes.ts';
import { type CliRun, repoRoot, runCli, type StartedProcess, startCli, startProcess } from '../support/run-cli.ts';

const validateReport = new Ajv({ allErrors: true }).compile(schema);

interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string };
    readonly fieldRef?: { readonly fieldPath: string };
  };
}

interface ConfigMap {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> };
  readonly data: Readonly<Record<string, unknown>>;
}

interface TestRun {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly parallelism: number;
    readonly script: { readonly configMap: { readonly name: string; readonly file: string } };
    readonly args: readonly string[];
    readonly runner: {
      readonly image: string;
      readonly env: readonly EnvVar[];
      readonly volumes: readonly { readonly name: string; readonly persistentVolumeClaim?: { claimName: string } }[];
      readonly volumeMounts: readonly { readonly name: string; readonly mountPath: string }[];
    };
  };
}

interface Crd {
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string };
    readonly versions: readonly { readonly name: string; readonly schema: { readonly openAPIV3Schema: object } }[];
  };
}

interface Requests {
  readonly sent: number;
  readonly completed: number;
  readonly failed: number;
  readonly dropped: number;
}

interface MergedScenario {
  readonly name: string;
  readonly engine: string;
  readonly problem: string | null;
  readonly settings: { readonly segments: number | null };
  readonly requests: Requests;
  readonly tags: readonly { readonly tags: Readonly<Record<string, string>>; readonly requests: Requests }[];
  readonly checks: readonly { readonly name: string; readonly passes: number; readonly fails: number }[];
  readonly thresholds: readonly { readonly expression: string; readonly source: string; readonly ok: boolean }[];
  readonly errors?: readonly { readonly kind: string; readonly count: number; readonly example: string }[];
}

interface MergedReport {
  readonly exitCode: number;
  readonly load: { readonly target: string; readonly scenarios: readonly MergedScenario[] };
}

/** k6-operator's TestRun CRD (v1.6.0), vendored next to the repository. */
const crdFile = join(repoRoot, '..', 'shared', 'vendor', 'k6-operator', 'k6.io_testruns.yaml');

let dir: string;
let k6: K6Binary;
let crd: Crd;
let validateTestRun: ValidateFunction;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-k6-operator-'));
  k6 = await findK6({ build: false });
  crd = parse(await readFile(crdFile, 'utf8')) as Crd;
  const [version] = crd.spec.versions;
  if (!version) throw new Error(`${crdFile}: no version`);
  // The CRD schema carries x-kubernetes-* keywords (strict: false) and formats such as int32.
  const ajv = new Ajv({ strict: false, allErrors: true });
  formats.default(ajv);
  validateTestRun = ajv.compile(version.schema.openAPIV3Schema);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The manifest's two objects, in order, from a YAML stream that parses without an error. */
function parseManifest(text: string): { configMap: ConfigMap; testRun: TestRun } {
  const documents = parseAllDocuments(text);
  for (const document of documents) expect(document.errors).toEqual([]);
  const objects = documents.map((document) => document.toJS() as unknown);
  expect(objects).toHaveLength(2);
  return { configMap: objects[0] as ConfigMap, testRun: objects[1] as TestRun };
}

async function manifest(name: string, args: readonly string[]) {
  const out = join(dir, `${name}.yaml`);
  const run = await runCli(['k6', 'manifest', ...args, '--out', out], { timeoutMs: 30_000 });
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(`k6 manifest: wrote ${out}\n`);
  const text = await readFile(out, 'utf8');
  return { text, ...parseManifest(text) };
}

describe('k6 manifest', () => {
  test('command and pipeline on 3 runners: a ConfigMap with the script and a TestRun valid against the CRD', async () => {
    const { text, configMap, testRun } = await manifest('three', [
      'command',
      'pipeline',
      '--parallelism',
      '3',
      '--base-url',
      'http://svc.example:8080',
    ]);

    expect(configMap.apiVersion).toBe('v1');
    expect(configMap.kind).toBe('ConfigMap');
    expect(configMap.metadata.name).toBe('svc-harness-script');
    expect(Object.keys(configMap.data)).toEqual(['svc-harness.js']);
    const script = configMap.data['svc-harness.js'];
    if (typeof script !== 'string') throw new Error('the ConfigMap holds no script string');
    // One bundle: only k6's own modules stay imports; it loads the URL given and exports a function per scenario.
    const imports = script.match(/^import .* from "([^"]+)";$/gm) ?? [];
    expect(imports.length).toBeGreaterThan(0);
    for (const line of imports) expect(line).toMatch(/ from "k6(\/[a-z]+)?";$/);
    expect(script).toContain('"http://svc.example:8080"');
    expect(script).toMatch(/export \{[^}]*\boptions\b[^}]*\bscenario_0\b[^}]*\bscenario_1\b[^}]*\bsetup\b[^}]*\}/);

    const [version] = crd.spec.versions;
    expect(testRun.apiVersion).toBe(`${crd.spec.group}/${version?.name}`);
    expect(testRun.kind).toBe(crd.spec.names.kind);
    expect(validateTestRun(testRun), JSON.stringify(validateTestRun.errors)).toBe(true);
    expect(testRun.spec.parallelism).toBe(3);
    expect(testRun.spec.script.configMap).toEqual({ name: configMap.metadata.name, file: 'svc-harness.js' });

    // The token from a Secret, never a value; each pod writes its output under its own name.
    const env = new Map(testRun.spec.runner.env.map((item) => [item.name, item]));
    expect(env.get('SVC_K6_TOKEN')).toEqual({
      name: 'SVC_K6_TOKEN',
      valueFrom: { secretKeyRef: { name: 'svc-harness-target', key: 'token' } },
    });
    for (const item of testRun.spec.runner.env) expect(item.value, item.name).toBeUndefined();
    expect(env.get('SVC_K6_POD')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(testRun.spec.args).toEqual(['--out', 'json=/results/$(SVC_K6_POD).json.gz']);
    expect(testRun.spec.runner.volumeMounts).toEqual([{ name: 'results', mountPath: '/results' }]);
    expect(testRun.spec.runner.volumes).toEqual([
      { name: 'results', persistentVolumeClaim: { claimName: 'svc-harness-results' } },
    ]);
    expect(testRun.spec.runner.image).toBe(`grafana/k6:${k6.version}`);
    expect(text).not.toMatch(/token:\s*[A-Za-z0-9_-]{20,}/);
  });

  test('--sink-url wins over the target file’s sink.url; --param reaches the bundle; a bad --sink-url is one line', async () => {
    const target = join(dir, 'messaging-target.json');
    await writeFile(
      target,
      JSON.stringify({
        name: 'remote',
        kv: { url: 'http://kv.example:8080', token: 'kv-token-1234567890' },
        messaging: { url: 'http://messaging.example:8081', token: 'messaging-token-1234567890' },
        sink: { url: 'https://from-file.example/sink' },
      }),
    );
    const common = ['publish-fanout', '--target', target, '--param', 'endpoints=3'];
    const fromFile = await manifest('sink-file', common);
    expect(fromFile.configMap.data['svc-harness.js']).toContain('"sinkUrl": "https://from-file.example/sink"');
    const { text, configMap } = await manifest('sink-flag', [...common, '--sink-url', 'https://tunnel.example/h/sink']);
    const script = configMap.data['svc-harness.js'] ?? '';
    expect(script).toContain('"sinkUrl": "https://tunnel.example/h/sink"');
    expect(script).not.toContain('from-file.example');
    expect(script).toMatch(/"params": \{\s*"endpoints": 3\s*\}/);
    expect(text).toContain('# Messaging scenarios: the target delivers to https://tunnel.example/h/sink');
    for (const secret of ['kv-token-1234567890', 'messaging-token-1234567890']) expect(text).not.toContain(secret);
    const bad = await runCli(
      ['k6', 'manifest', ...common, '--sink-url', 'https://tunnel.example/sink?x=1', '--out', join(dir, 'bad.yaml')],
      { timeoutMs: 30_000 },
    );
    expectOneLine(bad, /^svc-harness: --sink-url takes a base URL, .* \[SVC_USAGE\]$/);
    expect(existsSync(join(dir, 'bad.yaml'))).toBe(false);
  });

  // A runner image with the harness's extension (the harness's own k6 here): the bundle imports it, and a
  // runner reads each 16 MB GET answer only up to the cap; without the flag the bundle imports k6's only.
  test('--k6-extension: the bundle imports k6/x/svc-harness, and on a k6 with it each huge answer is garbage past the cap', async () => {
    const server = await startHugeGetKv('length');
    try {
      const { configMap, testRun } = await manifest('extension', [
        'command',
        '--base-url',
        server.url,
        '--rate',
        '20',
        '--duration',
        '2s',
        '--timeout',
        '2s',
        '--k6-extension',
      ]);
      const text = String(configMap.data[testRun.spec.script.configMap.file]);
      expect(text).toMatch(/^import \* as \w+ from "k6\/x\/svc-harness";$/m);
      expect(k6.boundedReads, `${k6.path} lists no k6/x/svc-harness`).toBe(true);
      const script = join(dir, 'extension.js');
      await writeFile(script, text);
      const output = join(dir, 'extension.json.gz');
      const runner = startProcess(
        k6.path,
        [
          'run',
          '--quiet',
          '--no-usage-report',
          '--summary-mode=disabled',
          '--address=',
          '--out',
          `json=${output}`,
          script,
        ],
        { cwd: dir, timeoutMs: 60_000, env: { SVC_K6_TOKEN: 'huge-answers-token-1234', K6_NO_USAGE_REPORT: 'true' } },
      );
      const done = await runner.finished;
      // The script's own thresholds may fail on every GET failing (99); the run completed either way.
      expect([0, 99], done.stderr.slice(-2000)).toContain(done.exitCode);
      const reportDir = join(dir, 'extension-merged');
      const run = await runCli(['k6', 'merge', output, '--report-dir', reportDir], { reportDir, timeoutMs: 30_000 });
      const [scenario] = (run.report as MergedReport).load.scenarios;
      const sentOf = (op: string) => scenario?.tags.find((tag) => tag.tags.op === op)?.requests.sent ?? 0;
      expect(scenario?.requests.sent).toBe(40);
      expect(sentOf('GET')).toBeGreaterThan(0);
      expect(scenario?.errors).toEqual([
        { kind: 'garbage', count: sentOf('GET'), example: expect.stringMatching(/^an answer longer than 66112 bytes/) },
      ]);
      expect(scenario?.requests.completed).toBe(sentOf('SET'));
    } finally {
      await server.close();
    }
  }, 90_000);

  test('the CRD validator bites: a mutated TestRun fails it', () => {
    const { testRun } = parseManifest(
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: { name: x-script }',
        'data: { svc-harness.js: "export default function () {}" }',
        '---',
        'apiVersion: k6.io/v1alpha1',
        'kind: TestRun',
        'metadata: { name: x }',
        'spec: { parallelism: 3, script: { configMap: { name: x-script, file: svc-harness.js } } }',
      ].join('\n'),
    );
    expect(validateTestRun(testRun), JSON.stringify(validateTestRun.errors)).toBe(true);
    const mutated: readonly [string, unknown][] = [
      ['parallelism as a string', { ...testRun, spec: { ...testRun.spec, parallelism: '3' } }],
      ['cleanup not "post"', { ...testRun, spec: { ...testRun.spec, cleanup: 'always' } }],
      ['a ConfigMap without its name', { ...testRun, spec: { ...testRun.spec, script: { configMap: { file: 'x' } } } }],
      ['args as one string', { ...testRun, spec: { ...testRun.spec, args: '--out json=/results/x.json' } }],
      ['no parallelism', { ...testRun, spec: { script: testRun.spec.script } }],
    ];
    for (const [name, object] of mutated) expect(validateTestRun(object), name).toBe(false);
  });
});

describe('the bundled script on k6, as k6-operator’s runners run it', () => {
  let serve: StartedProcess;
  let redis: number[] = [];
  let targetFile: string;
  let target: Target;

  beforeAll(async () => {
    targetFile = join(dir, 'target.json');
    serve = startCli(['serve', '--write-target', targetFile], { timeoutMs: 300_000, env: { REDIS_URL: '' } });
    const up = await waitFor(() => serve.stdout().includes('Stop with Ctrl-C') && existsSync(targetFile), 60_000);
    if (!up) throw new Error(`svc-harness serve did not start: ${serve.stdout()}`);
    redis = redisChildren(serve.child.pid ?? 0);
    target = await loadTargetFile(targetFile);
  });

  afterAll(async () => {
    if (!serve) return;
    serve.child.kill('SIGTERM');
    const done = await serve.finished;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(redis.length).toBeGreaterThan(0);
    expect(await waitFor(() => redis.every((pid) => !alive(pid)), 10_000)).toBe(true);
  });

  /** `k6 merge FILE…` into its own report folder. */
  async function merge(name: string, files: readonly string[]): Promise<{ run: CliRun; report: MergedReport }> {
    const reportDir = join(dir, name);
    const run = await runCli(['k6', 'merge', ...files, '--report-dir', reportDir], { reportDir, timeoutMs: 30_000 });
    expect(run.report, run.stderr).toBeDefined();
    expect(validateReport(run.report), JSON.stringify(validateReport.errors)).toBe(true);
    return { run, report: run.report as MergedReport };
  }

  test('two runners, one segment each, then k6 merge: one valid report, the sum of both outputs', async () => {
    const kv = target.kv;
    if (!kv) throw new Error('the target file has no kv area');
    // A 2 s request timeout keeps the gap between the two scenarios short (it is the graceful stop).
    const { text, configMap, testRun } = await manifest('runners', [
      'command',
      'pipeline',
      '--target',
      targetFile,
      '--duration',
      '2s',
      '--timeout',
      '2s',
      '--parallelism',
      '2',
    ]);
    expect(validateTestRun(testRun), JSON.stringify(validateTestRun.errors)).toBe(true);
    expect(testRun.spec.parallelism).toBe(2);
    const secrets = targetSecrets(target).flatMap(secretForms);
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const secret of secrets)
      expect(text.includes(secret), `a secret in the manifest: ${secret.slice(0, 3)}…`).toBe(false);
    expect(text).toContain(kv.url);

    const script = join(dir, testRun.spec.script.configMap.file);
    await writeFile(script, String(configMap.data[testRun.spec.script.configMap.file]));
    // What k6-operator v1.6.0 runs in runner i of 2, with the TestRun's args (`--out json=…`) per pod.
    const segments = ['0:1/2', '1/2:1'];
    const outputs = segments.map((_, index) => join(dir, `pod-${index}.json.gz`));
    const runners = segments.map((segment, index) =>
      startProcess(
        k6.path,
        [
          'run',
          '--quiet',
          '--no-usage-report',
          '--summary-mode=disabled',
          '--address=',
          `--execution-segment=${segment}`,
          '--execution-segment-sequence=0,1/2,1',
          '--tag',
          `instance_id=${index}`,
          '--out',
          `json=${outputs[index]}`,
          script,
        ],
        { cwd: dir, timeoutMs: 90_000, env: { SVC_K6_TOKEN: kv.token, K6_NO_USAGE_REPORT: 'true' } },
      ),
    );
    const finished = await Promise.all(runners.map((runner) => runner.finished));
    finished.forEach((done, index) => {
      expect(done.exitCode, `runner ${index}: ${done.stderr.slice(-2000)}`).toBe(0);
      expect(existsSync(outputs[index] ?? ''), `runner ${index}`).toBe(true);
    });

    // Each runner ran the scenarios' setup under a prefix of its own and deleted it in teardown.
    const size = await httpRequest({ url: `${kv.url}/dbsize`, headers: { authorization: `Bearer ${kv.token}` } });
    expect(size.status, size.body.toString()).toBe(200);
    expect(JSON.parse(size.body.toString())).toEqual({ result: 0 });

    const { run, report } = await merge('merged', outputs);
    expectLoadCompleted(run.exitCode, report.load.scenarios, run.stderr.slice(-2000));
    expect(report.exitCode).toBe(run.exitCode);
    expect(report.load.target).toBe('k6 outputs (2 files)');
    expect(report.load.scenarios.map((scenario) => scenario.name)).toEqual(['command', 'pipeline']);
    for (const scenario of report.load.scenarios) {
      expect(scenario.engine, scenario.name).toBe('k6');
      expect(scenario.problem, scenario.name).toBeNull();
      expect(scenario.settings.segments, scenario.name).toBe(2);
      expect(scenario.requests.completed, scenario.name).toBeGreaterThan(0);
      expect(scenario.requests.failed, scenario.name).toBe(0);
      expect(scenario.requests.sent, scenario.name).toBe(scenario.requests.completed);
      for (const check of scenario.checks) expect(check.fails, `${scenario.name}: ${check.name}`).toBe(0);
      // The thresholds the script carried in its output, judged over both files.
      expect(scenario.thresholds, scenario.name).toContainEqual(
        expect.objectContaining({ expression: 'http_req_failed: rate < 0.01', source: 'scenario', ok: true }),
      );
      expect(scenario.thresholds.length, scenario.name).toBeGreaterThanOrEqual(3);
      // expectLoadCompleted above: only a latency threshold may fail on a machine shared with other tests.
      // The runner's instance_id tag is k6-operator's, not the scenario's: it splits no tag entry.
      for (const tag of scenario.tags) expect(Object.keys(tag.tags), scenario.name).not.toContain('instance_id');
    }
    const pipeline = report.load.scenarios.find((scenario) => scenario.name === 'pipeline');
    const batches = [...new Set(pipeline?.tags.map((tag) => tag.tags.batch))].sort((a, b) => Number(a) - Number(b));
    expect(batches).toEqual(['1', '10', '100', '1000']);

    // Each output alone: segments 1, and the merged counts are their sums. (Alone, a segment may lack
    // a batch size, so a `{batch:1}` threshold has no data and fails: exit 99 is allowed there.)
    const alone = await Promise.all(outputs.map((output, index) => merge(`alone-${index}`, [output])));
    for (const { run: single, report: part } of alone) {
      expect([0, 99], single.stderr).toContain(single.exitCode);
      expect(part.load.target).toBe('k6 outputs (1 file)');
      for (const scenario of part.load.scenarios) expect(scenario.settings.segments, scenario.name).toBe(1);
    }
    for (const scenario of report.load.scenarios) {
      const parts = alone.map(
        ({ report: part }) => part.load.scenarios.find((entry) => entry.name === scenario.name)?.requests,
      );
      for (const key of ['sent', 'completed', 'failed', 'dropped'] as const) {
        const sum = parts.reduce((total, requests) => total + (requests?.[key] ?? Number.NaN), 0);
        expect(scenario.requests[key], `${scenario.name} ${key}`).toBe(sum);
      }
      for (const requests of parts) expect(requests?.completed, scenario.name).toBeGreaterThan(0);
    }
  }, 120_000);
});
