/**
 * Builds what the npm package ships into dist/: the harness's TypeScript (src/, the suites, the
 * scenarios, the suites' vitest config) as JavaScript with declarations, by tsc (the project's own compiler,
 * so the build checks the types it emits; esbuild would strip them unchecked and cannot rewrite the
 * `.ts` import specifiers file by file), then the files tsc does not copy (the reference's Lua). Node
 * strips types only outside node_modules, so an installed harness must run JavaScript; the repository
 * keeps running its TypeScript directly. `npm pack` runs this first (prepack).
 *
 *   node scripts/build-package.ts
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Every file under `dir` whose name ends with one of `endings`, relative to the root. */
function filesUnder(dir: string, endings: readonly string[]): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && endings.some((ending) => entry.name.endsWith(ending)))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

rmSync(dist, { recursive: true, force: true });
execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
// Declarations are for what users import (the API, the scenario API, the report model): the suites,
// the scenarios and the config are run, never imported.
for (const file of [...filesUnder('dist/conformance', ['.d.ts']), ...filesUnder('dist/scenarios', ['.d.ts'])]) {
  rmSync(join(root, file));
}
// The reference's Lua, and the k6 extension's Go (compiled into k6 by the harness on a user's machine).
const assets = filesUnder('src', ['.lua', '.go']);
for (const file of assets) cpSync(join(root, file), join(dist, file));
cpSync(join(root, 'schemas'), join(dist, 'schemas'), { recursive: true });
console.log(`build: dist/ (tsc, ${assets.length} assets copied, schemas)`);
