import { describe, expect, test } from 'vitest';
import { missingCapability, parseAreaList } from '../../src/target/areas.ts';
import type { Target } from '../../src/target/target.ts';
import { harnessErrorMessage } from '../support/harness-error.ts';

const target: Target = { name: 't', dialect: 'upstash', kv: { url: 'http://127.0.0.1:1', token: 'tok' } };

const usageError = (run: () => unknown) => harnessErrorMessage('SVC_USAGE', run);

describe('parseAreaList', () => {
  const areas = ['kv', 'messaging', 'management'] as const;
  test('splits on commas, trims, dedupes', () => {
    expect(parseAreaList('c', 'kv, messaging,kv', areas)).toEqual(['kv', 'messaging']);
    expect(parseAreaList('c', undefined, areas)).toBeUndefined();
  });
  test('an unknown or empty area is a usage error', () => {
    expect(usageError(() => parseAreaList('conformance', 'kv,queues', areas))).toBe(
      'conformance: unknown area "queues" (areas: kv, messaging, management)',
    );
    expect(usageError(() => parseAreaList('rules', ',', areas))).toBe('rules: --area needs at least one area');
  });
});

describe('capabilities', () => {
  test('missing capabilities give a one-sentence reason', () => {
    expect(missingCapability(target, ['kv.readOnlyToken'])).toMatch(/read-only token/);
    expect(missingCapability(target, ['admin'])).toMatch(/admin hook/);
    const full: Target = {
      ...target,
      kv: { url: 'http://x', token: 'a', readOnlyToken: 'b' },
      admin: { url: 'http://y', token: 'c' },
    };
    expect(missingCapability(full, ['kv.readOnlyToken', 'admin'])).toBeUndefined();
  });
});
