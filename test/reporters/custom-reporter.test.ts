/**
 * Reporters of the user's own (src/reporters/custom-reporter.ts), by path: TypeScript and CommonJS
 * modules in a CommonJS project, a default export that is a reporter, a function or a class making
 * one, and anything else refused in one line; a reporter whose live hook throws is named once and
 * the others still write their files (src/results/reporter.ts); docs/api.md's reporter module run
 * verbatim through the CLI, and one that throws, end to end.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadReporterModule } from '../../src/reporters/custom-reporter.ts';
import type { HarnessRun } from '../../src/results/harness-run.ts';
import { type Reporter, reporterEvents } from '../../src/results/reporter.ts';
import { createRuleCatalog } from '../../src/results/rule.ts';
import { isHarnessError } from '../../src/shared/errors.ts';
import { example } from '../package/readme-blocks.ts';
import { runCli } from '../support/run-cli.ts';

let project: string;
beforeAll(async () => {
  // A CommonJS project, as `npm init -y` makes: a bare import() of its .ts files would read them as CommonJS.
  project = await mkdtemp(join(tmpdir(), 'svc-custom-reporter-'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'mine', type: 'commonjs' }));
});
afterAll(() => rm(project, { recursive: true, force: true }));

const endContext = { catalog: createRuleCatalog([]), redact: (text: string) => text };
const run = (reportDir: string) =>
  ({
    startedAt: '2026-12-01T20:00:00.000Z',
    finishedAt: '2026-12-01T20:00:01.000Z',
    durationMs: 1000,
    reportDir,
    exitCode: 0,
    problems: [],
  }) satisfies HarnessRun;

describe('a reporter module of your own', () => {
  test('TypeScript with imports, in a CommonJS project: its default export, its hooks bound to it', async () => {
    await writeFile(
      join(project, 'ts-reporter.ts'),
      [
        "import { writeFileSync } from 'node:fs';",
        "import { join } from 'node:path';",
        'class Counting {',
        "  readonly name = 'counting';",
        '  ends = 0;',
        '  onRunEnd(run: { reportDir: string }) {',
        '    this.ends++;',
        "    writeFileSync(join(run.reportDir, 'ends.txt'), String(this.ends));",
        '  }',
        '}',
        'export default Counting;',
      ].join('\n'),
    );
    const reporter = await loadReporterModule('./ts-reporter.ts', project);
    expect(reporter.name).toBe('counting');
    // A class is made once, and its methods see their instance.
    await reporter.onRunEnd?.(run(project), endContext);
    await reporter.onRunEnd?.(run(project), endContext);
    expect(await readFile(join(project, 'ends.txt'), 'utf8')).toBe('2');
  });

  test('CommonJS (module.exports, a factory), named after its file when it has no name', async () => {
    await writeFile(
      join(project, 'cjs-reporter.cjs'),
      "const seen = []; module.exports = () => ({ onProblem: (line) => seen.push(line), onRunEnd: () => { require('node:fs').writeFileSync(__dirname + '/cjs-seen.txt', seen.join(',')); } });",
    );
    const reporter = await loadReporterModule('./cjs-reporter.cjs', project);
    expect(reporter.name).toBe('cjs-reporter.cjs');
    reporter.onProblem?.('a');
    reporter.onProblem?.('b');
    await reporter.onRunEnd?.(run(project), endContext);
    expect(await readFile(join(project, 'cjs-seen.txt'), 'utf8')).toBe('a,b');
  });

  test('anything else is one line that says what a reporter is; so is a file that does not compile', async () => {
    await writeFile(join(project, 'not-one.ts'), 'export default 42;');
    await writeFile(join(project, 'broken.ts'), 'export default {');
    for (const [file, line] of [
      [
        './not-one.ts',
        /^reporter \.\/not-one\.ts: its default export is no Reporter: an object with hooks \(onRunStart, .*onRunEnd\), or a function or class that makes one$/,
      ],
      ['./broken.ts', /^reporter .*broken\.ts: it does not compile: /],
    ] as const) {
      const error = await loadReporterModule(file, project).catch((caught: unknown) => caught);
      expect(isHarnessError(error) && error.code).toBe('SVC_CONFIG');
      expect((error as Error).message).toMatch(line);
    }
  });
});

describe('a reporter that throws', () => {
  test('a live hook that throws is told once, hears no more, and the others go on and write', async () => {
    const lines: string[] = [];
    const heard: string[] = [];
    const thrower: Reporter = {
      name: 'thrower',
      file: 'thrown.txt',
      onProblem() {
        throw new Error('boom');
      },
      onRunEnd() {
        heard.push('thrower end');
      },
    };
    const good: Reporter = {
      name: 'good',
      onProblem: (line) => heard.push(line),
      onRunEnd: () => {
        heard.push('good end');
      },
    };
    const events = reporterEvents([thrower, good], (line) => lines.push(line));
    events.onProblem('first');
    events.onProblem('second');
    expect(lines).toEqual([
      'a reporter failed, it hears no more of this run: thrower (thrown.txt): onProblem threw: boom',
    ]);
    const error = await Promise.resolve()
      .then(() => events.onRunEnd(run('/tmp/x'), endContext))
      .catch((caught: unknown) => caught);
    expect(heard).toEqual(['first', 'second', 'thrower end', 'good end']);
    expect(isHarnessError(error) && error.code).toBe('SVC_REPORTER');
    expect((error as Error).message).toBe(
      'a reporter failed, the others wrote their files: thrower (thrown.txt): onProblem threw: boom',
    );
  });
});

describe('through the CLI', () => {
  test("docs/api.md's reporter module, verbatim, with the command line its first line gives", async () => {
    const code = await example('ts', '// my-reporter.ts', 'docs/api.md');
    await writeFile(join(project, 'my-reporter.ts'), code);
    const given = /run with: npx svc-harness (.*)$/m.exec(code)?.[1] ?? '';
    expect(given).toMatch(/^load command /);
    const reportDir = join(project, 'reports-mine');
    const done = await runCli([...given.split(' '), '--report-dir', reportDir], {
      cwd: project,
      timeoutMs: 90_000,
    });
    const context = `${done.stdout}\n${done.stderr}`;
    expect(done.exitCode, context).toBe(0);
    expect(done.stdout).toMatch(/^my-reporter: command on node: [1-9]\d* seconds seen, [1-9]\d* completed in all$/m);
    // The console's summary names its file, and no other reporter wrote one.
    expect(done.stdout).toMatch(/^reports: .*reports-mine \(my-progress\.txt\)$/m);
    expect(await readdir(reportDir)).toEqual(['my-progress.txt']);
    const lines = (await readFile(join(reportDir, 'my-progress.txt'), 'utf8')).trim().split('\n');
    // The first tick's second: 1, or 2 when a loaded machine ran the first tick late.
    expect(lines[0], lines.join('\n')).toMatch(/^command [12] s: [1-9]\d* completed, p99 [\d.]+ ms$/);
    // The compiled module beside it is gone with the run.
    expect((await readdir(project)).filter((name) => name.startsWith('.my-reporter.ts.'))).toEqual([]);
  }, 100_000);

  test('a reporter that throws: the run ends, the other reporters write their files, and one line names it', async () => {
    await writeFile(
      join(project, 'throws.ts'),
      "export default { name: 'throws', onScenarioStart() { throw new Error('not today'); } };",
    );
    const reportDir = join(project, 'reports-throws');
    const done = await runCli(
      [
        'load',
        'command',
        '--duration',
        '1s',
        '--reporter',
        './throws.ts',
        '--reporter',
        'json',
        '--report-dir',
        reportDir,
      ],
      { cwd: project, timeoutMs: 90_000 },
    );
    expect(done.exitCode, done.stderr).toBe(2);
    expect(done.stderr).toMatch(
      /^svc-harness: a reporter failed, the others wrote their files: throws: onScenarioStart threw: not today \[SVC_REPORTER\]$/m,
    );
    expect(existsSync(join(reportDir, 'report.json'))).toBe(true);
  }, 100_000);

  test('a reporter that is neither a name nor a path is one line, exit 2', async () => {
    const done = await runCli(['load', 'command', '--reporter', 'jsno'], { cwd: project, timeoutMs: 30_000 });
    expect(done.exitCode).toBe(2);
    expect(done.stderr.trim()).toBe(
      'svc-harness: load: --reporter "jsno" is no reporter (reporters: console, json, junit, markdown, html) and no path to a module of your own (./my-reporter.ts) [SVC_USAGE]',
    );
  });
});
