import { describe, expect, test } from 'vitest';
import { getDialect, isDialectName, vendorHeader } from '../../src/target/dialects.ts';
import { parseTarget } from '../../src/target/read-target.ts';
import { describeTarget, signatureSchemeOf, type Target, targetSecrets } from '../../src/target/target.ts';

const full: Target = {
  name: 'full',
  dialect: 'svc',
  messaging: { url: 'http://m', token: 'mt', regions: { 'us-east-1': 'http://us' } },
  kv: { url: 'http://kv', token: 'kt', readOnlyToken: 'ro' },
  management: { url: 'http://mg', username: 'me@example.com', password: 'pw' },
  admin: { url: 'http://ad', token: 'at' },
};

describe('target model', () => {
  test('targetSecrets lists every secret', () => {
    expect(targetSecrets(full).sort()).toEqual(['at', 'kt', 'mt', 'pw', 'ro']);
    expect(targetSecrets({ name: 'x', dialect: 'svc', kv: { url: 'http://kv', token: 'k' } })).toEqual(['k']);
  });

  test('describeTarget holds no secret', () => {
    const text = JSON.stringify(describeTarget(full));
    for (const secret of targetSecrets(full)) expect(text).not.toContain(`"${secret}"`);
    expect(describeTarget(full)).toMatchObject({ kv: { url: 'http://kv', readOnlyToken: true } });
  });
});

describe('dialects', () => {
  test('the same canonical name on the wire in each dialect', () => {
    expect(vendorHeader(getDialect('svc'), 'Encoding')).toBe('Svc-Encoding');
    expect(vendorHeader(getDialect('upstash'), 'Response-Format')).toBe('Upstash-Response-Format');
    expect(getDialect('upstash').messagingTokenQuery).toBe('qstash_token');
    expect(getDialect('upstash').accountPath).toBe('/v2/qstash/user');
    expect(getDialect('svc').accountPath).toBe('/v2/svc/user');
  });

  test('isDialectName', () => {
    expect(isDialectName('svc')).toBe(true);
    expect(isDialectName('redis')).toBe(false);
  });

  test('credentials in target URLs are secrets and never described', () => {
    const target: Target = {
      name: 'u',
      dialect: 'svc',
      kv: { url: 'http://user:s3cret-pw@127.0.0.1:1/?_token=q-token-value', token: 'kt' },
    };
    expect(targetSecrets(target)).toEqual(expect.arrayContaining(['s3cret-pw', 'q-token-value']));
    const described = JSON.stringify(describeTarget(target));
    expect(described).not.toContain('s3cret-pw');
    expect(described).not.toContain('q-token-value');
  });
});

describe('the signature scheme a target declares', () => {
  const messaging = { url: 'http://m', token: 'mt' };

  test('defaults to the dialect’s: the real-world JWT in the dialect’s signature header', () => {
    expect(signatureSchemeOf({ name: 's', dialect: 'svc', messaging })).toEqual({
      scheme: 'jwt-hs256',
      header: 'Svc-Signature',
    });
    expect(signatureSchemeOf({ name: 'u', dialect: 'upstash', messaging })).toEqual({
      scheme: 'jwt-hs256',
      header: 'Upstash-Signature',
    });
  });

  test('a target file declares another header, or no scheme; the report says which', () => {
    const file = parseTarget(
      { dialect: 'upstash', messaging: { ...messaging, signature: { scheme: 'jwt-hs256', header: 'X-Signature' } } },
      'file t.json',
    );
    expect(signatureSchemeOf(file)).toEqual({ scheme: 'jwt-hs256', header: 'X-Signature' });
    const none = parseTarget({ messaging: { ...messaging, signature: { scheme: 'none' } } }, 'file n.json');
    expect(signatureSchemeOf(none)).toEqual({ scheme: 'none', header: 'Svc-Signature' });
    expect(describeTarget(none)).toMatchObject({ messaging: { signature: { scheme: 'none' } } });
  });

  test('an unknown scheme, or a header name HTTP does not allow, is one SVC_CONFIG line', () => {
    expect(() => parseTarget({ messaging: { ...messaging, signature: { scheme: 'rsa' } } }, 'file r.json')).toThrow(
      'target file r.json: messaging.signature.scheme must be equal to one of the allowed values',
    );
    expect(() =>
      parseTarget({ messaging: { ...messaging, signature: { scheme: 'none', header: 'Bad Header' } } }, 'file h.json'),
    ).toThrow('target file h.json: messaging.signature.header must be an HTTP header name');
    expect(() => parseTarget({ messaging: { ...messaging, signature: {} } }, 'file e.json')).toThrow(/scheme/);
  });
});
