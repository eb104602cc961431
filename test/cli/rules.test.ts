import { describe, expect, test } from 'vitest';
import { loadCaseFiles } from '../../src/engines/conformance/case-registry.ts';
import { loadRuleCatalog } from '../../src/engines/conformance/rule-catalog.ts';
import { ruleCoverage } from '../../src/engines/conformance/rule-coverage.ts';
import { renderRulesJson, renderRulesText } from '../../src/reporters/rules-listing.ts';
import { runCli } from '../support/run-cli.ts';

interface ListedRule {
  id: string;
  area: string;
  level: string;
  section: string;
  text: string;
  cases: string[];
}

describe('svc-harness rules', () => {
  test('--json lists every rule of the area with level, section and covering cases', async () => {
    const run = await runCli(['rules', '--area', 'kv', '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const { rules } = JSON.parse(run.stdout) as { rules: ListedRule[] };
    const catalog = await loadRuleCatalog();
    expect(rules.map((rule) => rule.id)).toEqual(catalog.byArea('kv').map((rule) => rule.id));
    const caseFiles = await loadCaseFiles();
    for (const rule of rules) {
      const covering = caseFiles.flatMap((file) =>
        file.cases.filter((item) => item.rules.includes(rule.id)).map((item) => item.id),
      );
      expect(rule.cases).toEqual([...new Set(covering)].sort());
      expect(['MUST', 'OBSERVE']).toContain(rule.level);
    }
  });

  test('--area lists only that area’s rules', async () => {
    const run = await runCli(['rules', '--area', 'management', '--json']);
    const { rules } = JSON.parse(run.stdout) as { rules: { id: string }[] };
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.every((rule) => rule.id.startsWith('C.'))).toBe(true);
  });

  test('the text form: one block per rule and a coverage total', async () => {
    const run = await runCli(['rules']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^B\.methods\.allowed \[MUST\] Endpoints > Area B, key-value REST \(\{kv_url\}\)\n/);
    expect(run.stdout).toMatch(/\n\d+ rules, \d+ covered, \d+ without a case\n$/);
  });

  test('--coverage --json: every cell of area B covered or not applicable (exit 0), with the covering cases', async () => {
    const run = await runCli(['rules', '--coverage', '--area', 'kv', '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const matrix = JSON.parse(run.stdout) as {
      cells: { rule: string; point: Record<string, string>; cases: string[]; notApplicable?: string }[];
      uncovered: number;
      problems: string[];
    };
    expect(matrix.uncovered).toBe(0);
    expect(matrix.problems).toEqual([]);
    const monitor = matrix.cells.find(
      (cell) => cell.rule === 'B.auth.missing-401' && cell.point.endpoint === 'monitor',
    );
    expect(monitor?.cases).toContain('kv.endpoint-auth.streams');
    // HEAD answers carry the format's content type (covered), but no body to encode (not applicable).
    const headLabel = matrix.cells.find((cell) => cell.rule === 'B.format.json' && cell.point.endpoint === 'head-path');
    expect(headLabel?.cases.length).toBeGreaterThan(0);
    const headBody = matrix.cells.find(
      (cell) => cell.rule === 'B.encoding.base64' && cell.point.endpoint === 'head-path',
    );
    expect(headBody?.notApplicable).toBe('a HEAD answer has no body');
  });

  test('--coverage text: one line per cell and the totals', async () => {
    const run = await runCli(['rules', '--coverage', '--area', 'kv']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'B.encoding.base64 [MUST]\n  reply-shape=null container=reply: covered by kv.reply-matrix.reply\n',
    );
    expect(run.stdout).toMatch(/\n\d+ cells: \d+ covered, \d+ not applicable, 0 uncovered\n$/);
  });

  test('an unknown area is one usage line', async () => {
    const run = await runCli(['rules', '--area', 'queues']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      'svc-harness: rules: unknown area "queues" (areas: kv, messaging, management) [SVC_USAGE]\n',
    );
  });
});

describe('rule listing renderers', () => {
  const rule = { id: 'B.x', area: 'kv', level: 'MUST', section: 'Errors', text: 'X holds.' } as const;
  test('text marks a rule without cases', () => {
    expect(renderRulesText([{ rule, cases: [] }])).toBe(
      'B.x [MUST] Errors\n  X holds.\n  cases: none\n\n1 rules, 0 covered, 1 without a case\n',
    );
  });
  test('json keeps the catalog fields and the case ids', () => {
    expect(JSON.parse(renderRulesJson([{ rule, cases: ['kv.a'] }]))).toEqual({ rules: [{ ...rule, cases: ['kv.a'] }] });
  });
  test('coverage joins cases to rules, filtered by area', () => {
    const coverage = ruleCoverage(
      [rule, { ...rule, id: 'A.y', area: 'messaging' }],
      [{ area: 'kv', file: 'f', cases: [{ id: 'kv.b', rules: ['B.x'], title: '', expect: '', run: async () => {} }] }],
      ['kv'],
    );
    expect(coverage).toEqual([{ rule, cases: ['kv.b'] }]);
  });
});
