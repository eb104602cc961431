/**
 * `load` and `run` stop before their first request when the target cannot carry them (issue 36): a
 * refused port, or a key-value token the target refuses, is one line with its code, exit 2, and the
 * report says so; no scenario sends its requests into the same failure.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findFreePort } from '../../src/shared/free-port.ts';
import { runCli } from '../support/run-cli.ts';

let dir = '';
let server: Server;
let requests = 0;
let refusing = '';
let dead = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-dead-target-'));
  // A key-value REST server that refuses every token, counting what it is sent.
  server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end('{"error":"Unauthorized"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  refusing = join(dir, 'refusing.json');
  await writeFile(
    refusing,
    JSON.stringify({ name: 'refusing', kv: { url: `http://127.0.0.1:${port}`, token: 'not-the-token' } }),
  );
  dead = join(dir, 'dead.json');
  const closed = await findFreePort();
  await writeFile(
    dead,
    JSON.stringify({ name: 'dead', kv: { url: `http://127.0.0.1:${closed}`, token: 'any-token-1' } }),
  );
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a target that cannot carry the load', () => {
  test('load against a refused port: one line naming it, exit 2, no scenario run', async () => {
    const reportDir = join(dir, 'dead-load');
    const run = await runCli(['load', 'command', 'pipeline', '--target', dead, '--report-dir', reportDir], {
      reportDir,
    });
    expect(run.exitCode).toBe(2);
    expect(run.stdout + run.stderr).toMatch(
      /target "dead" \(kv\): .*refused the connection \[SVC_TARGET_UNREACHABLE\]/,
    );
    expect(run.stdout).not.toMatch(/THRESHOLD FAILED/);
    expect((run.report as { load: { scenarios: unknown[]; aborted?: string } }).load).toMatchObject({
      scenarios: [],
      aborted: expect.stringMatching(/SVC_TARGET_UNREACHABLE/),
    });
  });

  test('load with a token the target refuses: one line, exit 2, one probe sent instead of the load', async () => {
    requests = 0;
    const reportDir = join(dir, 'refused-load');
    const run = await runCli(['load', 'command', '--target', refusing, '--report-dir', reportDir], { reportDir });
    expect(run.exitCode).toBe(2);
    expect(run.stdout + run.stderr).toMatch(
      /the token was refused \(401 to an authenticated PING\).*\[SVC_TARGET_AUTH\]/,
    );
    expect(requests).toBeLessThanOrEqual(2);
  });

  test('run against a refused port: conformance says it once and no load follows', async () => {
    const reportDir = join(dir, 'dead-run');
    const run = await runCli(['run', '--target', dead, '--report-dir', reportDir], { reportDir });
    expect(run.exitCode).toBe(2);
    expect(run.stdout).not.toMatch(/THRESHOLD FAILED|load: command/);
    expect((run.report as { load?: unknown }).load).toBeUndefined();
  });
});
