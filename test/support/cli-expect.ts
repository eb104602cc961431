/** Assertions on a finished CLI run, shared by the command tests. */
import { expect } from 'vitest';
import type { CliRun } from './run-cli.ts';

/** Bad input ends with one line on stderr, exit code 2, no stack trace. */
export function expectOneLine(run: CliRun, pattern: RegExp): void {
  const lines = run.stderr.split('\n').filter((line) => line.length > 0);
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr + run.stdout).not.toMatch(/\n\s+at /);
  expect(run.exitCode).toBe(2);
}
