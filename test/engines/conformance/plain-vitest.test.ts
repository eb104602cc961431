/** The suites also run under plain `vitest`, with the target from the SVC_* environment. */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from '../../support/run-cli.ts';
import { fixtureSuiteRoot } from './fixture-run.ts';
import { type FixtureServer, startFixtureServer } from './fixtures/fixture-server.ts';

function plainVitest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const bin = join(repoRoot, 'node_modules', '.bin');
  const child = spawn(join(bin, 'vitest'), ['run', '--project', 'conformance', '--reporter', 'verbose'], {
    cwd: fixtureSuiteRoot,
    env: { ...process.env, PATH: [bin, process.env.PATH].join(delimiter), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    }),
  );
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
