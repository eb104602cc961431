/** The admin endpoint: password reset, ACL users, limits; behind its own Bearer token. */
import { describe, expect, it } from 'vitest';
import { admin, call, uniqueKey, useTestReference } from '../../support/reference-fixture.ts';

const env = useTestReference();

describe('admin endpoint', () => {
  it('refuses a missing or wrong admin token, and the KV token', async () => {
    for (const token of [null, 'wrong', env.ref.target.kv!.token]) {
      const res = await admin(env.ref, 'GET', '/limits', undefined, token);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
  });

  it('resets the database password: both old tokens are revoked, the new ones work', async () => {
    const before = { ...env.ref.target.kv! };
    const res = await admin(env.ref, 'POST', '/reset-password');
    expect(res.status).toBe(200);
    const issued = res.json as { token: string; readOnlyToken: string };
    expect(issued.token).not.toBe(before.token);
    expect(issued.readOnlyToken).not.toBe(before.readOnlyToken);
    expect(env.ref.target.kv).toMatchObject(issued);
    expect((await call(env.ref, '/ping', { token: before.token })).status).toBe(401);
    expect((await call(env.ref, '/ping', { token: before.readOnlyToken! })).status).toBe(401);
    expect((await call(env.ref, '/ping', { token: issued.token })).status).toBe(200);
    expect((await call(env.ref, '/ping', { token: issued.readOnlyToken })).status).toBe(200);
  });

  it('resets to given tokens, so a suite can restore the originals', async () => {
    const before = { ...env.ref.target.kv! };
    await admin(env.ref, 'POST', '/reset-password');
    const restored = await admin(env.ref, 'POST', '/reset-password', {
      token: before.token,
      readOnlyToken: before.readOnlyToken,
    });
    expect(restored.json).toEqual({ token: before.token, readOnlyToken: before.readOnlyToken });
    expect((await call(env.ref, '/ping', { token: before.token })).status).toBe(200);
    expect((await admin(env.ref, 'POST', '/reset-password', { token: 'same', readOnlyToken: 'same' })).status).toBe(
      400,
    );
  });

  it('creates an ACL user whose RESTTOKEN carries its rules', async () => {
    const username = uniqueKey('user').replace(':', '-');
    const created = await admin(env.ref, 'POST', '/acl-users', {
      username,
      password: 'pw-1',
      rules: ['~mine:*', '+get'],
    });
    expect(created.status).toBe(200);
    const token = ((await call(env.ref, `/acl/resttoken/${username}/pw-1`)).json as { result: string }).result;
    expect((await call(env.ref, '/get/mine:1', { token })).json).toEqual({ result: null });
    expect((await call(env.ref, '/set/mine:1/v', { token })).json).toEqual({
      error: expect.stringMatching(/^NOPERM /),
    });
    const everything = uniqueKey('user').replace(':', '-');
    await admin(env.ref, 'POST', '/acl-users', { username: everything, password: 'pw-2' });
    const full = ((await call(env.ref, `/acl/resttoken/${everything}/pw-2`)).json as { result: string }).result;
    expect((await call(env.ref, `/set/${uniqueKey()}/v`, { token: full })).json).toEqual({ result: 'OK' });
  });

  it('answers 400 for bad ACL input and 404 for unknown operations', async () => {
    expect((await admin(env.ref, 'POST', '/acl-users', { username: 'x' })).status).toBe(400);
    expect(
      (await admin(env.ref, 'POST', '/acl-users', { username: 'x', password: 'p', rules: ['nonsense-rule'] })).status,
    ).toBe(400);
    expect((await admin(env.ref, 'POST', '/acl-users', [1])).status).toBe(400);
    expect((await admin(env.ref, 'GET', '/nothing')).status).toBe(404);
  });

  it('reads and sets the limits, and resets the daily count', async () => {
    expect((await admin(env.ref, 'GET', '/limits')).json).toMatchObject({
      maxRequestBytes: 10 * 1024 * 1024,
      dailyRequestLimit: null,
    });
    await admin(env.ref, 'POST', '/limits/reset-daily');
    const set = await admin(env.ref, 'PUT', '/limits', { dailyRequestLimit: 2 });
    expect(set.json).toMatchObject({ dailyRequestLimit: 2, dailyRequestsUsed: 0 });
    await call(env.ref, '/ping');
    await call(env.ref, '/ping');
    expect((await call(env.ref, '/ping')).json).toEqual({ error: 'ERR max daily request limit exceeded' });
    expect((await admin(env.ref, 'POST', '/limits/reset-daily')).json).toMatchObject({ dailyRequestsUsed: 0 });
    expect((await call(env.ref, '/ping')).json).toEqual({ result: 'PONG' });
    expect(
      (await admin(env.ref, 'PUT', '/limits', { dailyRequestLimit: null, maxRequestBytes: 10 })).json,
    ).toMatchObject({
      dailyRequestLimit: null,
      maxRequestBytes: 10,
    });
    expect((await call(env.ref, '/echo/0123456789')).json).toEqual({ error: 'ERR max request size exceeded' });
    await admin(env.ref, 'PUT', '/limits', { maxRequestBytes: 10 * 1024 * 1024 });
    expect((await admin(env.ref, 'PUT', '/limits', { dailyRequestLimit: -1 })).status).toBe(400);
    expect((await admin(env.ref, 'PUT', '/limits', { maxRequestBytes: 'big' })).status).toBe(400);
  });
});
