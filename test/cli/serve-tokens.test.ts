/** `serve`'s start tokens from the environment: both kv tokens or neither, the admin token alone, none empty. */
import { describe, expect, test } from 'vitest';
import { startTokens } from '../../src/cli/commands/serve.ts';

describe('startTokens', () => {
  test('none set: random tokens (nothing given); both kv tokens and the admin token read as given', () => {
    expect(startTokens({})).toEqual({});
    expect(
      startTokens({ SVC_SERVE_KV_TOKEN: 'a', SVC_SERVE_KV_READONLY_TOKEN: 'b', SVC_SERVE_ADMIN_TOKEN: 'c' }),
    ).toEqual({
      tokens: { kv: { token: 'a', readOnlyToken: 'b' }, admin: 'c' },
    });
    expect(startTokens({ SVC_SERVE_ADMIN_TOKEN: 'c' })).toEqual({ tokens: { admin: 'c' } });
  });

  test('one kv token without the other, or an empty one, is one usage line', () => {
    expect(() => startTokens({ SVC_SERVE_KV_TOKEN: 'a' })).toThrow(
      /^serve: SVC_SERVE_KV_TOKEN and SVC_SERVE_KV_READONLY_TOKEN are set together, or neither$/,
    );
    expect(() => startTokens({ SVC_SERVE_KV_TOKEN: '', SVC_SERVE_KV_READONLY_TOKEN: 'b' })).toThrow(/set and empty/);
  });
});
