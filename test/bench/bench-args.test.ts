/**
 * Every benchmark's command line: `--help` prints its usage (the file's opening comment) and exits 0;
 * an option it does not know is one line and exit code 2 before anything runs, never a stack trace.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../support/run-cli.ts';

const run = promisify(execFile);
const benchDir = join(repoRoot, 'bench');
const withArgs = readdirSync(benchDir).filter(
  (name) =>
    name.endsWith('.ts') && readFileSync(join(benchDir, name), 'utf8').includes('benchArgs(import.meta.filename'),
);

async function exit(file: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(benchDir, file), ...args], { timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the benchmarks’ command lines', () => {
  test('there are some to check', () => {
    expect(withArgs.length).toBeGreaterThan(10);
  });

  // One process each (a benchmark's start loads much of the harness): the unknown option, which every
  // script reads the same way (run-bench.ts's benchArgs); --help of two of them.
  test.each(withArgs)('%s: an unknown option is one line and exit code 2', async (file) => {
    const unknown = await exit(file, ['--no-such-option']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringContaining("Unknown option '--no-such-option'")]);
  });

  test.each(['load-engine-cost.ts', 'outputs-cost.ts'])('%s --help prints its usage and exits 0', async (file) => {
    const help = await exit(file, ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Benchmark: /);
    expect(help.stdout).toContain(`node bench/${file}`);
    expect(help.stdout).not.toContain(' * ');
  });
});
