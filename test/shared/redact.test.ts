import { describe, expect, test } from 'vitest';
import { createRedactor, redactedMark, secretForms } from '../../src/shared/redact.ts';

describe('redaction', () => {
  test('replaces a secret as is, percent-encoded and base64-encoded', () => {
    const secret = 'tok/en+1=';
    const redact = createRedactor([secret]);
    for (const form of secretForms(secret)) expect(redact(`a ${form} b`)).toBe(`a ${redactedMark} b`);
    expect(secretForms(secret)).toEqual(['tok/en+1=', 'tok%2Fen%2B1%3D', Buffer.from(secret).toString('base64')]);
  });

  test('replaces every occurrence, longest secret first', () => {
    const redact = createRedactor(['abc', 'abcdef']);
    expect(redact('abcdef abc abcdef')).toBe(`${redactedMark} ${redactedMark} ${redactedMark}`);
  });

  test('without secrets the text is unchanged', () => {
    expect(createRedactor([])('plain')).toBe('plain');
  });
});
