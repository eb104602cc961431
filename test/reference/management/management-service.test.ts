/**
 * Area C as a service: what it keeps in Redis outlives a restart, the admin endpoint changes the
 * account it answers, and nothing it does writes a secret to the process's output.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { admin, startTestRedis, startTestReference } from '../../support/reference-fixture.ts';
import { asObject, basic, createIndex, getAccount, mgmt } from './management-client.ts';

let redis: RedisBacking | undefined;

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await redis?.stop();
});

const start = (options: { dialect?: 'svc' | 'upstash' } = {}) =>
  startTestReference(redis!, { areas: ['management'], ...options });

describe('area C durability', () => {
  it('a second reference on the same Redis answers the same index and the same account', async () => {
    const first = await start();
    let index: Record<string, unknown>;
    let before: Record<string, unknown>;
    let credentials: { username: string; password: string };
    try {
      index = await createIndex(first);
      before = asObject((await getAccount(first)).json);
      credentials = { username: first.target.management!.username, password: first.target.management!.password };
    } finally {
      await first.stop();
    }
    const second = await start();
    try {
      expect(second.target.management).toMatchObject(credentials);
      const again = await mgmt(second, `/v2/search/${String(index.id)}`);
      expect(again.status).toBe(200);
      expect(again.json).toEqual(index);
      const after = asObject((await getAccount(second)).json);
      expect(after.customer_id).toBe(before.customer_id);
      expect(after.token).toBe(before.token);
      expect(after).toEqual(before);
    } finally {
      await second.stop();
    }
  });

  it('serve prints the Basic user and API key that the target holds', async () => {
    const ref = await start();
    try {
      const area = ref.areas.find((item) => item.name === 'management')!;
      expect(area.title).toBe('management (area C)');
      const { username, password } = ref.target.management!;
      expect(area.describe()).toEqual([
        ['user', username],
        ['API key', password],
      ]);
    } finally {
      await ref.stop();
    }
  });
});

describe('area C admin operations', () => {
  let ref: RunningReference | undefined;
  beforeAll(async () => {
    ref = await start({ dialect: 'upstash' });
  });
  afterAll(async () => {
    await ref?.stop();
  });

  it('PUT /account changes a limit that the account path then answers', async () => {
    const original = asObject((await getAccount(ref!)).json).max_queues;
    const res = await admin(ref!, 'PUT', '/account', { max_queues: 7, max_retries: 3 });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ max_queues: 7, max_retries: 3 });
    try {
      const account = asObject((await mgmt(ref!, '/v2/qstash/user')).json);
      expect(account).toMatchObject({ max_queues: 7, max_retries: 3 });
    } finally {
      await admin(ref!, 'PUT', '/account', { max_queues: original, max_retries: 20 });
    }
  });

  it('GET and PUT /account answer the account without its secrets', async () => {
    const secrets = asObject((await getAccount(ref!)).json);
    for (const res of [await admin(ref!, 'GET', '/account'), await admin(ref!, 'PUT', '/account', {})]) {
      expect(res.status).toBe(200);
      const body = asObject(res.json);
      expect(body).not.toHaveProperty('password');
      expect(body).not.toHaveProperty('token');
      expect(body.customer_id).toBe(secrets.customer_id);
      const text = res.body.toString();
      for (const secret of [secrets.password, secrets.token, ref!.target.management!.password]) {
        expect(text).not.toContain(String(secret));
      }
    }
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const before = (await admin(ref!, 'GET', '/account')).json;
    for (const patch of [
      { max_queues: -1 },
      { max_queues: 1.5 },
      { max_queues: '7' },
      { type: 'gold' },
      { state: 'enabled' },
      { reserved_type: 'platinum' },
      { active: 'yes' },
      { password: 'mine' },
      { customer_id: 'someone@else' },
      [1],
    ]) {
      const res = await admin(ref!, 'PUT', '/account', patch);
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(asObject(res.json).error).toMatch(/^ERR /);
    }
    expect((await admin(ref!, 'GET', '/account')).json).toEqual(before);
  });

  it('are behind the admin token', async () => {
    expect((await admin(ref!, 'GET', '/account', undefined, null)).status).toBe(401);
    expect((await admin(ref!, 'PUT', '/account', { max_queues: 1 }, 'wrong')).status).toBe(401);
  });
});

describe('area C secrets', () => {
  it('writes nothing to stdout or stderr while it serves, so no secret reaches a log', async () => {
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    // Vitest carries a worker's console calls over its own channel, not stdout: watch them too.
    const consoleMethods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
    const consoleSpies = consoleMethods.map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        written.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
      }),
    );
    let secrets: string[] = [];
    try {
      const ref = await start();
      try {
        const { username, password } = ref.target.management!;
        const index = await createIndex(ref);
        const account = asObject((await getAccount(ref)).json);
        secrets = [password, String(index.token), String(index.read_only_token), String(account.password)];
        secrets.push(String(account.token));
        await mgmt(ref, `/v2/search/${String(index.id)}`);
        await mgmt(ref, '/v2/search', { body: '{broken' });
        await mgmt(ref, '/v2/search', { body: { name: 'x' } });
        await mgmt(ref, '/v2/svc/user', { authorization: basic(username, `${password}!`) });
        await mgmt(ref, '/v2/nothing');
        await admin(ref, 'PUT', '/account', { max_queues: 'x' });
      } finally {
        await ref.stop();
      }
    } finally {
      out.mockRestore();
      err.mockRestore();
      for (const spy of consoleSpies) spy.mockRestore();
    }
    expect(secrets.every((secret) => secret.length > 8)).toBe(true);
    const output = written.join('');
    for (const secret of secrets) expect(output).not.toContain(secret);
    expect(output).toBe('');
  });
});
