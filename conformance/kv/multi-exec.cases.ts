/**
 * Spec "Endpoints > Area B", POST /multi-exec: results in order, atomic under concurrent clients,
 * run-time errors in place, and the four cases that discard the whole transaction with one {error}.
 */

import { type CaseContext, CheckFailure, defineCases, type HttpResponse } from '../../src/suite-kit/suite-api.ts';
import { adminClient, withDailyLimit } from '../support/admin-client.ts';
import { mapLimit } from '../support/bounded.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkDiscarded, checkItems, checkResult, describe, itemsOf, resultOf } from '../support/kv-checks.ts';
import { createKvClient, type KvClient } from '../support/kv-client.ts';
import { transactionRuns } from '../support/kv-steps.ts';

/** Sends a transaction whose first command writes `key`; it must be discarded whole. */
async function expectDiscarded(
  ctx: CaseContext,
  kv: KvClient,
  rule: string,
  key: string,
  send: () => Promise<HttpResponse>,
  what: string,
): Promise<void> {
  await transactionRuns(kv, key);
  await kv.root(['DEL', key]);
  const res = await send();
  const text = checkDiscarded(rule, res, what, ctx.observe);
  ctx.observe(`${what}: discarded with status ${res.status}, ${JSON.stringify(text.slice(0, 80))}`);
  checkResult(rule, await kv.root(['EXISTS', key]), 0, `${what}: the first command must not have run`);
}

const requirements: Requirements = {
  'kv.multi-exec.results': ['root-form'],
  '*': ['root-form', 'multi-exec'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.multi-exec.results',
      rules: ['B.multi-exec.results'],
      title: 'A transaction answers one item per command, in request order',
      expect: 'SET, INCR, GET, RPUSH, LRANGE answer five items matching each command in order.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [n, list] = [keys.key('n'), keys.key('list')];
        const res = await kv.multiExec([
          ['SET', n, '1'],
          ['INCR', n],
          ['GET', n],
          ['RPUSH', list, 'x', 'y', 'z'],
          ['LRANGE', list, '0', '-1'],
        ]);
        checkItems('B.multi-exec.results', res, [
          { result: 'OK' },
          { result: 2 },
          { result: '2' },
          { result: 3 },
          { result: ['x', 'y', 'z'] },
        ]);
      },
    },
    {
      id: 'kv.multi-exec.atomic',
      rules: ['B.multi-exec.atomic'],
      title: 'No client observes a transaction half done',
      expect: 'While 4 clients run [INCR a, INCR b] transactions, every concurrent read of a and b sees them equal.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [a, b] = [keys.key('a'), keys.key('b')];
        await transactionRuns(kv, keys.key('positive'));
        const writers = 4;
        const perWriter = 15;
        const torn: string[] = [];
        let writing = true;
        const write = mapLimit(Array.from({ length: writers * perWriter }), writers, async () => {
          const items = itemsOf(
            'B.multi-exec.atomic',
            await kv.multiExec([
              ['INCR', a],
              ['INCR', b],
            ]),
            2,
          );
          if (!items.every((item) => 'result' in item && typeof item.result === 'number')) {
            throw new CheckFailure('B.multi-exec.atomic', JSON.stringify(items), 'two integer results');
          }
        });
        const read = async () => {
          // Reads alternate a transaction and a single MGET, both atomic on their own.
          for (let round = 0; writing && round < 200; round++) {
            const viaTx = round % 2 === 0;
            const res = viaTx
              ? await kv.multiExec([
                  ['GET', a],
                  ['GET', b],
                ])
              : await kv.root(['MGET', a, b]);
            const pair = viaTx
              ? itemsOf('B.multi-exec.atomic', res, 2).map((item) => ('result' in item ? item.result : undefined))
              : resultOf('B.multi-exec.atomic', res);
            if (!Array.isArray(pair) || pair[0] !== pair[1]) torn.push(JSON.stringify(pair));
          }
        };
        // Every promise settles before any failure is thrown: a reader left running would reject unheard.
        const settled = await Promise.allSettled([
          write.finally(() => {
            writing = false;
          }),
          read(),
          read(),
        ]);
        const failed = settled.find((outcome) => outcome.status === 'rejected');
        if (failed) throw failed.reason;
        if (torn.length > 0) {
          throw new CheckFailure(
            'B.multi-exec.atomic',
            `${torn.length} reads saw a ≠ b, e.g. ${torn[0]}`,
            'a = b in every read',
          );
        }
        const total = writers * perWriter;
        checkResult(
          'B.multi-exec.atomic',
          await kv.root(['MGET', a, b]),
          [String(total), String(total)],
          'final counts',
        );
      },
    },
    {
      id: 'kv.multi-exec.runtime-error-in-place',
      rules: ['B.multi-exec.runtime-error-in-place'],
      title: 'A command failing at run time does not discard the transaction',
      expect: 'All commands run; INCR of a string answers {error} at its position; the commands after it take effect.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [text, after] = [keys.key('text'), keys.key('after')];
        await transactionRuns(kv, keys.key('positive'));
        const res = await kv.multiExec([
          ['SET', text, 'abc'],
          ['INCR', text],
          ['SET', after, 'ran'],
          ['GET', after],
        ]);
        checkItems('B.multi-exec.runtime-error-in-place', res, [
          { result: 'OK' },
          { error: true },
          { result: 'OK' },
          { result: 'ran' },
        ]);
        checkResult(
          'B.multi-exec.runtime-error-in-place',
          await kv.root(['GET', after]),
          'ran',
          'after the transaction',
        );
      },
    },
    {
      id: 'kv.multi-exec.discard.syntax-error',
      rules: ['B.multi-exec.discard.syntax-error'],
      title: 'A syntax error in the request discards the whole transaction',
      expect: 'A wrong argument count, a bare string item or cut JSON answers one {error} object and runs nothing.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('first');
        const rule = 'B.multi-exec.discard.syntax-error';
        const first = JSON.stringify(['SET', key, 'v']);
        await expectDiscarded(
          ctx,
          kv,
          rule,
          key,
          () =>
            kv.multiExec([
              ['SET', key, 'v'],
              ['SET', key],
            ]),
          'wrong argument count',
        );
        const raw = (body: string) => () =>
          kv.raw({ method: 'POST', path: '/multi-exec', body, contentType: 'application/json' });
        await expectDiscarded(ctx, kv, rule, key, raw(`[${first}, "GET"]`), 'a bare string item');
        await expectDiscarded(ctx, kv, rule, key, raw(`[${first}, ["GET"`), 'cut JSON');
      },
    },
    {
      id: 'kv.multi-exec.discard.unsupported-command',
      rules: ['B.multi-exec.discard.unsupported-command'],
      title: 'An unsupported command discards the whole transaction',
      expect: 'A transaction holding BLPOP, or an unknown command, answers one {error} object and runs nothing.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const key = keys.key('first');
        const rule = 'B.multi-exec.discard.unsupported-command';
        const blpop = ['BLPOP', keys.key('list'), '0.1'];
        await expectDiscarded(ctx, kv, rule, key, () => kv.multiExec([['SET', key, 'v'], blpop]), 'BLPOP');
        const unknown = ['NOSUCHCOMMAND', key];
        await expectDiscarded(
          ctx,
          kv,
          rule,
          key,
          () => kv.multiExec([['SET', key, 'v'], unknown]),
          'an unknown command',
        );
      },
    },
    {
      id: 'kv.multi-exec.discard.max-request-size',
      rules: ['B.multi-exec.discard.max-request-size'],
      needs: ['admin'],
      title: 'A command over the maximum request size discards the whole transaction',
      expect: 'A transaction whose second command is larger than the maximum request size answers one {error}.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [key, big] = [keys.key('first'), keys.key('big')];
        const { maxRequestBytes } = await adminClient(ctx).limits();
        const value = 'x'.repeat(maxRequestBytes + 1);
        const send = () =>
          kv.multiExec(
            [
              ['SET', key, 'v'],
              ['SET', big, value],
            ],
            { timeoutMs: 30_000 },
          );
        await expectDiscarded(
          ctx,
          kv,
          'B.multi-exec.discard.max-request-size',
          key,
          send,
          `a ${maxRequestBytes + 1}-byte value`,
        );
      },
    },
    {
      id: 'kv.multi-exec.discard.daily-limit',
      rules: ['B.multi-exec.discard.daily-limit'],
      needs: ['admin'],
      title: 'A command over the daily request limit discards the whole transaction',
      expect: 'With one command left today, a two-command transaction answers one {error} and runs nothing.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [key, second] = [keys.key('first'), keys.key('second')];
        const admin = adminClient(ctx);
        const res = await withDailyLimit(
          ctx,
          admin,
          (used) => used + 1,
          () =>
            kv.multiExec([
              ['SET', key, 'v'],
              ['SET', second, 'v'],
            ]),
        );
        const text = checkDiscarded('B.multi-exec.discard.daily-limit', res, undefined, ctx.observe);
        ctx.observe(`over the daily limit: discarded with status ${res.status}, ${JSON.stringify(text.slice(0, 80))}`);
        checkResult(
          'B.multi-exec.discard.daily-limit',
          await kv.root(['EXISTS', key]),
          0,
          'the first command must not have run',
        );
      },
    },
    {
      id: 'kv.multi-exec.discard-status',
      rules: ['B.observe.discard-status'],
      title: 'The status of a discarded transaction (not shown)',
      expect: 'Recorded only: the status and body of a transaction discarded for an unknown command.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('never');
        await transactionRuns(kv, key);
        const res = await kv.multiExec([['SET', key, 'v'], ['NOSUCHCOMMAND']]);
        ctx.observe(`discarded transaction: ${describe(res)}`);
      },
    },
  ]),
);
