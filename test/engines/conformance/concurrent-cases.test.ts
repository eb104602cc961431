/**
 * Cases marked `concurrent` overlap their waits with each other (register-cases.ts). A case that changes
 * what the account shares must never be one of them: the admin hook (plan limits, armed failures),
 * signing keys, a burst at the rate limit. This guards the marks against the cases' own code.
 */
import { describe, expect, test } from 'vitest';
import { loadCaseFiles } from '../../../src/engines/conformance/case-registry.ts';

/** What in a case's code reaches beyond what the case creates. */
const accountWide =
  /withAccountLimits|adminClient|setAccountLimits|keys\/rotate|rotateWithToken|failNextNotify|burst\(/;

describe('concurrent cases', () => {
  test('none needs the admin hook or calls what changes the account', async () => {
    const files = await loadCaseFiles();
    const concurrent = files.flatMap((file) => file.cases).filter((item) => item.concurrent === true);
    expect(concurrent.length).toBeGreaterThan(20);
    const offending = concurrent
      .filter((item) => item.needs?.includes('admin') === true || accountWide.test(item.run.toString()))
      .map((item) => item.id);
    expect(offending).toEqual([]);
  });

  test('the cases that change the account are in the suites, and run alone', async () => {
    const cases = (await loadCaseFiles()).flatMap((file) => file.cases);
    const byId = new Map(cases.map((item) => [item.id, item]));
    for (const id of [
      'messaging.keys.rotate',
      'messaging.auth.refused.rotate',
      'messaging.notify.rate-limit-429',
      'messaging.limits.queues',
      'messaging.callback.truncated',
    ]) {
      expect(byId.has(id), id).toBe(true);
      expect(byId.get(id)?.concurrent, id).not.toBe(true);
    }
  });
});
