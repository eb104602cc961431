/**
 * One sample of each byte class of conformance/rules/dimensions.ts (`byte-class`): the bytes URL, path,
 * query and body handling commonly get wrong. A sample keeps the class's characters between ordinary
 * ones and at the end, where trimming and splitting bugs show. Fast-check mixes them (`mixedBytes`).
 */
import fc from 'fast-check';
import type { Arg } from '../../src/suite-kit/suite-api.ts';
import type { DimensionValue } from '../rules/dimensions.ts';
import { propertySeed } from './properties.ts';

export type ByteClass = DimensionValue<'byte-class'>;

export const byteClassSamples: Readonly<Record<ByteClass, Arg>> = {
  space: 'a b  ',
  plus: 'a+b+',
  // `%41` must stay three characters: a target that decodes twice makes it `A`.
  percent: 'a%41%25b%',
  slash: 'a/b/',
  question: 'a?b=c?',
  hash: 'a#b#',
  ampersand: 'a&b=c&',
  equals: 'a=b==',
  quote: `a"b'"`,
  backslash: 'a\\b\\n\\',
  bmp: 'é€ü中',
  astral: '😀a𝄞',
  'invalid-utf8': Uint8Array.from([0x61, 0xff, 0xfe, 0x62, 0xc3]),
  nul: 'a\u0000b\u0000',
  crlf: 'a\r\nb\n\r',
  empty: '',
  long: 'long/ %+é'.repeat(150),
};

/** The bytes of an argument. */
export function argBytes(arg: Arg): Uint8Array {
  return typeof arg === 'string' ? new TextEncoder().encode(arg) : arg;
}

/** `a` then `b`, as one argument (bytes when either is bytes). */
export function joinArgs(a: Arg, b: Arg): Arg {
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  return Uint8Array.from([...argBytes(a), ...argBytes(b)]);
}

/**
 * Values mixing the short classes (the long and empty ones aside), drawn by fast-check with the fixed
 * seed: the same values every run (SVC_FC_SEED replays another draw).
 */
export function mixedBytes(count: number, classes: readonly ByteClass[]): Arg[] {
  return fc.sample(classMix(classes), { seed: propertySeed, numRuns: count });
}

/** Two to five samples of the short classes, joined. */
function classMix(classes: readonly ByteClass[]): fc.Arbitrary<Arg> {
  const parts = classes.filter((name) => name !== 'long' && name !== 'empty').map((name) => byteClassSamples[name]);
  return fc
    .array(fc.constantFrom(...parts), { minLength: 2, maxLength: 5 })
    .map((chosen) => chosen.reduce<Arg>((joined, part) => joinArgs(joined, part), ''));
}

/** Text mixing the classes that are text (all but invalid UTF-8), for properties over keys and values. */
export const classedText = (): fc.Arbitrary<string> =>
  classMix(
    (Object.keys(byteClassSamples) as ByteClass[]).filter((name) => typeof byteClassSamples[name] === 'string'),
  ) as fc.Arbitrary<string>;
