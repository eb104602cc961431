/**
 * The reference's area C, without faults, obeys every MUST rule of conformance/rules/management-rules.ts,
 * in both dialects (`/v2/svc/user` and `/v2/qstash/user`, reserved plans with svc_ or qstash_). The
 * OBSERVE rules get the real service's statuses, with `{error}` bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managementRuleCatalog } from '../../../conformance/rules/management-rules.ts';
import {
  accountFieldTable as accountFieldKinds,
  fieldProblems,
  indexFieldTable as indexFieldKinds,
} from '../../../conformance/support/management-checks.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { type DialectName, getDialect } from '../../../src/target/dialects.ts';
import { admin, startTestRedis, startTestReference } from '../../support/reference-fixture.ts';
import { asObject, basic, createIndex, getAccount, mgmt, uuidPattern } from './management-client.ts';

type RuleCheck = (ref: RunningReference) => Promise<void>;

const types = ['free', 'payg', 'fixed'] as const;
const regions = ['eu-west-1', 'us-central1'] as const;
const unlimitedCapable = ['max_monthly_reranks', 'max_daily_updates', 'max_daily_queries', 'max_monthly_bandwidth'];
const valid = { name: 'docs', region: 'eu-west-1', type: 'free' };

const accountPath = (ref: RunningReference) => getDialect(ref.target.dialect).accountPath;

/** One check per MUST rule, by rule id; a test below proves none is missing. */
const checks: Record<string, RuleCheck> = {
  'C.create.ok-200': async (ref) => {
    const res = await mgmt(ref, '/v2/search', { body: { name: 'my index', region: 'us-central1', type: 'payg' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(asObject(res.json)).toMatchObject({ name: 'my index', region: 'us-central1', type: 'payg' });
  },
  'C.create.required-fields': async (ref) => {
    for (const field of ['name', 'region', 'type'] as const) {
      const { [field]: _left, ...body } = valid;
      const res = await mgmt(ref, '/v2/search', { body });
      expect(res.status, field).toBe(400);
      expect(asObject(res.json).error, field).toMatch(new RegExp(field));
    }
    // null and the empty name count as missing too; no body at all is refused.
    expect((await mgmt(ref, '/v2/search', { body: { ...valid, name: '' } })).status).toBe(400);
    expect((await mgmt(ref, '/v2/search', { body: { ...valid, type: null } })).status).toBe(400);
    expect((await mgmt(ref, '/v2/search', { method: 'POST' })).status).toBe(400);
  },
  'C.create.request-enums': async (ref) => {
    for (const body of [
      { ...valid, region: 'us-east-1' },
      { ...valid, region: 'EU-WEST-1' },
      { ...valid, type: 'gold' },
      { ...valid, type: 'Free' },
      { ...valid, type: 1 },
    ]) {
      const res = await mgmt(ref, '/v2/search', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  },
  'C.get.same-object': async (ref) => {
    const created = await createIndex(ref);
    const res = await mgmt(ref, `/v2/search/${String(created.id)}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(created);
  },
  'C.index.fields': async (ref) => {
    for (const type of types) {
      const index = await createIndex(ref, { ...valid, type });
      expect(fieldProblems(index, indexFieldKinds), type).toEqual([]);
      expect(index.throughput_vector).not.toEqual([]);
      expect(Object.keys(index).sort()).toEqual(Object.keys(indexFieldKinds).sort());
    }
  },
  'C.index.id-uuid': async (ref) => {
    const ids = [await createIndex(ref), await createIndex(ref)].map((index) => index.id);
    for (const id of ids) expect(id).toMatch(uuidPattern);
    expect(ids[0]).not.toBe(ids[1]);
  },
  'C.index.type-enum': async (ref) => {
    for (const type of types) expect((await createIndex(ref, { ...valid, type })).type).toBe(type);
  },
  'C.index.region-enum': async (ref) => {
    for (const region of regions) expect((await createIndex(ref, { ...valid, region })).region).toBe(region);
  },
  'C.index.unlimited-minus-one': async (ref) => {
    for (const type of types) {
      const index = await createIndex(ref, { ...valid, type });
      for (const field of unlimitedCapable) {
        const value = index[field];
        expect(value === -1 || (Number.isInteger(value) && (value as number) > 0), `${type} ${field}`).toBe(true);
      }
    }
    // The paid plans meter these four without a cap.
    const payg = await createIndex(ref, { ...valid, type: 'payg' });
    for (const field of unlimitedCapable) expect(payg[field], field).toBe(-1);
  },
  'C.index.partner-email-empty': async (ref) => {
    expect((await createIndex(ref)).partner_email).toBe('');
  },
  'C.account.ok-200': async (ref) => {
    const res = await getAccount(ref);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(asObject(res.json).customer_id).toBe(ref.target.management!.username);
  },
  'C.account.fields': async (ref) => {
    const account = asObject((await getAccount(ref)).json);
    expect(fieldProblems(account, accountFieldKinds)).toEqual([]);
    expect(account.id).toMatch(uuidPattern);
  },
  'C.account.state-enum': async (ref) => {
    expect(['active', 'passive']).toContain(asObject((await getAccount(ref)).json).state);
    await setAccount(ref, { state: 'passive', active: false });
    try {
      expect(asObject((await getAccount(ref)).json).state).toBe('passive');
    } finally {
      await setAccount(ref, { state: 'active', active: true });
    }
  },
  'C.account.type-enum': async (ref) => {
    expect(['free', 'paid']).toContain(asObject((await getAccount(ref)).json).type);
    await setAccount(ref, { type: 'free' });
    try {
      expect(asObject((await getAccount(ref)).json).type).toBe('free');
    } finally {
      await setAccount(ref, { type: 'paid' });
    }
  },
  'C.account.reserved-type': async (ref) => {
    const names = getDialect(ref.target.dialect).reservedTypes;
    expect(names).toContain(asObject((await getAccount(ref)).json).reserved_type);
    try {
      await setAccount(ref, { reserved_type: '' });
      expect(asObject((await getAccount(ref)).json).reserved_type).toBe('');
      // Stored in the other dialect's name, answered in this one's.
      await setAccount(ref, { reserved_type: otherDialect(ref).reservedTypes[1] });
      expect(asObject((await getAccount(ref)).json).reserved_type).toBe(names[1]);
    } finally {
      await setAccount(ref, { reserved_type: 'paid' });
    }
  },
  'C.auth.basic': async (ref) => {
    const { username, password } = ref.target.management!;
    const wrong = [
      null,
      basic(username, `${password}x`),
      basic(`x${username}`, password),
      basic(username, ''),
      `Bearer ${password}`,
      `Basic ${password}`,
      'Basic !!!',
    ];
    for (const path of ['/v2/search/none', accountPath(ref), '/v2/nothing-here']) {
      for (const authorization of wrong) {
        const res = await mgmt(ref, path, { authorization });
        expect(res.status, `${path} ${authorization}`).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Basic/);
      }
    }
    const refused = await mgmt(ref, '/v2/search', { body: valid, authorization: null });
    expect(refused.status).toBe(401);
    // The scheme name is case-insensitive.
    const lower = basic(username, password).replace('Basic', 'basic');
    expect((await mgmt(ref, accountPath(ref), { authorization: lower })).status).toBe(200);
  },
  'C.versioning.v2-prefix': async (ref) => {
    expect(accountPath(ref)).toMatch(/^\/v2\//);
    const index = await createIndex(ref);
    expect((await mgmt(ref, `/search/${String(index.id)}`)).status).toBe(404);
    expect((await mgmt(ref, '/search', { body: valid })).status).toBe(404);
    expect((await mgmt(ref, accountPath(ref).replace(/^\/v2/, ''))).status).toBe(404);
    expect((await mgmt(ref, accountPath(ref).replace(/^\/v2/, '/v1'))).status).toBe(404);
  },
};

function otherDialect(ref: RunningReference) {
  return getDialect(ref.target.dialect === 'svc' ? 'upstash' : 'svc');
}

async function setAccount(ref: RunningReference, patch: Record<string, unknown>): Promise<void> {
  const res = await admin(ref, 'PUT', '/account', patch);
  if (res.status !== 200) throw new Error(`admin PUT /account answered ${res.status}: ${res.body.toString()}`);
}

let redis: RedisBacking | undefined;
const refs = new Map<DialectName, RunningReference>();

beforeAll(async () => {
  redis = await startTestRedis();
  // Both dialects on one Redis: they share the account record, as two deployments of one account.
  for (const dialect of ['svc', 'upstash'] as const) {
    refs.set(dialect, await startTestReference(redis, { areas: ['management'], dialect }));
  }
});

afterAll(async () => {
  for (const ref of refs.values()) await ref.stop();
  await redis?.stop();
});

const mustRules = managementRuleCatalog.filter((rule) => rule.level === 'MUST').map((rule) => rule.id);

describe('area C rules', () => {
  it('has a check for every MUST rule, and for nothing else', () => {
    expect(Object.keys(checks).sort()).toEqual([...mustRules].sort());
  });

  describe.each(['svc', 'upstash'] as const)('dialect %s', (dialect) => {
    it.each(mustRules)('obeys %s', async (id) => {
      const check = checks[id];
      if (!check) throw new Error(`no check for ${id}`);
      await check(refs.get(dialect)!);
    });
  });
});

describe('area C errors (not shown by the spec: the real service does this)', () => {
  const ref = () => refs.get('svc')!;

  it('C.observe.invalid-request-status: 400 with an {error} body, also for a body that is not JSON', async () => {
    for (const body of [{ name: 'x' }, '{"name":', '[1,2]', 'plain words']) {
      const res = await mgmt(ref(), '/v2/search', { body });
      expect(res.status, String(body)).toBe(400);
      expect(Object.keys(asObject(res.json))).toEqual(['error']);
      expect(typeof asObject(res.json).error).toBe('string');
    }
  });

  it('reads the body as JSON whatever its content type', async () => {
    const res = await mgmt(ref(), '/v2/search', { body: valid, headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(200);
  });

  it('C.observe.unknown-id-status: 404 with an {error} body', async () => {
    const res = await mgmt(ref(), '/v2/search/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(Object.keys(asObject(res.json))).toEqual(['error']);
  });

  it('C.observe.unauthorized-status: 401 with an {error} body', async () => {
    const res = await mgmt(ref(), '/v2/search', { body: valid, authorization: null });
    expect(res.status).toBe(401);
    expect(Object.keys(asObject(res.json))).toEqual(['error']);
  });

  it('answers an unknown path or method 404 with an {error} body', async () => {
    for (const [method, path] of [
      ['GET', '/v2/nothing'],
      ['DELETE', '/v2/search/x'],
      ['GET', '/v2/search'],
    ] as const) {
      const res = await mgmt(ref(), path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(Object.keys(asObject(res.json))).toEqual(['error']);
    }
  });
});
