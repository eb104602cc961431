/** JSON Schema of a target file; `load-target.ts` validates every file and environment against it. */
const url = { type: 'string', pattern: '^https?://[^\\s]+$' } as const;
const secret = { type: 'string', minLength: 1 } as const;
/** The sink's base URL: a path prefix is allowed (a proxy's mount point), a query or fragment is not. */
const sinkUrl = { type: 'string', pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' } as const;
/** Extra request headers: names as HTTP allows them, values of printable ASCII. */
const headers = {
  type: 'object',
  propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
  additionalProperties: { type: 'string', pattern: '^[\\x20-\\x7e]*$' },
} as const;

export const targetSchema = {
  $id: 'https://svc-harness.dev/schemas/target.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string', minLength: 1 },
    dialect: { enum: ['svc', 'upstash'] },
    maxAnswerBytes: { type: 'integer', minimum: 1024 },
    tls: {
      type: 'object',
      additionalProperties: false,
      properties: { ca: { type: 'string', minLength: 1 }, insecure: { type: 'boolean' } },
    },
    messaging: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'token'],
      properties: {
        url,
        token: secret,
        regions: { type: 'object', additionalProperties: url },
        headers,
        signingKeys: {
          type: 'object',
          additionalProperties: false,
          required: ['current', 'next'],
          properties: { current: secret, next: secret },
        },
        adapter: { type: 'string', minLength: 1 },
        // The spec leaves the signature scheme unshown: the target declares it (default: its dialect's).
        signature: {
          type: 'object',
          additionalProperties: false,
          required: ['scheme'],
          properties: {
            scheme: { enum: ['jwt-hs256', 'none'] },
            header: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
          },
        },
      },
    },
    sink: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        url: sinkUrl,
        waitSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
        threads: { type: 'integer', minimum: 0, maximum: 64 },
      },
    },
    kv: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'token'],
      properties: { url, token: secret, readOnlyToken: secret, headers, readOnlyHeaders: headers },
    },
    management: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'username', 'password'],
      properties: { url, username: { type: 'string', minLength: 1 }, password: secret, headers },
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'token'],
      properties: { url, token: secret },
    },
  },
} as const;
