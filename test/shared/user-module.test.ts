import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { importableFile, importUserModule } from '../../src/shared/user-module.ts';

let project = '';

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'svc-user-module-'));
  // What `npm init -y` writes: a CommonJS package, where a bare import() of a .ts with `import` fails.
  await writeFile(join(project, 'package.json'), '{ "name": "p", "version": "1.0.0", "type": "commonjs" }\n');
  await writeFile(join(project, 'helper.ts'), 'export const answer: number = 42;\n');
  await writeFile(
    join(project, 'esm.ts'),
    "import { answer } from './helper.ts';\nimport { join } from 'node:path';\nexport default { answer, sep: join('a', 'b') };\n",
  );
  await writeFile(
    join(project, 'cjs.cts'),
    "const { join } = require('node:path');\nmodule.exports = { kind: 'cjs', path: join('a', 'b') };\n",
  );
  await writeFile(join(project, 'plain.cjs'), "module.exports = { kind: 'as is' };\n");
  await writeFile(join(project, 'broken.ts'), 'export default {{;\n');
});

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe("a user's module in a CommonJS project", () => {
  test('TypeScript with imports, a relative .ts among them, loads as an ES module', async () => {
    const module = await importUserModule(join(project, 'esm.ts'), 'scenario');
    expect(module.default).toEqual({ answer: 42, sep: join('a', 'b') });
  });

  test('a .cts using require and module.exports loads, its export the default', async () => {
    const module = await importUserModule(join(project, 'cjs.cts'), 'scenario');
    expect(module.default).toEqual({ kind: 'cjs', path: join('a', 'b') });
  });

  test('a .cjs or .mjs is imported as it is; a file is compiled once, beside itself', async () => {
    expect(await importableFile(join(project, 'plain.cjs'), 'scenario')).toBe(join(project, 'plain.cjs'));
    const first = await importableFile(join(project, 'esm.ts'), 'scenario');
    expect(await importableFile(join(project, 'esm.ts'), 'scenario')).toBe(first);
    expect(first).toMatch(/\/\.esm\.ts\.svc-harness-\d+\.mjs$/);
    expect(await readdir(project)).toContain(first.slice(project.length + 1));
  });

  test('a module that does not compile is one SVC_CONFIG line naming the file and the line', async () => {
    await expect(importUserModule(join(project, 'broken.ts'), 'scenario')).rejects.toMatchObject({
      code: 'SVC_CONFIG',
      message: expect.stringMatching(/^scenario .*broken\.ts: it does not compile: .+ \(line 1\)$/),
    });
  });
});
