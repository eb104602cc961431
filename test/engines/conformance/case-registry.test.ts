import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadCaseFiles } from '../../../src/engines/conformance/case-registry.ts';
import { loadRuleCatalog } from '../../../src/engines/conformance/rule-catalog.ts';
import { createRuleCatalog } from '../../../src/results/rule.ts';
import { fixtureSuiteRoot } from './fixture-run.ts';

describe('loadCaseFiles', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  async function suiteRoot(files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'svc-registry-'));
    dirs.push(root);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(root, path, '..'), { recursive: true });
      await writeFile(join(root, path), text);
    }
    return root;
  }

  test('finds every *.cases.ts of an area folder by reading it', async () => {
    const files = await loadCaseFiles(['kv'], fixtureSuiteRoot);
    expect(files.map((file) => [file.area, file.file])).toEqual([['kv', 'conformance/kv/basic.cases.ts']]);
    expect(files[0]?.cases.map((item) => item.id)).toContain('fixture.pass');
  });

  test('an area without a folder has no cases', async () => {
    expect(await loadCaseFiles(['management'], fixtureSuiteRoot)).toEqual([]);
  });

  test('a file without `cases` is one SVC_INTERNAL line naming the file', async () => {
    const root = await suiteRoot({ 'conformance/kv/empty.cases.ts': 'export const other = 1;\n' });
    await expect(loadCaseFiles(['kv'], root)).rejects.toThrow(
      'suite file conformance/kv/empty.cases.ts does not export',
    );
  });

  test('a file that cannot load is one line naming the file', async () => {
    const root = await suiteRoot({ 'conformance/kv/broken.cases.ts': 'throw new Error("syntax trouble");\n' });
    await expect(loadCaseFiles(['kv'], root)).rejects.toThrow(
      'suite file conformance/kv/broken.cases.ts cannot be loaded: syntax trouble',
    );
  });
});

describe('rule catalog', () => {
  test('loads the kv rules with lookups by id and area', async () => {
    const catalog = await loadRuleCatalog();
    expect(catalog.get('B.pipeline.order')?.level).toBe('MUST');
    expect(catalog.get('B.observe.discard-status')?.level).toBe('OBSERVE');
    expect(catalog.has('B.nope')).toBe(false);
    expect(catalog.byArea('kv').length).toBe(catalog.rules.filter((rule) => rule.area === 'kv').length);
  });

  test('the first of duplicate ids wins a lookup; all stay listed', () => {
    const rule = { id: 'B.x', area: 'kv', level: 'MUST', section: 'Errors', text: 'one' } as const;
    const catalog = createRuleCatalog([rule, { ...rule, text: 'two' }]);
    expect(catalog.get('B.x')?.text).toBe('one');
    expect(catalog.rules).toHaveLength(2);
  });
});
