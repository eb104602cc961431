/**
 * The order a run registers its files and cases in: by default the concurrent group first, in
 * discovery order; with a seed, a shuffle of the same shape, the same for the same seed.
 */
import { describe, expect, test } from 'vitest';
import { orderCaseFiles, validSeed } from '../../../src/engines/conformance/case-order.ts';
import type { CaseFile } from '../../../src/engines/conformance/case-registry.ts';
import type { ConformanceCase } from '../../../src/suite-kit/conformance-case.ts';

const item = (id: string, concurrent: boolean): ConformanceCase => ({
  id,
  rules: ['B.x'],
  title: id,
  expect: id,
  ...(concurrent && { concurrent: true }),
  run: async () => {},
});

const file = (name: string, concurrent: boolean | 'mixed', count = 6): CaseFile => ({
  area: 'kv',
  file: `conformance/kv/${name}.cases.ts`,
  cases: Array.from({ length: count }, (_, index) =>
    item(`${name}.${index}`, concurrent === 'mixed' ? index % 2 === 0 : concurrent),
  ),
});

const files = [
  file('a', false),
  file('b', true),
  file('c', 'mixed'),
  file('d', true),
  file('e', false),
  file('f', true),
];
const names = (ordered: readonly CaseFile[]) => ordered.map((entry) => entry.file.replace(/^.*\/|\.cases\.ts$/g, ''));
const ids = (ordered: readonly CaseFile[]) => ordered.flatMap((entry) => entry.cases.map((one) => one.id));
const isConcurrent = (entry: CaseFile) => entry.cases.every((one) => one.concurrent === true);

describe('orderCaseFiles', () => {
  test('without a seed: the concurrent files first, then the rest, each file and case in discovery order', () => {
    const ordered = orderCaseFiles(files);
    expect(names(ordered)).toEqual(['b', 'd', 'f', 'a', 'c', 'e']);
    expect(ordered[0]?.cases).toBe(files[1]?.cases);
  });

  test('a seed shuffles groups, files and cases, keeps the concurrent files together, and is the same every time', () => {
    const orders = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => orderCaseFiles(files, { seed }));
    for (const ordered of orders) {
      expect(ids(ordered).sort()).toEqual(ids(files).sort());
      // The concurrent files stay adjacent: one group, first or last.
      const flags = ordered.map(isConcurrent);
      expect(flags.join('')).toMatch(/^(true){3}(false){3}$|^(false){3}(true){3}$/);
      // Each file keeps its own cases.
      for (const entry of ordered)
        for (const one of entry.cases) expect(one.id.startsWith(names([entry])[0] ?? '')).toBe(true);
    }
    expect(new Set(orders.map((ordered) => ids(ordered).join())).size).toBe(orders.length);
    expect(new Set(orders.map((ordered) => ordered.map(isConcurrent)[0])).size).toBe(2);
    expect(ids(orderCaseFiles(files, { seed: 7 }))).toEqual(ids(orderCaseFiles(files, { seed: 7 })));
    expect(ids(files)[0]).toBe('a.0');
  });

  test('a seed is a whole number from 0 to 2^32 - 1', () => {
    expect([0, 1, 0xffff_ffff].every(validSeed)).toBe(true);
    expect([-1, 1.5, 2 ** 32, Number.NaN].some(validSeed)).toBe(false);
  });
});
