import { describe, expect, test } from 'vitest';
import { loadCaseFiles } from '../../../src/engines/conformance/case-registry.ts';
import { loadRuleCatalog } from '../../../src/engines/conformance/rule-catalog.ts';
import { allFaults } from '../../../src/reference/reference-areas.ts';
import { headingPaths, specHeadingPaths } from './spec-headings.ts';

const catalog = await loadRuleCatalog();
const caseFiles = await loadCaseFiles();
const cases = caseFiles.flatMap((file) => file.cases.map((item) => ({ file: file.file, item })));

describe('the rule catalog', () => {
  test('is read from every conformance/rules/*-rules.ts', () => {
    expect(catalog.files).toContain('conformance/rules/kv-rules.ts');
    expect(catalog.rules.length).toBeGreaterThan(0);
  });

  test('rule ids are unique', () => {
    const seen = new Set<string>();
    const duplicates = catalog.rules.map((rule) => rule.id).filter((id) => seen.has(id) || !seen.add(id));
    expect(duplicates).toEqual([]);
  });

  test('rule ids start with their area letter', () => {
    const letter = { messaging: 'A', kv: 'B', management: 'C' } as const;
    const wrong = catalog.rules.filter((rule) => !rule.id.startsWith(`${letter[rule.area]}.`)).map((rule) => rule.id);
    expect(wrong).toEqual([]);
  });

  test('every rule names a real heading path of the spec', () => {
    const headings = specHeadingPaths();
    const unknown = catalog.rules
      .filter((rule) => !headings.has(rule.section))
      .map((rule) => `${rule.id}: ${rule.section}`);
    expect(unknown).toEqual([]);
  });

  test('every rule has at least one case', () => {
    const covered = new Set(cases.flatMap(({ item }) => item.rules));
    const uncovered = catalog.rules.filter((rule) => !covered.has(rule.id)).map((rule) => rule.id);
    expect(uncovered).toEqual([]);
  });

  test('every case names only known rules, at least one', () => {
    const wrong = cases
      .filter(({ item }) => item.rules.length === 0 || item.rules.some((id) => !catalog.has(id)))
      .map(({ file, item }) => `${file}: ${item.id} [${item.rules.join(', ')}]`);
    expect(wrong).toEqual([]);
  });

  test('case ids are unique across all suites', () => {
    const seen = new Set<string>();
    const duplicates = cases.map(({ item }) => item.id).filter((id) => seen.has(id) || !seen.add(id));
    expect(duplicates).toEqual([]);
  });

  test('every fault switch of the reference names a known rule of its area', () => {
    const wrong = allFaults
      .filter((fault) => catalog.get(fault.rule)?.area !== fault.area)
      .map((fault) => `${fault.name} → ${fault.rule}`);
    expect(wrong).toEqual([]);
  });
});

describe('spec heading paths', () => {
  test('nest below the title, joined by " > ", ignoring fenced code', () => {
    const paths = headingPaths('# Title\n\n## A\n\n### B\n\n## C\n```\n## not a heading\n```\n### D\n');
    expect([...paths]).toEqual(['A', 'A > B', 'C', 'C > D']);
  });

  test('the spec has the area-B endpoint heading', () => {
    expect(specHeadingPaths().has('Endpoints > Area B, key-value REST ({kv_url})')).toBe(true);
  });
});
