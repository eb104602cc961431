/**
 * The one-way layers hold by themselves: the project's biome.json, copied into a scratch tree,
 * rejects an import cycle, an import pointing up a layer, a reach past the reference's door or the
 * suites' (the suite kit), and a Node module or Buffer in the neutral protocol layer; what the layers
 * allow stays clean.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from '../support/run-cli.ts';

interface Diagnostic {
  readonly category: string;
  readonly location: { readonly path: string };
}

const scratchFiles: Record<string, string> = {
  // A cycle between two shared modules.
  'src/shared/a.ts': "import { b } from './b.ts';\nexport const a = (): number => b() + 1;\n",
  'src/shared/b.ts': "import { a } from './a.ts';\nexport const b = (): number => a() - 1;\n",
  // Up a layer: a reporter importing an engine, the reference importing the CLI.
  'src/reporters/up.ts': "import { run } from '../engines/conformance/run.ts';\nexport const up = run;\n",
  'src/engines/conformance/run.ts': 'export const run = 1;\n',
  'src/reference/kv/up.ts': "import { main } from '../../cli/main.ts';\nexport const up = main;\n",
  'src/cli/main.ts': 'export const main = 1;\n',
  // Past the reference's door, and through it.
  'src/engines/conformance/inside.ts':
    "import { plugin } from '../../reference/kv/plugin.ts';\nexport const inside = plugin;\n",
  'src/engines/conformance/door.ts': "import { door } from '../../reference/embedded.ts';\nexport const ok = door;\n",
  'src/reference/kv/plugin.ts': 'export const plugin = 1;\n',
  'src/reference/embedded.ts': 'export const door = 1;\n',
  // The suites take src/ through the kit's door only; the kit imports no engine; the engine imports the kit.
  'conformance/kv/engine.cases.ts':
    "import { run } from '../../src/engines/conformance/run.ts';\nexport const cases = [run];\n",
  'conformance/kv/door.cases.ts':
    "import { api } from '../../src/suite-kit/suite-api.ts';\nexport const cases = [api];\n",
  'src/suite-kit/suite-api.ts': 'export const api = 1;\n',
  'src/suite-kit/up.ts': "import { run } from '../engines/conformance/run.ts';\nexport const up = run;\n",
  'src/engines/conformance/kit.ts': "import { api } from '../../suite-kit/suite-api.ts';\nexport const kit = api;\n",
  // The protocol layer is neutral: no node: module, no Buffer.
  'src/protocol/kv/node.ts': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
  'src/protocol/kv/buffer.ts': "export const bytes = Buffer.from('x');\n",
  'src/protocol/kv/clean.ts': 'export const bytes = new TextEncoder().encode("x");\n',
  // Down the layers, as allowed: the CLI uses engines and reporters, reporters the run model.
  'src/cli/commands/run.ts':
    "import { run } from '../../engines/conformance/run.ts';\nimport { model } from '../../results/model.ts';\nexport const all = [run, model];\n",
  'src/results/model.ts': 'export const model = 1;\n',
};

let dir: string;
let diagnostics: Diagnostic[];

const flagged = (rule: string, file: string) =>
  diagnostics.some((item) => item.category === `lint/${rule}` && item.location.path.replaceAll('\\', '/') === file);
const anyIn = (file: string) =>
  diagnostics.some((item) => item.category.startsWith('lint/') && item.location.path.replaceAll('\\', '/') === file);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-layers-'));
  copyFileSync(join(repoRoot, 'biome.json'), join(dir, 'biome.json'));
  for (const [path, text] of Object.entries(scratchFiles)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const biome = join(repoRoot, 'node_modules', '.bin', 'biome');
  const result = spawnSync(biome, ['lint', '--reporter=json', '--max-diagnostics=none', '.'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  diagnostics = (JSON.parse(result.stdout) as { diagnostics: Diagnostic[] }).diagnostics;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the lint configuration keeps the layers one-way', () => {
  test('an import cycle is an error', () => {
    expect(flagged('suspicious/noImportCycles', 'src/shared/a.ts')).toBe(true);
    expect(flagged('suspicious/noImportCycles', 'src/shared/b.ts')).toBe(true);
  });

  test('an import pointing up a layer is an error', () => {
    expect(flagged('style/noRestrictedImports', 'src/reporters/up.ts')).toBe(true);
    expect(flagged('style/noRestrictedImports', 'src/reference/kv/up.ts')).toBe(true);
  });

  test('an engine reaches the reference only through its door', () => {
    expect(flagged('style/noRestrictedImports', 'src/engines/conformance/inside.ts')).toBe(true);
    expect(anyIn('src/engines/conformance/door.ts')).toBe(false);
  });

  test('the suites reach src/ only through the suite kit, and the kit imports no engine', () => {
    expect(flagged('style/noRestrictedImports', 'conformance/kv/engine.cases.ts')).toBe(true);
    expect(flagged('style/noRestrictedImports', 'src/suite-kit/up.ts')).toBe(true);
    expect(anyIn('conformance/kv/door.cases.ts')).toBe(false);
    expect(anyIn('src/engines/conformance/kit.ts')).toBe(false);
  });

  test('the protocol layer takes no node: module and no Buffer', () => {
    expect(flagged('correctness/noNodejsModules', 'src/protocol/kv/node.ts')).toBe(true);
    expect(flagged('style/noRestrictedGlobals', 'src/protocol/kv/buffer.ts')).toBe(true);
    expect(anyIn('src/protocol/kv/clean.ts')).toBe(false);
  });

  test('imports down the layers are clean', () => {
    expect(anyIn('src/cli/commands/run.ts')).toBe(false);
  });
});
