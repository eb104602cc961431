import { describe, expect, test } from 'vitest';
import {
  createRedactor,
  redactedMark,
  redactStrings,
  redactUrl,
  secretForms,
  shortSecretNotice,
  urlSecrets,
} from '../../src/shared/redact.ts';

describe('redaction', () => {
  test('replaces a secret as is, percent-encoded and base64-encoded', () => {
    const secret = 'tok/en+1=';
    const redact = createRedactor([secret]);
    for (const form of secretForms(secret)) expect(redact(`a ${form} b`)).toBe(`a ${redactedMark} b`);
    expect(secretForms(secret)).toEqual(['tok/en+1=', 'tok%2Fen%2B1%3D', Buffer.from(secret).toString('base64')]);
  });

  test('replaces every occurrence, longest secret first', () => {
    const redact = createRedactor(['abcdefgh', 'abcdefgh-ijk']);
    expect(redact('abcdefgh-ijk abcdefgh abcdefgh-ijk')).toBe(`${redactedMark} ${redactedMark} ${redactedMark}`);
  });

  test('without secrets the text is unchanged', () => {
    expect(createRedactor([])('plain')).toBe('plain');
  });

  test('a short secret is replaced only where credentials travel, never inside words, keys or other values', () => {
    const redact = createRedactor(['t']);
    expect(redact('{"target":"t","token":"t"} Bearer t _token=t')).toBe(
      `{"target":"t","token":"${redactedMark}"} Bearer ${redactedMark} _token=${redactedMark}`,
    );
    expect(redact('the test target')).toBe('the test target');
  });

  test('a short secret that is an ordinary word leaves the words and paths around it alone (issue 36)', () => {
    const redact = createRedactor(['wrong']);
    expect(redact('missing or wrong HTTP Basic credentials')).toBe('missing or wrong HTTP Basic credentials');
    expect(redact('reports: /tmp/r-wrong (report.json)')).toBe('reports: /tmp/r-wrong (report.json)');
    expect(redact('Authorization: Basic wrong')).toBe(`Authorization: Basic ${redactedMark}`);
  });

  test('a secret of eight characters or more is replaced wherever it stands as a whole value', () => {
    const redact = createRedactor(['s3cr3t-tok']);
    expect(redact('the answer echoed s3cr3t-tok back')).toBe(`the answer echoed ${redactedMark} back`);
    expect(redact('xs3cr3t-tok')).toBe('xs3cr3t-tok');
  });

  test('a too-short secret is said once; long ones are not', () => {
    expect(shortSecretNotice(['x', 'a-long-enough-token'])).toMatch(/a secret of 1 characters is too short/);
    expect(shortSecretNotice(['a-long-enough-token'])).toBeUndefined();
  });

  test("the harness's own encodings are never redacted: a histogram stays decodable whatever the secret", () => {
    const histogram = 'HISTFAAAAB94nJNpmSzMwMDAzQABMJoRTAMAGQkBVA==/x/AA';
    const redact = createRedactor(['x', 'AAAAB94nJNpmSzMwMDAz']);
    const result = { histogram, tags: [{ histogram, name: 'x' }], error: 'Bearer x', reportDir: '/tmp/x' };
    expect(redactStrings(result, redact)).toEqual({
      histogram,
      tags: [{ histogram, name: 'x' }],
      error: `Bearer ${redactedMark}`,
      reportDir: '/tmp/x',
    });
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
