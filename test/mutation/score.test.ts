/**
 * The pure parts of the mutation run: documented equivalences (exact ids and patterns), the
 * fixed-seed sample spread over families and areas, and the score table with its survivors.
 */
import { describe, expect, test } from 'vitest';
import { equivalenceOf } from './equivalent.ts';
import { type PlannedMutant, sampleMutants } from './mutant-plan.ts';
import type { MutantResult, Outcome } from './mutant-run.ts';
import type { Family } from './operator.ts';
import { renderScore } from './score.ts';

function mutant(operatorId: string, family: Family, area: PlannedMutant['area'], routeClass: string): PlannedMutant {
  return {
    id: `${operatorId} @ ${routeClass}`,
    operatorId,
    family,
    area,
    routeClass,
    what: 'changes something',
    example: 'POST / → 200',
    cases: ['kv.some.case'],
    rules: ['B.some.rule'],
  };
}

function result(planned: PlannedMutant, outcome: Outcome, detail: string[] = []): MutantResult {
  return {
    mutant: planned,
    outcome,
    fired: outcome === 'not-fired' ? 0 : 3,
    changed: ['POST /pipeline → 500'],
    exitCode: outcome === 'caught' ? 1 : 0,
    detail,
    durationMs: 1000,
  };
}

describe('equivalences', () => {
  test('an exact id and a pattern match; a neighbour does not', () => {
    expect(equivalenceOf('status.200-to-201 @ messaging POST /v2/keys/rotate')).toMatch(/rotate status is not shown/);
    expect(equivalenceOf('headers.renamed:www-authenticate @ management POST /v2/search')).toMatch(/WWW-Authenticate/);
    expect(equivalenceOf('status.2xx-to-500 @ messaging POST /v2/notify/*')).toBeUndefined();
    expect(equivalenceOf('headers.content-type:json-to-plain @ kv POST /pipeline')).toBeUndefined();
  });
});

describe('the sample', () => {
  const all = [
    ...Array.from({ length: 10 }, (_unused, i) => mutant(`status.s${i}`, 'status', 'kv', 'kv POST /')),
    ...Array.from({ length: 10 }, (_unused, i) => mutant(`json.j${i}`, 'json', 'kv', 'kv POST /')),
    mutant('delivery.dropped', 'delivery', 'messaging', 'delivery message'),
  ];

  test('is the same for the same seed, and differs for another', () => {
    expect(sampleMutants(all, 5, 20)).toEqual(sampleMutants(all, 5, 20));
    expect(sampleMutants(all, 5, 20).map((item) => item.id)).not.toEqual(
      sampleMutants(all, 5, 21).map((item) => item.id),
    );
  });

  test('takes every family and area before any twice', () => {
    const picked = sampleMutants(all, 3, 20);
    expect(new Set(picked.map((item) => item.family))).toEqual(new Set(['status', 'json', 'delivery']));
  });

  test('is everything when the list fits', () => {
    expect(sampleMutants(all, 100, 20)).toHaveLength(all.length);
  });
});

describe('the score', () => {
  const caught = mutant('status.2xx-to-500', 'status', 'kv', 'kv POST /pipeline');
  const survivor = mutant('headers.content-type:json-to-plain', 'headers', 'kv', 'kv POST /pipeline');
  const equivalent = mutant('status.200-to-201', 'status', 'messaging', 'messaging POST /v2/keys/rotate');
  const silent = mutant('sse.event-dropped', 'sse', 'kv', 'kv POST /monitor');
  const broken = mutant('auth.wrong-accepted', 'auth', 'kv', 'kv POST /');
  const text = renderScore([
    result(caught, 'caught', ['kv.pipeline.order [B.pipeline.order]']),
    result(survivor, 'survived'),
    result(equivalent, 'survived'),
    result(silent, 'not-fired'),
    result(broken, 'error', ['exit 2: the target stopped answering']),
  ]);

  test('counts per family and area, and overall', () => {
    expect(text).toMatch(/^status\s+kv\s+1\s+1\s+1\s+0\s+0\s+0\s+0$/m);
    expect(text).toMatch(/^status\s+messaging\s+1\s+1\s+0\s+0\s+1\s+0\s+0$/m);
    expect(text).toMatch(/^headers\s+kv\s+1\s+1\s+0\s+1\s+0\s+0\s+0$/m);
    expect(text).toMatch(/^sse\s+kv\s+1\s+0\s+0\s+0\s+0\s+0\s+1$/m);
    expect(text).toMatch(/^all\s+all\s+5\s+4\s+1\s+1\s+1\s+1\s+1$/m);
    expect(text).toContain('mutation score: 1 caught of 2 fired non-equivalent mutants that judged (50%)');
  });

  test('lists the survivor with what it changed, the error apart, and not the equivalent one', () => {
    expect(text).toContain(
      'survivors:\n  headers.content-type:json-to-plain @ kv POST /pipeline: changes something; changed POST /pipeline → 500',
    );
    expect(text).toContain('errors (the run did not judge; not a catch):\n  auth.wrong-accepted @ kv POST /: exit 2');
    expect(text.slice(text.indexOf('survivors:'))).not.toContain('keys/rotate');
    expect(text).toContain('not fired: sse.event-dropped @ kv POST /monitor');
  });

  test('an equivalent mutant that a case catches is shown as a possible over-assertion', () => {
    const over = renderScore([result(equivalent, 'caught', ['messaging.keys.rotate [A.keys.rotate]'])]);
    expect(over).toContain('caught although documented as equivalent (an over-assertion?):');
    expect(over).toContain('messaging.keys.rotate [A.keys.rotate]');
  });
});
