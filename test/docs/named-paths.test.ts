/**
 * Docs that stay true (issue 37, item 5): every path of this repository that the README, the pages of
 * docs/, ARCHITECTURE.md and the comments of the code name exists. A path is a word starting with one of
 * the repository's folders (`src/…`, `docs/…`); one with a placeholder (`<area>`, `*`, `{a,b}`) names a
 * pattern and is left out. The tests are left out too: their paths are mostly data (fixtures' names).
 */
import { existsSync, globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const folders = [
  'src',
  'conformance',
  'test',
  'scripts',
  'bench',
  'docs',
  'examples',
  'schemas',
  'scenarios',
  'bin',
  '.ci',
];
const named = new RegExp(
  `(?<![\\w./-])((?:${folders.map((folder) => folder.replace('.', '\\.')).join('|')})/[\\w./<>*{},-]*[\\w>*}])`,
  'g',
);

const documents = [
  'README.md',
  'ARCHITECTURE.md',
  ...globSync('docs/*.md', { cwd: root }),
  ...globSync('{src,conformance,scripts,bench,scenarios,examples}/**/*.{ts,js,yml}', { cwd: root }),
  'bin/svc-harness.js',
  '.ci/run',
  'vitest.config.ts',
];

/** The repository paths a text names, patterns left out. */
function namedPaths(text: string): string[] {
  return [...text.matchAll(named)]
    .map((match) => (match[1] ?? '').replace(/[.]$/, '').replace(/\/$/, ''))
    .filter((path) => !/[<>*{}]/.test(path));
}

describe('every path the docs and the code comments name exists', () => {
  test('the pattern finds paths and leaves patterns out', () => {
    expect(namedPaths('see `src/cli/main.ts`, docs/load.md. and conformance/<area>/x.ts or src/a/*.ts')).toEqual([
      'src/cli/main.ts',
      'docs/load.md',
    ]);
  });

  test.each(documents)('%s', (document) => {
    // `test/none` is vitest.config's never-matching include, not a path it claims exists.
    const missing = namedPaths(readFileSync(join(root, document), 'utf8')).filter(
      (path) => path !== 'test/none' && !existsSync(join(root, path)),
    );
    expect(missing).toEqual([]);
  });
});
