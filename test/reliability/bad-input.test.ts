/**
 * Input that must end in one clear line and a usage exit code, never a hang or a second line: a report
 * folder that cannot be made (under /proc, where Node's recursive mkdir spins forever), a report file
 * that is a directory, a run that checks nothing, an area the target lacks, a second --target where one
 * is taken, and no command at all.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../support/run-cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-bad-input-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const oneLine = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('svc-harness:'));

describe('bad input on the command line', () => {
  test('a report folder under /proc is one line, exit 2, in bounded time', async () => {
    const run = await runCli(['conformance', '--report-dir', '/proc/self/nope'], { timeoutMs: 20_000 });
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toEqual([
      expect.stringMatching(/^svc-harness: cannot create the report folder .*\[SVC_USAGE\]$/),
    ]);
  });

  test('a report.json that is a directory is one line naming the reporter, exit 2; the other reporters write', async () => {
    const reportDir = join(dir, 'taken');
    await mkdir(join(reportDir, 'report.json'), { recursive: true });
    const run = await runCli(['conformance', '--rules', 'B.status.ok-200', '--report-dir', reportDir]);
    expect(run.exitCode).toBe(2);
    expect(oneLine(run.stderr)).toEqual([
      expect.stringMatching(
        /^svc-harness: a reporter failed, the others wrote their files: json \(report\.json\): cannot write the report file .*report\.json: is a directory \[SVC_REPORTER\]$/,
      ),
    ]);
    expect((await readdir(reportDir)).sort()).toEqual(['index.html', 'junit.xml', 'report.json', 'summary.md']);
  });

  test('a run that checks nothing does not pass the gate', async () => {
    const run = await runCli(['conformance', '--area', 'kv', '--rules', 'A.*', '--report-dir', join(dir, 'nothing')]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('no case was run');
    expect(run.stdout).toContain('gate: error');
  });

  test('an area the target lacks is one SVC_CONFIG line, exit 2, before anything runs', async () => {
    const target = join(dir, 'kv-only.json');
    await writeFile(target, JSON.stringify({ name: 'kv-only', kv: { url: 'http://127.0.0.1:1', token: 't' } }));
    const reportDir = join(dir, 'lacking');
    const run = await runCli(['conformance', '--area', 'messaging', '--target', target, '--report-dir', reportDir]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      'svc-harness: conformance: --area messaging: the target kv-only has no messaging area (it has kv) [SVC_CONFIG]',
    ]);
    expect(run.stdout).toBe('');
    expect(existsSync(reportDir)).toBe(false);
  });

  test('a second --target on a single-target command is one usage line, exit 2', async () => {
    for (const command of [['load'], ['run'], ['k6', 'manifest']]) {
      const run = await runCli([...command, '--target', 'a.json', '--target', 'b.json']);
      expect(run.exitCode).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([
        `svc-harness: ${command.join(' ')}: --target given more than once; it takes one value (conformance takes several targets) [SVC_USAGE]`,
      ]);
    }
  });

  test('soak --image with a target that has no image template is one usage line, exit 2, before anything starts', async () => {
    const target = join(dir, 'plain.json');
    await writeFile(target, JSON.stringify({ name: 'plain', kv: { url: 'http://127.0.0.1:1', token: 't' } }));
    const reportDir = join(dir, 'soak-image');
    const run = await runCli([
      'soak',
      'transaction',
      '--target',
      target,
      '--image',
      'localhost/x:1',
      '--report-dir',
      reportDir,
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^svc-harness: soak: --image needs --target FILE whose target has an "image" template .*\[SVC_USAGE\]$/,
      ),
    ]);
    expect(existsSync(reportDir)).toBe(false);
  });

  test('no command prints the usage to stderr and exits 2', async () => {
    const run = await runCli([]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('Usage: svc-harness <command>');
    expect(run.stdout).toBe('');
  });
});
