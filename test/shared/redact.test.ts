import { describe, expect, test } from 'vitest';
import { createRedactor, redactedMark, redactUrl, secretForms, urlSecrets } from '../../src/shared/redact.ts';

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

  test('a short secret is replaced only as a whole value, never inside words or keys', () => {
    const redact = createRedactor(['t']);
    expect(redact('{"target":"t","token":"t"} Bearer t _token=t')).toBe(
      `{"target":"${redactedMark}","token":"${redactedMark}"} Bearer ${redactedMark} _token=${redactedMark}`,
    );
    expect(redact('the test target')).toBe('the test target');
  });
});

describe('URLs', () => {
  test('user information and credential parameters are replaced; the rest stays', () => {
    const url = 'http://user:pw@kv.example:8080/base?_token=abc&db=1&svc_token=def';
    expect(redactUrl(url)).toBe(
      'http://%5Bredacted%5D:%5Bredacted%5D@kv.example:8080/base?_token=%5Bredacted%5D&db=1&svc_token=%5Bredacted%5D',
    );
    expect(urlSecrets(url).sort()).toEqual(['abc', 'def', 'pw']);
    expect(redactUrl('not a url')).toBe('not a url');
  });
});
