/**
 * The package as a user gets it, and every example of the README run verbatim (issue 36): the tarball the
 * README's `npm pack` line wrote in this clone (pack-once.ts), installed by the README's next line into a
 * project made by `npm init -y` as it is, then `npx svc-harness run`, the user's own TypeScript scenario
 * and config file, and the programmatic API's example of docs/api.md. The README's `run --target
 * staging.json` (install-target.test.ts) and the example workflow (workflow.test.ts) run in files of
 * their own, side by side with this one. The npm registry supplies the package's dependencies, as for
 * any user.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { expectLoadCompleted } from '../support/cli-expect.ts';
import { repoRoot, startProcess } from '../support/run-cli.ts';
import {
  expectMainJobCompleted,
  newReportDir,
  packedTarball,
  readReport,
  reportFolders,
  run,
  useConsumerProject,
} from './consumer-project.ts';
import { example, fencedBlocks, firstGateLines, readme, shell } from './readme-blocks.ts';

let project: string;
useConsumerProject((made) => {
  project = made;
});

describe('svc-harness installed from its tarball into an empty project', () => {
  test('ships only what runs, brings no Node of its own, and declares the Node it needs', async () => {
    const listed = await run('tar', ['tzf', packedTarball()], 30_000, project);
    const files = listed.stdout.trim().split('\n');
    expect(files.filter((file) => /^package\/(test|bench|src|scripts)\//.test(file))).toEqual([]);
    expect(files).toContain('package/dist/src/cli/main.js');
    expect(files).toContain('package/dist/src/protocol/scenario.d.ts');
    // The example workflow ships, to be copied from node_modules/svc-harness/examples/ (issue 36).
    expect(files).toContain('package/examples/github-actions/svc-harness.yml');
    // The k6 extension's Go, which an installed harness compiles into its k6 build (k6-extension.ts).
    expect(files).toContain('package/dist/src/engines/load/k6/extension/answercap.go');
    expect(files.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toBe(false);
    const bin = await readdir(join(project, 'node_modules', '.bin'));
    expect(bin).not.toContain('node');
    expect(bin).toContain('svc-harness');
  });

  test('every block of the README is one these tests run verbatim, or one CI runs', async () => {
    const ci = await readFile(join(repoRoot, '.ci', 'run'), 'utf8');
    const runHere = [
      'npm pack',
      '// perf/my-echo.ts',
      '// svc-harness.config.ts',
      'mkdir -p .github/workflows',
      'npx svc-harness soak',
    ];
    for (const block of fencedBlocks(await readme())) {
      const here = runHere.some((first) => block.text.startsWith(first));
      // The fresh machine's two commands are CI's own steps (.ci/run: set-up, the main job, npm test).
      const inCi = block.text
        .trim()
        .split('&&')
        .every((command) => ci.includes(command.trim().replace(/^npx svc-harness run$/, 'npx svc-harness run ')));
      expect(here || inCi, `a README block no test runs:\n${block.text}`).toBe(true);
    }
  });

  test("the README's npx svc-harness run: conformance and load against the embedded reference, every report written", async () => {
    const line = (await firstGateLines())[2]?.command ?? '';
    expect(line).toBe('npx svc-harness run');
    const before = await reportFolders(project);
    const done = await shell(line, 600_000, project);
    const context = `${done.stdout.slice(-3000)}\n${done.stderr.slice(-2000)}`;
    const dir = await newReportDir(project, before);
    expect((await readdir(dir)).sort(), context).toEqual(
      ['index.html', 'junit.xml', 'report.json', 'summary.md'].sort(),
    );
    expectMainJobCompleted(done.exitCode, done.stdout, await readReport(dir), context);
  }, 620_000);

  test("docs/api.md's example: the programmatic API from the installed package", async () => {
    const code = await example('js', '// api-example.mjs', 'docs/api.md');
    await writeFile(join(project, 'api-example.mjs'), code);
    const done = await run('node', ['api-example.mjs'], 120_000, project);
    expect(done.stdout).toMatch(/^command: \d+ of \d+ answered, [1-9]\d* progress events$/m);
  }, 130_000);

  test("docs/api.md's reporter module: a TypeScript reporter typed by the package, run by its path", async () => {
    const code = await example('ts', '// my-reporter.ts', 'docs/api.md');
    await writeFile(join(project, 'my-reporter.ts'), code);
    const line = /run with: (npx svc-harness .*)$/m.exec(code)?.[1] ?? '';
    // report.json too (`--reporter json`), to judge the thresholds: beside the exhaustive fault runs a
    // latency bound may fail (exit 99), and only that may (cli-expect.ts).
    const done = await shell(`${line} --reporter json --report-dir reports/mine`, 120_000, project);
    const report = JSON.parse(await readFile(join(project, 'reports', 'mine', 'report.json'), 'utf8')) as {
      load: { scenarios: { thresholds: { expression: string; ok: boolean }[] }[] };
    };
    expectLoadCompleted(
      done.exitCode,
      report.load.scenarios,
      `${done.stdout.slice(-2000)}\n${done.stderr.slice(-2000)}`,
    );
    expect(done.stdout).toMatch(/^my-reporter: command on node: [1-9]\d* seconds seen, [1-9]\d* completed in all$/m);
    expect(await readFile(join(project, 'reports', 'mine', 'my-progress.txt'), 'utf8')).toMatch(
      /^command 1 s: [1-9]\d* completed, p99 [\d.]+ ms$/m,
    );
  }, 130_000);

  test("a user's own TypeScript scenario, importing svc-harness/scenario, runs by its path and from a config file's glob", async () => {
    await mkdir(join(project, 'perf'));
    await writeFile(join(project, 'perf', 'my-echo.ts'), await example('ts', '// perf/my-echo.ts'));
    const byPath = await run(
      'npx',
      ['svc-harness', 'load', './perf/my-echo.ts', '--report-dir', 'reports/own'],
      120_000,
      project,
    );
    expect(byPath.stdout).toMatch(/my-echo +40 /);
    expect(byPath.stdout).toMatch(/thresholds 2\/2 ok/);
    // The compiled module beside the scenario is gone with the run.
    expect(await readdir(join(project, 'perf'))).toEqual(['my-echo.ts']);
    await writeFile(join(project, 'svc-harness.config.ts'), await example('ts', '// svc-harness.config.ts'));
    const configured = await startProcess('npx', ['svc-harness', 'load'], { cwd: project, timeoutMs: 180_000 })
      .finished;
    const context = `${configured.stdout.slice(-3000)}\n${configured.stderr.slice(-2000)}`;
    expect(configured.stdout, context).toMatch(/my-echo +250 /);
    expect(configured.stdout, context).toMatch(/command +250 /);
    const report = await readReport(join(project, 'reports', 'latest'));
    // The config's p(99)<300 is a latency bound: beside the fault runs only it may fail.
    expectLoadCompleted(configured.exitCode, report.load.scenarios, context);
  }, 260_000);

  test('the programmatic API and the scenario API import from the package', async () => {
    const done = await run(
      'node',
      [
        '--input-type=module',
        '-e',
        "const api = await import('svc-harness'); const scenario = await import('svc-harness/scenario'); console.log(JSON.stringify([Object.keys(api).sort(), typeof scenario.defineScenario]));",
      ],
      30_000,
      project,
    );
    expect(JSON.parse(done.stdout)).toEqual([
      [
        'createReporters',
        'defaultLoadSettings',
        'defineConfig',
        'defineScenario',
        'runConformance',
        'runLoad',
        'runMainJob',
        'runSoak',
      ],
      'function',
    ]);
  });
});
