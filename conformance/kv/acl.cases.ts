/**
 * Spec "Endpoints > Area B" rule 6 and "Authentication" 2–3: ACL RESTTOKEN gives a token with an ACL
 * user's rights, its errors, and the revocation of both tokens by a password reset.
 */
import { randomBytes } from 'node:crypto';
import { type CaseContext, CheckFailure, defineCases, means } from '../../src/suite-kit/suite-api.ts';
import { adminClient } from '../support/admin-client.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkClassToken,
  checkErrorBody,
  checkNotSuccess,
  checkResult,
  checkStatus,
  checkThat,
  describe,
  isSuccess,
  resultOf,
} from '../support/kv-checks.ts';
import { createKvClient, type KvClient } from '../support/kv-client.ts';

interface AclUser {
  readonly username: string;
  readonly password: string;
}

/**
 * Creates an ACL user limited to keys under `pattern` and to GET, SET and PING: through the admin hook
 * when the target has one, else `ACL SETUSER` with the Standard token; deleted after the case.
 */
async function createAclUser(ctx: CaseContext, kv: KvClient, pattern: string): Promise<AclUser> {
  const username = `svch-${ctx.keyPrefix.replace(/[^A-Za-z0-9]+/g, '-')}${randomBytes(3).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const rules = [`~${pattern}`, '+get', '+set', '+ping'];
  ctx.onCleanup(async () => {
    // A user left behind on a shared target is a leak: say so (a cleanup note) when it is not deleted.
    const res = await kv.root(['ACL', 'DELUSER', username]);
    if (!isSuccess(res)) throw new Error(`ACL DELUSER of the case's user answered status ${res.status}`);
  });
  if (ctx.target.admin) {
    await adminClient(ctx).createAclUser(username, password, rules);
  } else {
    const res = await kv.root(['ACL', 'SETUSER', username, 'reset', 'on', `>${password}`, ...rules]);
    if (!isSuccess(res))
      ctx.skip(`no admin hook, and ACL SETUSER is refused (${describe(res)}), so no ACL user can be made.`);
  }
  return { username, password };
}

const revokeRule = 'B.auth.password-reset-revokes';

const requirements: Requirements = { '*': ['root-form'] };

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.acl.resttoken-rights',
      rules: ['B.acl-resttoken.token'],
      title: 'ACL RESTTOKEN returns a token with the ACL user’s rights',
      expect: 'The token runs GET and SET on the user’s keys and is refused DEL and keys outside its pattern.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [allowed, outside] = [keys.key('allowed:a'), keys.key('outside')];
        const user = await createAclUser(ctx, kv, `${ctx.keyPrefix}allowed:*`);
        const rule = 'B.acl-resttoken.token';
        const token = resultOf(
          rule,
          await kv.root(['ACL', 'RESTTOKEN', user.username, user.password]),
          'ACL RESTTOKEN',
        );
        checkThat(rule, typeof token === 'string' && token.length > 0, typeof token, 'a non-empty string token');
        checkThat(rule, token !== ctx.target.kv?.token, 'the Standard token', 'a token of its own');
        const asUser = { credentials: { kind: 'token', token: String(token), via: 'header' } } as const;
        checkResult(rule, await kv.root(['SET', allowed, 'v'], asUser), 'OK', 'SET on an allowed key');
        checkResult(rule, await kv.root(['GET', allowed], asUser), 'v', 'GET on an allowed key');
        checkNotSuccess(rule, await kv.root(['SET', outside, 'v'], asUser), 'SET outside the key pattern');
        checkNotSuccess(rule, await kv.root(['DEL', allowed], asUser), 'DEL, not granted');
        checkResult(rule, await kv.root(['EXISTS', outside, allowed]), 1, 'only the allowed key exists');
      },
    },
    {
      id: 'kv.acl.resttoken-errors',
      rules: ['B.acl-resttoken.errors'],
      title: 'ACL RESTTOKEN for an unknown user or a wrong password returns an error',
      expect: 'Both answer a 4xx {"error"} with a class token and no token.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const user = await createAclUser(ctx, kv, `${ctx.keyPrefix}*`);
        const rule = 'B.acl-resttoken.errors';
        // The positive first: the right password gives a token. A target without ACL RESTTOKEN refuses
        // every call, which proves nothing about its errors.
        await means(async () =>
          resultOf(
            'B.acl-resttoken.token',
            await kv.root(['ACL', 'RESTTOKEN', user.username, user.password]),
            'the right password',
          ),
        );
        const attempts = [
          ['a wrong password', ['ACL', 'RESTTOKEN', user.username, `${user.password}-wrong`]],
          ['an unknown user', ['ACL', 'RESTTOKEN', `${user.username}-unknown`, user.password]],
        ] as const;
        for (const [what, command] of attempts) {
          const res = await kv.root(command);
          // A success carries a token: say so without showing it (it is a secret the redactor does not know).
          if (isSuccess(res))
            throw new CheckFailure(rule, `status ${res.status} with a result (a token, not shown)`, 'an error', what);
          checkStatus(rule, res, [400, 401, 403, 404], what);
          checkClassToken(rule, checkErrorBody(rule, res, what), undefined, what, ctx.observe);
          ctx.observe(`${what}: ${describe(res).replaceAll(user.username, '<user>')}`);
        }
      },
    },
    {
      id: 'kv.acl.password-reset-revokes',
      rules: [revokeRule],
      needs: ['admin'],
      title: 'Resetting the database password revokes both tokens',
      expect:
        'After a reset through the admin hook the old Standard and Read Only tokens answer 401 and the new Standard token works; the original tokens are then restored through the hook.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        checkResult(revokeRule, await kv.root(['PING']), 'PONG', 'the Standard token before the reset');
        const admin = adminClient(ctx);
        const original = ctx.target.kv;
        // Every later case uses the target's tokens: put them back, pass or fail (files run one at a time).
        if (original) {
          const restore = {
            token: original.token,
            ...(original.readOnlyToken && { readOnlyToken: original.readOnlyToken }),
          };
          ctx.onCleanup(async () => {
            await admin.resetPassword(restore);
          });
        }
        const fresh = await admin.resetPassword();
        const attempts = [
          ['the old Standard token by header', { kind: 'bearer' }],
          ['the old Standard token by _token', { kind: 'query' }],
          ...(ctx.target.kv?.readOnlyToken ? ([['the old Read Only token', { kind: 'read-only' }]] as const) : []),
        ] as const;
        for (const [what, credentials] of attempts) {
          checkStatus(revokeRule, await kv.root(['PING'], { credentials }), 401, what);
        }
        const renewed = { credentials: { kind: 'token', token: fresh.token, via: 'header' } } as const;
        checkResult(revokeRule, await kv.root(['PING'], renewed), 'PONG', 'the new Standard token');
      },
    },
  ]),
);
