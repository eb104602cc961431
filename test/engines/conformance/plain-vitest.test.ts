/** The suites also run under plain `vitest`, with the target from the SVC_* environment. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot, startProcess } from '../../support/run-cli.ts';
import { fixtureSuiteRoot } from './fixture-run.ts';
import { type FixtureServer, startFixtureServer } from './fixtures/fixture-server.ts';

async function plainVitest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const vitest = join(repoRoot, 'node_modules', '.bin', 'vitest');
  const run = await startProcess(vitest, ['run', '--config', 'conformance/vitest.config.ts', '--reporter', 'verbose'], {
    cwd: fixtureSuiteRoot,
    env,
  }).finished;
  return { code: run.exitCode, output: run.stdout + run.stderr };
}

describe('plain vitest', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(() => server.close());

  test('SVC_KV_URL/SVC_KV_TOKEN give the target and SVC_RULES filters', async () => {
    const run = await plainVitest({ SVC_KV_URL: server.url, SVC_KV_TOKEN: server.token, SVC_RULES: 'B.status.*' });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('fixture.pass');
    expect(run.output).not.toContain('fixture.fail');
  });

  test('a failing case fails the vitest run with its rule in the message; the token stays hidden', async () => {
    const run = await plainVitest({ SVC_KV_URL: server.url, SVC_KV_TOKEN: server.token });
    expect(run.code).toBe(1);
    expect(run.output).toContain('[B.path.command-args]');
    expect(run.output).not.toContain(server.token);
  });

  test('without a target every case is skipped with the reason', async () => {
    const run = await plainVitest({ SVC_KV_URL: '', SVC_TARGET_FILE: '' });
    expect(run.code).toBe(0);
    expect(run.output).toContain('No target: set SVC_TARGET_FILE');
  });
});
