/**
 * Vendor-specific names, in one table. The spec writes them with `Svc`/`svc`; the real-world service
 * this spec describes uses `Upstash`/`qstash`. A target file's `dialect` picks the column, so the same
 * suites run against implementations that use either set of names.
 */

export const dialectNames = ['svc', 'upstash'] as const;
export type DialectName = (typeof dialectNames)[number];

/**
 * How a target signs the requests it sends (the spec leaves header, algorithm and key use unshown):
 * `jwt-hs256` is the real-world scheme (a JWT, HS256, keyed with the signing key's UTF-8 bytes, with
 * `sub` the URL called and `body` the SHA-256 of the body); `none` declares no scheme the harness knows.
 */
export const signatureSchemes = ['jwt-hs256', 'none'] as const;
export type SignatureSchemeName = (typeof signatureSchemes)[number];

export interface SignatureScheme {
  readonly scheme: SignatureSchemeName;
  /** The request header carrying the signature. */
  readonly header: string;
}

/** Canonical name → what it is called on the wire. Header names are given in their spec spelling. */
export interface Dialect {
  readonly name: DialectName;
  /** Prefix of every vendor header: `Svc-` or `Upstash-`. */
  readonly headerPrefix: string;
  /** Area A query parameter carrying the token (spec: `svc_token`). */
  readonly messagingTokenQuery: string;
  /** Area C path of the messaging account (spec: `/v2/svc/user`). */
  readonly accountPath: string;
  /** Enum values of the account's `reserved_type` that carry the vendor name. */
  readonly reservedTypes: readonly string[];
  /** The signature scheme of targets of this dialect that declare none: the real-world one. */
  readonly signature: SignatureScheme;
}

const dialects: Record<DialectName, Dialect> = {
  svc: {
    name: 'svc',
    headerPrefix: 'Svc-',
    messagingTokenQuery: 'svc_token',
    accountPath: '/v2/svc/user',
    reservedTypes: ['paid', 'svc_enterprise_1m', 'svc_enterprise_10m'],
    signature: { scheme: 'jwt-hs256', header: 'Svc-Signature' },
  },
  upstash: {
    name: 'upstash',
    headerPrefix: 'Upstash-',
    messagingTokenQuery: 'qstash_token',
    accountPath: '/v2/qstash/user',
    reservedTypes: ['paid', 'qstash_enterprise_1m', 'qstash_enterprise_10m'],
    signature: { scheme: 'jwt-hs256', header: 'Upstash-Signature' },
  },
};

export function getDialect(name: DialectName): Dialect {
  return dialects[name];
}

export function isDialectName(value: string): value is DialectName {
  return (dialectNames as readonly string[]).includes(value);
}

/**
 * The wire name of a vendor header, from its spec name without the prefix:
 * `vendorHeader(d, 'Encoding')` is `Svc-Encoding` or `Upstash-Encoding`.
 */
export function vendorHeader(dialect: Dialect, suffix: string): string {
  return `${dialect.headerPrefix}${suffix}`;
}
