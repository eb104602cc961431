import { describe, expect, test } from 'vitest';
import { dimensionTable } from '../../../conformance/rules/dimensions.ts';
import { byteClassSamples, classedText, joinArgs, mixedBytes } from '../../../conformance/support/byte-classes.ts';
import { runCells } from '../../../conformance/support/cell-batch.ts';
import { CheckFailure } from '../../../src/suite-kit/check-failure.ts';
import type { CaseContext } from '../../../src/suite-kit/conformance-case.ts';

function context(notes: string[]): CaseContext {
  return {
    observe: (note: string) => void notes.push(note),
  } as unknown as CaseContext;
}

describe('runCells', () => {
  test('runs every cell, then fails once on the first failure, naming the count and the rules', async () => {
    const ran: string[] = [];
    const cell = (name: string, rule?: string) => ({
      name,
      async check() {
        ran.push(name);
        if (rule !== undefined) throw new CheckFailure(rule, `got ${name}`, 'something else', 'where');
        return undefined;
      },
    });
    const failure = await runCells(context([]), [cell('a'), cell('b', 'B.x'), cell('c', 'B.y'), cell('d')]).catch(
      (error: unknown) => error,
    );
    expect(ran.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(failure).toBeInstanceOf(CheckFailure);
    expect((failure as CheckFailure).rule).toBe('B.x');
    expect((failure as CheckFailure).message).toBe(
      '2/4 cells failed (rules B.x, B.y); first: b, where: received got b / expected something else [B.x]',
    );
  });

  test('groups the notes of silent cells; passes when no cell fails', async () => {
    const notes: string[] = [];
    const silent = (name: string) => ({ name, check: async () => 'not shown' });
    await runCells(context(notes), [
      silent('a'),
      silent('b'),
      silent('c'),
      silent('d'),
      { name: 'e', check: async () => undefined },
    ]);
    expect(notes).toEqual(['not shown (4 cells: a; b; c; …)']);
  });

  test('an error that is no check failure (a blocked step, a transport error) ends the batch as it is', async () => {
    const error = new Error('refused');
    await expect(runCells(context([]), [{ name: 'a', check: () => Promise.reject(error) }])).rejects.toBe(error);
  });
});

describe('byte-class samples', () => {
  test('one sample per class of the dimension, invalid UTF-8 as bytes', () => {
    expect(Object.keys(byteClassSamples).sort()).toEqual([...dimensionTable['byte-class'].values].sort());
    expect(byteClassSamples['invalid-utf8']).toBeInstanceOf(Uint8Array);
    expect(byteClassSamples.empty).toBe('');
    expect(joinArgs('a', Uint8Array.from([0xff]))).toEqual(Uint8Array.from([0x61, 0xff]));
  });

  test('fast-check mixes are the same every run (fixed seed) and join two to five samples', () => {
    const first = mixedBytes(8, ['plus', 'slash', 'bmp']);
    expect(mixedBytes(8, ['plus', 'slash', 'bmp'])).toEqual(first);
    expect(first).toHaveLength(8);
    for (const value of first)
      expect(typeof value === 'string' && /^(a\+b\+|a\/b\/|é€ü中){2,5}$/.test(value)).toBe(true);
    expect(classedText()).toBeDefined();
  });
});
