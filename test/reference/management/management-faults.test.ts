/**
 * Every area C fault switch visibly changes behaviour: the same probe, run against a reference with
 * the switch on and one without, gives different observations. Every switch names a real rule.
 * The references share one Redis and start one after another (area C alone starts in milliseconds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kvRuleCatalog } from '../../../conformance/rules/kv-rules.ts';
import { managementRuleCatalog } from '../../../conformance/rules/management-rules.ts';
import { kvFaults } from '../../../src/reference/kv/kv-faults.ts';
import { type ManagementFaultName, managementFaults } from '../../../src/reference/management/management-faults.ts';
import type { RedisBacking } from '../../../src/reference/redis/redis-backing.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import { admin, startTestRedis, startTestReference } from '../../support/reference-fixture.ts';
import { asObject, createIndex, getAccount, mgmt, uuidPattern } from './management-client.ts';

type Probe = (ref: RunningReference) => Promise<unknown>;

const valid = { name: 'docs', region: 'us-central1', type: 'payg' };
const account = async (ref: RunningReference) => asObject((await getAccount(ref)).json);

const probes: Record<ManagementFaultName, Probe> = {
  'create-status-201': async (ref) => (await mgmt(ref, '/v2/search', { body: valid })).status,
  'index-missing-field-accepted': async (ref) =>
    (await mgmt(ref, '/v2/search', { body: { name: 'docs', type: 'free' } })).status,
  'index-type-any-value': async (ref) => (await mgmt(ref, '/v2/search', { body: { ...valid, type: 'gold' } })).json,
  'index-region-any-value': async (ref) =>
    (await mgmt(ref, '/v2/search', { body: { ...valid, region: 'mars-1' } })).json,
  'get-index-differs': async (ref) => {
    const created = await createIndex(ref);
    const got = (await mgmt(ref, `/v2/search/${String(created.id)}`)).json;
    return JSON.stringify(got) === JSON.stringify(created);
  },
  'unknown-id-other-index': async (ref) => {
    await createIndex(ref);
    return (await mgmt(ref, '/v2/search/00000000-0000-4000-8000-000000000000')).status;
  },
  'unknown-index-200': async (ref) => (await mgmt(ref, '/v2/search/00000000-0000-4000-8000-000000000000')).status,
  // The parsed numbers are the same: only the text shows the doubles.
  'index-integers-as-doubles': async (ref) =>
    /"max_vector_count":\d+\.0/.test((await mgmt(ref, '/v2/search', { body: valid })).text),
  'account-integers-as-doubles': async (ref) => /"max_queues":\d+\.0/.test((await getAccount(ref)).text),
  'index-omits-field': async (ref) => 'creation_time' in (await createIndex(ref)),
  'index-field-wrong-type': async (ref) => typeof (await createIndex(ref)).max_vector_count,
  'index-id-not-uuid': async (ref) => uuidPattern.test(String((await createIndex(ref)).id)),
  'index-type-capitalized': async (ref) => (await createIndex(ref)).type,
  'index-region-respelled': async (ref) => (await createIndex(ref)).region,
  'index-unlimited-as-minus-two': async (ref) => (await createIndex(ref)).max_daily_queries,
  'partner-email-null': async (ref) => (await createIndex(ref)).partner_email,
  'account-status-201': async (ref) => (await getAccount(ref)).status,
  'account-lacks-limit': async (ref) => 'max_queues' in (await account(ref)),
  'account-field-wrong-type': async (ref) => typeof (await account(ref)).max_message_size,
  'account-state-unknown': async (ref) => (await account(ref)).state,
  'account-type-unknown': async (ref) => (await account(ref)).type,
  'reserved-type-null': async (ref) => {
    await admin(ref, 'PUT', '/account', { reserved_type: '' });
    try {
      return (await account(ref)).reserved_type;
    } finally {
      await admin(ref, 'PUT', '/account', { reserved_type: 'paid' });
    }
  },
  'management-no-auth': async (ref) => (await mgmt(ref, '/v2/svc/user', { authorization: null })).status,
  'management-unversioned-paths': async (ref) => (await getAccount(ref)).status,
};

let redis: RedisBacking | undefined;
let baseline: RunningReference | undefined;

beforeAll(async () => {
  redis = await startTestRedis();
  baseline = await startTestReference(redis, { areas: ['management'] });
});

afterAll(async () => {
  await baseline?.stop();
  await redis?.stop();
});

describe('management fault switches', () => {
  it('have unique names, none shared with area B, each naming a rule of the area C catalog', () => {
    const names = managementFaults.map((fault) => fault.name);
    expect(new Set(names).size).toBe(names.length);
    for (const fault of kvFaults) expect(names).not.toContain(fault.name);
    const ruleIds = new Set<string>(managementRuleCatalog.map((rule) => rule.id));
    for (const fault of managementFaults) {
      expect(fault.area).toBe('management');
      expect(ruleIds.has(fault.rule), fault.name).toBe(true);
    }
    // Area C's rule ids do not collide with area B's.
    for (const rule of kvRuleCatalog) expect(ruleIds.has(rule.id)).toBe(false);
  });

  it('break every MUST rule of the catalog, each at least once', () => {
    const broken = new Set<string>(managementFaults.map((fault) => fault.rule));
    const unbroken = managementRuleCatalog.filter((rule) => rule.level === 'MUST' && !broken.has(rule.id));
    expect(unbroken.map((rule) => rule.id)).toEqual([]);
  });

  it.each(managementFaults.map((fault) => fault.name))('%s changes what the service does', async (name) => {
    const faulty = await startTestReference(redis!, { areas: ['management'], faults: [name] });
    try {
      const correct = await probes[name](baseline!);
      const broken = await probes[name](faulty);
      expect(broken).not.toEqual(correct);
    } finally {
      await faulty.stop();
    }
  });
});
