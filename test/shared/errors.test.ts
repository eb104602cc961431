import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  type ErrorCode,
  ExitCode,
  errorCatalog,
  exitCodeOf,
  formatErrorLine,
  HarnessError,
  harnessError,
  isHarnessError,
  oneLine,
} from '../../src/shared/errors.ts';

/** The rows of the table in docs/errors.md ("# Exit codes and errors"): code → [exit, meaning]. */
function errorPageTable(page: string): Map<string, [string, string]> {
  const start = page.indexOf('# Exit codes and errors');
  if (start < 0) return new Map();
  const next = page.indexOf('\n# ', start + 1);
  const section = page.slice(start, next < 0 ? undefined : next);
  const rows = new Map<string, [string, string]>();
  for (const line of section.split('\n')) {
    const cells = line.trim().startsWith('|')
      ? line
          .trim()
          .slice(1, -1)
          .split('|')
          .map((cell) => cell.trim())
      : [];
    const [code, exit, meaning] = cells;
    if (cells.length !== 3 || code === undefined || exit === undefined || meaning === undefined) continue;
    if (code === 'code' || code.startsWith('---')) continue;
    rows.set(code.replaceAll('`', ''), [exit, meaning]);
  }
  return rows;
}

describe('the error catalog', () => {
  test('docs/errors.md has a row per code with its exit code and meaning, and no other rows', () => {
    const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const rows = errorPageTable(page);
    const expected = new Map(
      Object.entries(errorCatalog).map(([code, entry]) => [code, [String(entry.exitCode), entry.summary]] as const),
    );
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
  });

  test('the table parser reads code, exit and meaning', () => {
    const rows = errorPageTable(
      '# Exit codes and errors\n\n| code | exit | meaning |\n| --- | --- | --- |\n| `A` | 2 | b |\n\n# Next\n| `Z` | 1 | z |\n',
    );
    expect([...rows]).toEqual([['A', ['2', 'b']]]);
  });

  test('every code maps to one of the three exit codes', () => {
    for (const entry of Object.values(errorCatalog)) expect(Object.values(ExitCode)).toContain(entry.exitCode);
    expect(errorCatalog.SVC_GATE_FAILED.exitCode).toBe(ExitCode.failed);
  });

  test('harnessError carries code, exit code and cause', () => {
    const cause = new Error('low level');
    const error = harnessError('SVC_CONFIG', 'target file t.json: no such file', cause);
    expect(error).toBeInstanceOf(HarnessError);
    expect(isHarnessError(error)).toBe(true);
    expect(error.code).toBe('SVC_CONFIG');
    expect(error.exitCode).toBe(2);
    expect(error.cause).toBe(cause);
    expect(exitCodeOf(error)).toBe(2);
  });

  test('formatErrorLine is one line with the code, never a stack', () => {
    expect(formatErrorLine(harnessError('SVC_USAGE', 'bad flag'))).toBe('svc-harness: bad flag [SVC_USAGE]');
    const line = formatErrorLine(new TypeError('x is undefined\n    at foo (file.ts:1:1)'));
    expect(line).toBe('svc-harness: unexpected error: x is undefined [SVC_INTERNAL]');
    expect(exitCodeOf(new Error('x'))).toBe(ExitCode.notJudged);
  });

  test('oneLine takes the first line with text, the name of an empty error, and cuts at max', () => {
    expect(oneLine(new Error('\n  \nsecond line\nthird'))).toBe('second line');
    expect(oneLine(new TypeError(''))).toBe('TypeError');
    expect(oneLine('plain text\nmore')).toBe('plain text');
    expect(oneLine('abcdef', 3)).toBe('abc…');
    expect(oneLine('abc', 3)).toBe('abc');
    expect(oneLine('\n\n')).toBe('');
  });

  test('codes are SVC_ upper snake case', () => {
    for (const code of Object.keys(errorCatalog) as ErrorCode[]) expect(code).toMatch(/^SVC_[A-Z][A-Z0-9_]*$/);
  });
});
