import { describe, expect, test } from 'vitest';
import { createCaseContext, keyPrefixFor } from '../../../src/engines/conformance/case-context.ts';
import { CaseSkipped } from '../../../src/suite-kit/check-failure.ts';
import type { Target } from '../../../src/target/target.ts';

const target: Target = { name: 't', dialect: 'upstash', kv: { url: 'http://127.0.0.1:1', token: 'tok' } };

describe('case context', () => {
  test('the key prefix is unique per run and case', () => {
    expect(keyPrefixFor('kv.a', 'run1')).toBe('svch:run1:kv.a:');
    expect(keyPrefixFor('kv.a', 'run1')).not.toBe(keyPrefixFor('kv.a', 'run2'));
    expect(createCaseContext({ target, caseId: 'kv.b', runId: 'r' }).context.keyPrefix).toBe('svch:r:kv.b:');
  });

  test('the dialect follows the target', () => {
    expect(createCaseContext({ target, caseId: 'x' }).context.dialect.headerPrefix).toBe('Upstash-');
  });

  test('observe records notes; skip throws CaseSkipped', () => {
    const recorder = createCaseContext({ target, caseId: 'x' });
    recorder.context.observe('one');
    expect(recorder.notes).toEqual(['one']);
    expect(() => recorder.context.skip('why')).toThrow(CaseSkipped);
  });

  test('cleanups run last first; a failing or stalling one becomes a note and the rest still run', async () => {
    const recorder = createCaseContext({ target, caseId: 'x' });
    const order: string[] = [];
    recorder.context.onCleanup(() => {
      order.push('first');
    });
    recorder.context.onCleanup(() => new Promise<void>(() => {}));
    recorder.context.onCleanup(() => {
      throw new Error('cannot delete');
    });
    const notes = await recorder.cleanup(100);
    expect(order).toEqual(['first']);
    expect(notes).toEqual(['cleanup failed: cannot delete', 'cleanup failed: cleanup did not end within 100 ms']);
    expect(await recorder.cleanup(100)).toEqual([]);
  });
});
