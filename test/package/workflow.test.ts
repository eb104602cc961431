/**
 * The example GitHub Actions workflow, copied by the README's line from the installed package into a
 * user's project (made as install.test.ts makes one, side by side with it), and its run steps run in
 * order in a repository that depends on the package.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { expectLoadCompleted } from '../support/cli-expect.ts';
import { alive, waitFor } from '../support/processes.ts';
import { repoRoot, startProcess } from '../support/run-cli.ts';
import { packedTarball, readReport, run, useConsumerProject } from './consumer-project.ts';
import { example, shell } from './readme-blocks.ts';

let project: string;
useConsumerProject((made) => {
  project = made;
});

/** The version of `name` in this repository's package-lock.json. */
async function lockedVersion(name: string): Promise<string> {
  const lock = JSON.parse(await readFile(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (version === undefined) throw new Error(`package-lock.json holds no ${name}`);
  return version;
}

/** A step of a GitHub Actions job, as far as this test runs it. */
interface WorkflowStep {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Readonly<Record<string, string | boolean>>;
}

describe("the example GitHub Actions workflow, copied by the README's line from the installed package", () => {
  test("its run steps, in order, in a repository that depends on the package: the gate passes, the job summary and the artifact's files are there", async () => {
    // The README's line copies it from the installed package into the project, as a user does.
    const copy = await shell((await example('sh', 'mkdir -p .github/workflows')).trim(), 30_000, project);
    expect(copy.exitCode, copy.stderr).toBe(0);
    const workflow = parseYaml(await readFile(join(project, '.github', 'workflows', 'svc-harness.yml'), 'utf8')) as {
      jobs: Record<string, { env?: Record<string, string>; steps: WorkflowStep[] }>;
    };
    const job = workflow.jobs.gate;
    expect(job, 'a job named gate').toBeDefined();
    if (job === undefined) return;

    const repo = join(project, 'implementation-repo');
    await mkdir(repo);
    await writeFile(
      join(repo, 'package.json'),
      `${JSON.stringify(
        {
          name: 'my-implementation',
          private: true,
          devDependencies: { 'svc-harness': `file:${packedTarball()}` },
          // vite 8.4.0 (vitest's) names an optional dependency the npm registry does not serve (404): a
          // lock made now leaves it out, and the workflow's `npm ci` then refuses the lock as out of sync.
          // The versions this repository's own lock holds are the ones tested.
          overrides: { vite: await lockedVersion('vite') },
        },
        null,
        2,
      )}\n`,
    );
    await run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--loglevel=error'], 240_000, repo);
    const summary = join(repo, 'step-summary.md');
    const env = { ...job.env, CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };

    // GitHub's semantics for the conditions the file uses: none (only while everything succeeded),
    // !cancelled() and always() (also after a failure). Any other condition is this test's to learn.
    let failed: string | undefined;
    let gateExit: number | null | undefined;
    const ran: string[] = [];
    for (const step of job.steps) {
      const condition = step.if?.replace(/^\$\{\{\s*|\s*\}\}$/g, '');
      expect([undefined, '!cancelled()', 'always()']).toContain(condition);
      if (condition === undefined && failed !== undefined) continue;
      if (step.uses !== undefined) {
        // Actions do not run here; what they are given must exist.
        const [action] = step.uses.split('@');
        expect([
          'actions/checkout',
          'actions/setup-node',
          'mikepenz/action-junit-report',
          'actions/upload-artifact',
        ]).toContain(action);
        for (const key of ['report_paths', 'path'] as const) {
          const value = step.with?.[key];
          if (typeof value === 'string') {
            for (const path of value.split('\n').filter(Boolean))
              expect(
                existsSync(join(repo, path)),
                `${step.uses} ${key}: ${path}\n${ran.join('\n')}\n${failed ?? ''}`,
              ).toBe(true);
          }
        }
        continue;
      }
      const done = await startProcess('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run ?? ''], {
        cwd: repo,
        env,
        timeoutMs: 600_000,
      }).finished;
      ran.push(`${step.name}: exit ${done.exitCode}`);
      // The gate step's verdict is judged below from its report: only its latency bounds may fail here.
      const isGate = (step.run ?? '').includes('svc-harness run');
      if (isGate) gateExit = done.exitCode;
      if (done.exitCode !== 0 && !(isGate && done.exitCode === 99))
        failed ??= `${step.name}: exit ${done.exitCode}\n${done.stdout.slice(-2000)}\n${done.stderr.slice(-2000)}`;
    }
    expect(failed, ran.join('\n')).toBeUndefined();
    expect(ran.length).toBeGreaterThanOrEqual(5);
    const written = await readFile(summary, 'utf8');
    expect(written).toMatch(/^# Run summary/m);
    expect(written).toMatch(gateExit === 0 ? /Gate: \*\*passed\*\*/ : /Gate: \*\*failed\*\*/);
    expect((await readdir(join(repo, 'reports', 'svc-harness'))).sort()).toEqual(
      ['index.html', 'junit.xml', 'report.json', 'summary.md'].sort(),
    );
    const report = await readReport(join(repo, 'reports', 'svc-harness'));
    expect(report.totals.fail).toBe(0);
    expect(report.totals.error).toBe(0);
    expectLoadCompleted(gateExit ?? null, report.load.scenarios, ran.join('\n'));
    // The stop step stopped the implementation it started.
    const pid = Number((await readFile(join(repo, 'implementation.pid'), 'utf8')).trim());
    expect(await waitFor(() => !alive(pid), 15_000), `the implementation (pid ${pid}) still runs`).toBe(true);
  }, 900_000);
});
