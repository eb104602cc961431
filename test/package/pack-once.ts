/**
 * Global setup of the package project: the README's `npm pack` line, run once in this clone, and its
 * tarball handed to every package test (`inject('tarball')`); then a new user's project made once with
 * that tarball installed by the README's own line (`inject('consumerTemplate')`), which each file copies
 * into a project of its own. The tests of the installed package run in three files side by side; packing
 * in each would build the package three times and race on the one file name the README gives, and
 * installing in each cost about 17 s of CPU apiece for the same node_modules.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { repoRoot, startProcess } from '../support/run-cli.ts';
import { firstGateLines, shell } from './readme-blocks.ts';

let tarball: string | undefined;
let template: string | undefined;

/**
 * A new user's project: `npm init -y` as it is (it writes "type": "commonjs", where the README's
 * TypeScript must load too), then the README's install line for the packed tarball.
 */
async function makeConsumerProject(install: string): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), 'harness-consumer-'));
  const init = await startProcess('npm', ['init', '-y'], { cwd: project, timeoutMs: 120_000 }).finished;
  if (init.exitCode !== 0) throw new Error(`npm init -y: exit ${init.exitCode}\n${init.stderr.slice(-3000)}`);
  const type = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')).type ?? 'commonjs';
  if (type !== 'commonjs') throw new Error(`npm init -y wrote "type": "${type}", not the commonjs the tests expect`);
  const installed = await shell(install, 480_000, project);
  if (installed.exitCode !== 0)
    throw new Error(`${install}: exit ${installed.exitCode}\n${installed.stderr.slice(-3000)}`);
  return project;
}

export async function setup(project: TestProject): Promise<void> {
  const [pack, install] = await firstGateLines();
  if (!pack?.inClone) throw new Error("the README's first-gate block does not start by packing in the clone");
  tarball = install?.command.split(' ').at(-1) ?? '';
  const packed = await shell(pack.command, 180_000, repoRoot);
  if (packed.exitCode !== 0) throw new Error(`${pack.command}: exit ${packed.exitCode}\n${packed.stderr.slice(-3000)}`);
  project.provide('tarball', tarball);
  if (install?.command.split(' ').at(-1) !== tarball)
    throw new Error('the README installs a tarball its npm pack line does not write');
  template = await makeConsumerProject(install.command);
  project.provide('consumerTemplate', template);
}

export async function teardown(): Promise<void> {
  // The README's npm pack wrote it to /tmp: the tests leave no svc-* file behind (test/support/leftovers.ts).
  if (tarball) await rm(tarball, { force: true });
  if (template) await rm(template, { recursive: true, force: true });
}
