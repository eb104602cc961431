/** JSON Schema of a target file; `load-target.ts` validates every file and environment against it. */
const url = { type: 'string', pattern: '^https?://[^\\s]+$' } as const;
const secret = { type: 'string', minLength: 1 } as const;

export const targetSchema = {
  $id: 'https://svc-harness.dev/schemas/target.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string', minLength: 1 },
    dialect: { enum: ['svc', 'upstash'] },
    messaging: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'token'],
      properties: {
        url,
        token: secret,
        regions: { type: 'object', additionalProperties: url },
      },
    },
    kv: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'token'],
      properties: { url, token: secret, readOnlyToken: secret },
    },
    management: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'username', 'password'],
      properties: { url, username: { type: 'string', minLength: 1 }, password: secret },
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'token'],
      properties: { url, token: secret },
    },
  },
} as const;
