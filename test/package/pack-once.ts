/**
 * Global setup of the package project: the README's `npm pack` line, run once in this clone, and its
 * tarball handed to every package test (`inject('tarball')`). The tests of the installed package run in
 * three files side by side, each in a project of its own; packing in each would build the package three
 * times and race on the one file name the README gives.
 */
import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { repoRoot } from '../support/run-cli.ts';
import { firstGateLines, shell } from './readme-blocks.ts';

let tarball: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  const [pack, install] = await firstGateLines();
  if (!pack?.inClone) throw new Error("the README's first-gate block does not start by packing in the clone");
  tarball = install?.command.split(' ').at(-1) ?? '';
  const packed = await shell(pack.command, 180_000, repoRoot);
  if (packed.exitCode !== 0) throw new Error(`${pack.command}: exit ${packed.exitCode}\n${packed.stderr.slice(-3000)}`);
  project.provide('tarball', tarball);
}

export async function teardown(): Promise<void> {
  // The README's npm pack wrote it to /tmp: the tests leave no svc-* file behind (test/support/leftovers.ts).
  if (tarball) await rm(tarball, { force: true });
}
