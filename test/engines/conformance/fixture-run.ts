/** Shared by the engine's tests: a fixture server, a target file for it, and the fixture suite root. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createReporters } from '../../../src/reporters/registry.ts';
import type { Reporter } from '../../../src/results/reporter.ts';
import { type FixtureServer, startFixtureServer } from './fixtures/fixture-server.ts';

export const fixtureSuiteRoot = fileURLToPath(new URL('./fixtures/suite-root/', import.meta.url));

export interface FixtureTarget {
  readonly server: FixtureServer;
  readonly dir: string;
  readonly targetFile: string;
}

export async function startFixtureTarget(name = 'fixture'): Promise<FixtureTarget> {
  const server = await startFixtureServer();
  const dir = await mkdtemp(join(tmpdir(), 'svc-engine-test-'));
  const targetFile = join(dir, `${name}.json`);
  await writeFile(targetFile, JSON.stringify({ name, kv: { url: server.url, token: server.token } }));
  return { server, dir, targetFile };
}

/** The reporters that write report.json, junit.xml and summary.md (the console stays quiet in tests). */
export function fileReporters(): Reporter[] {
  return createReporters(['json', 'junit', 'markdown']);
}
