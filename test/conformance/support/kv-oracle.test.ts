import { describe, expect, test } from 'vitest';
import { cellOracle, matrixCells } from '../../../conformance/support/kv-oracle.ts';

describe('the combination matrix oracle', () => {
  test('has one cell per form × encoding × format × credentials', () => {
    const cells = matrixCells();
    expect(cells).toHaveLength(8 * 2 * 4 * 5);
    expect(new Set(cells.map((cell) => JSON.stringify(cell))).size).toBe(cells.length);
  });

  test('a plain read with the Standard token is a 200 JSON result', () => {
    const oracle = cellOracle({ form: 'get-path', encoding: 'absent', format: 'absent', credentials: 'bearer' });
    expect(oracle.expect).toEqual({ kind: 'json-result', items: false, base64: false });
    expect(oracle.rules).toContain('B.status.ok-200');
  });

  test('base64 on a pipeline encodes the items; on multi-exec resp2 still answers JSON', () => {
    expect(cellOracle({ form: 'pipeline', encoding: 'base64', format: 'json', credentials: 'query' }).expect).toEqual({
      kind: 'json-result',
      items: true,
      base64: true,
    });
    const multi = cellOracle({ form: 'multi-exec', encoding: 'absent', format: 'resp2', credentials: 'bearer' });
    expect(multi.expect).toEqual({ kind: 'json-result', items: true, base64: false });
    expect(multi.contentTypeRule).toBe('B.multi-exec.json-only');
  });

  test('resp2 is raw bytes, except where the spec is silent (pipeline) or excludes it (multi-exec)', () => {
    expect(
      cellOracle({ form: 'post-root', encoding: 'absent', format: 'resp2', credentials: 'read-only' }).expect.kind,
    ).toBe('resp2');
    expect(
      cellOracle({ form: 'pipeline', encoding: 'absent', format: 'resp2', credentials: 'bearer' }).expect.kind,
    ).toBe('observe');
  });

  test('header errors give 400, blamed on their rule', () => {
    const invalid = cellOracle({ form: 'put-path', encoding: 'absent', format: 'invalid', credentials: 'bearer' });
    // A 400's error text starts with a class token (a 401's may be `Unauthorized`: see the next test).
    expect(invalid.expect).toEqual({ kind: 'refused', statuses: [400], jsonError: true, classToken: true });
    expect(invalid.rules).toContain('B.errors.class-token');
    expect(invalid.statusRule).toBe('B.format.invalid-400');
    const both = cellOracle({ form: 'post-body', encoding: 'base64', format: 'resp2', credentials: 'query' });
    expect(both.expect).toEqual({ kind: 'refused', statuses: [400], jsonError: false, classToken: false });
    expect(both.statusRule).toBe('B.format.base64-with-resp2-400');
  });

  test('base64 with resp2 on multi-exec is observed: rules 3 and 4 disagree', () => {
    const cell = cellOracle({ form: 'multi-exec', encoding: 'base64', format: 'resp2', credentials: 'bearer' });
    expect(cell.expect.kind).toBe('observe');
  });

  test('no or a wrong token gives 401; with a header error either 400 or 401', () => {
    const none = cellOracle({ form: 'head-path', encoding: 'absent', format: 'json', credentials: 'none' });
    // HEAD has no body to judge, but the content type it sends must be the format's (as GET's would be).
    expect(none.expect).toEqual({
      kind: 'refused',
      statuses: [401],
      jsonError: false,
      headContentType: 'application/json',
    });
    expect(none.statusRule).toBe('B.auth.missing-401');
    const wrong = cellOracle({ form: 'post-root', encoding: 'absent', format: 'absent', credentials: 'wrong' });
    expect(wrong.expect).toEqual({ kind: 'refused', statuses: [401], jsonError: true });
    const both = cellOracle({ form: 'post-root', encoding: 'absent', format: 'invalid', credentials: 'wrong' });
    expect(both.expect).toEqual({ kind: 'refused', statuses: [400, 401], jsonError: false });
  });

  test('every cell names its rules, and observes only where a rule is silent', () => {
    for (const cell of matrixCells()) {
      const oracle = cellOracle(cell);
      expect(oracle.rules.length).toBeGreaterThan(1);
      expect(oracle.rules).toContain(oracle.statusRule);
    }
    const observed = matrixCells().filter((cell) => cellOracle(cell).expect.kind === 'observe');
    expect(observed).toHaveLength(6);
  });
});
