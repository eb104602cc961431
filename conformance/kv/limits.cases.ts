/**
 * Spec "Limits", area B: a maximum request size and a daily request limit apply per command. Their
 * values are not shown, so the cases read them from the admin hook (and set the daily limit there,
 * restoring it afterwards); without a hook they are skipped with a reason.
 */
import { defineCases } from '../../src/suite-kit/suite-api.ts';
import { adminClient, withDailyLimit } from '../support/admin-client.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkClassToken,
  checkErrorBody,
  checkNotSuccess,
  checkResult,
  checkThat,
  describe,
  isSuccess,
} from '../support/kv-checks.ts';
import { createKvClient } from '../support/kv-client.ts';

/** Comfortably under the limit in any accounting (the command's bytes or the whole HTTP body). */
const headroom = 4096;

const requirements: Requirements = { '*': ['root-form', 'percent-decoding'] };

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.limits.max-request-size',
      rules: ['B.limits.max-request-size'],
      needs: ['admin'],
      title: 'A command over the maximum request size is refused with an error',
      expect:
        'A value one byte over the maximum is refused with {"error"} and not written; one just under it is written.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [over, under] = [keys.key('over'), keys.key('under')];
        const { maxRequestBytes } = await adminClient(ctx).limits();
        const rule = 'B.limits.max-request-size';
        const res = await kv.postBody(['set', over], 'o'.repeat(maxRequestBytes + 1), [], { timeoutMs: 30_000 });
        checkNotSuccess(rule, res, `a ${maxRequestBytes + 1}-byte value`);
        // The spec shows no status for this refusal (400 and 413 are both natural): any error status.
        checkThat(rule, res.status >= 400, `status ${res.status}`, 'an error status (400 or above)');
        checkClassToken(rule, checkErrorBody(rule, res), undefined, 'the refusal', ctx.observe);
        ctx.observe(`over the maximum request size: ${describe(res)}`);
        checkResult(rule, await kv.root(['EXISTS', over]), 0, 'the oversize value was not written');
        const size = Math.max(1, maxRequestBytes - headroom);
        const fits = await kv.postBody(['set', under], 'u'.repeat(size), [], { timeoutMs: 30_000 });
        checkResult(rule, fits, 'OK', `a ${size}-byte value, under the maximum`);
        checkResult(rule, await kv.root(['STRLEN', under]), size, 'its length');
      },
    },
    {
      id: 'kv.limits.daily-limit',
      rules: ['B.limits.daily-limit'],
      needs: ['admin'],
      title: 'A command over the daily request limit is refused with an error',
      expect:
        'With one command left today, the first SET runs and the second is refused with {"error"}; the limit is restored.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [first, second] = [keys.key('first'), keys.key('second')];
        const rule = 'B.limits.daily-limit';
        const [allowed, refused] = await withDailyLimit(
          ctx,
          adminClient(ctx),
          (used) => used + 1,
          async () => [await kv.root(['SET', first, 'v']), await kv.root(['SET', second, 'v'])],
        );
        if (!isSuccess(allowed))
          ctx.observe(`the last command allowed today was refused too (another client?): ${describe(allowed)}`);
        checkNotSuccess(rule, refused, 'the command over the limit');
        checkClassToken(rule, checkErrorBody(rule, refused), undefined, 'the refusal', ctx.observe);
        ctx.observe(`over the daily limit: ${describe(refused)}`);
        checkResult(rule, await kv.root(['EXISTS', second]), 0, 'the refused SET did not run');
      },
    },
    {
      id: 'kv.limits.values',
      rules: ['B.observe.limit-values'],
      title: 'The maximum request size and daily request limit (not shown)',
      expect: 'Recorded only: the values the admin hook reports.',
      async run(ctx) {
        if (!ctx.target.admin) {
          ctx.observe('no admin hook: the limit values are unknown');
          return;
        }
        const limits = await adminClient(ctx).limits();
        ctx.observe(
          `maximum request size ${limits.maxRequestBytes} bytes; daily request limit ${limits.dailyRequestLimit ?? 'off'}`,
        );
      },
    },
  ]),
);
