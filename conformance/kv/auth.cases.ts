/**
 * Spec "Authentication", area B: the Standard token by header and by `_token`, 401 without a valid
 * token, the Read Only token (reads run; KEYS, SCAN and every write the target's COMMAND reports are
 * refused), ACL RESTTOKEN, and revocation by a password reset (through the admin hook).
 */

import { type CaseContext, defineCases, excerpt, jsonBody, means } from '../../src/suite-kit/suite-api.ts';
import { mapLimit } from '../support/bounded.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, requireCapabilities, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkItems,
  checkNotSuccess,
  checkResult,
  checkStatus,
  checkThat,
  checkUnauthorized,
  describe,
  isRecord,
  isSuccess,
  resultOf,
} from '../support/kv-checks.ts';
import { createKvClient, type KvCallOptions, type KvClient } from '../support/kv-client.ts';
import { availableForms, pathFormAvailable, steps } from '../support/kv-steps.ts';
import { openKvStream } from '../support/kv-streams.ts';
import { fallbackWrites, writeCatalog } from '../support/write-commands.ts';

const readOnly = { credentials: { kind: 'read-only' } } as const satisfies KvCallOptions;

/**
 * The positive a read-only refusal is compared with: the same token reads (a GET of a key the
 * Standard token wrote). A token refused everything (401 for all) proves nothing, so the case is
 * blocked by B.auth.read-only.reads instead of passing.
 */
async function readOnlyTokenReads(ctx: CaseContext, kv: KvClient): Promise<void> {
  const key = keySpace(ctx, kv).key('positive');
  await steps(kv, [['SET', key, 'readable']]);
  await means(async () =>
    checkResult(
      'B.auth.read-only.reads',
      await kv.root(['GET', key], readOnly),
      'readable',
      'GET with the Read Only token first',
    ),
  );
}

const requirements: Requirements = {
  // The auth cases write by every form the target has, with keys holding `:` (%3A in a path). The
  // Bearer case checks its token first, then the same capabilities (every probe sends that token).
  'kv.auth.bearer': [],
  '*': ['root-form', 'percent-decoding'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.auth.bearer',
      rules: ['B.auth.bearer'],
      title: 'Authorization: Bearer <REST_TOKEN> authenticates',
      expect: 'With the Standard token in the Authorization header, SET and GET run on every request form.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('k');
        const bearer = { credentials: { kind: 'bearer' } } as const;
        const set = await kv.root(['SET', key, 'v'], bearer);
        // The token's own check first: refused (401) is this rule's; any other trouble is a capability's.
        checkThat('B.auth.bearer', set.status !== 401, `POST /: status ${set.status}`, 'the token accepted');
        await requireCapabilities(ctx, kv, ['root-form', 'percent-decoding']);
        checkResult('B.auth.bearer', set, 'OK', 'POST /');
        checkResult('B.auth.bearer', await kv.root(['GET', key], bearer), 'v', 'POST /');
        // The other forms only where the target has them (their absence is their own cases' failure).
        if (await pathFormAvailable(kv)) {
          checkResult('B.auth.bearer', await kv.path('GET', ['get', key], bearer), 'v', 'path form');
        }
        const scheme = await kv.root(['GET', key], {
          credentials: { kind: 'none' },
          headers: { authorization: `bearer ${ctx.target.kv?.token}` },
        });
        ctx.observe(`lower-case "bearer" scheme: status ${scheme.status}`);
      },
    },
    {
      id: 'kv.auth.query-token',
      rules: ['B.auth.query-token'],
      title: 'The query parameter _token=<REST_TOKEN> authenticates',
      expect:
        'With _token in the query and no header, POST /, the path form, /pipeline and /multi-exec run; _token is not an argument.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('k');
        const query = { credentials: { kind: 'query' } } as const;
        checkResult('B.auth.query-token', await kv.root(['SET', key, 'v'], query), 'OK', 'POST /');
        // The other forms only where the target has them (their absence is their own cases' failure).
        const forms = await availableForms(kv);
        if (forms.path) checkResult('B.auth.query-token', await kv.path('GET', ['get', key], query), 'v', 'path form');
        if (forms.pipeline) {
          checkItems('B.auth.query-token', await kv.pipeline([['GET', key]], query), [{ result: 'v' }], '/pipeline');
        }
        if (forms.multiExec) {
          checkItems('B.auth.query-token', await kv.multiExec([['GET', key]], query), [{ result: 'v' }], '/multi-exec');
        }
      },
    },
    {
      id: 'kv.auth.missing-401',
      rules: ['B.auth.missing-401', 'B.response.error-shape', 'B.observe.unauthorized-text'],
      title: 'A request without a token answers 401 and runs nothing',
      expect:
        'Without a token POST /, the path form, /pipeline, /multi-exec and /monitor answer 401 with {"error"}; nothing is written.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('never');
        const none = { credentials: { kind: 'none' } } as const;
        // Each form the target has (a form it lacks is its own case's failure, not this rule's).
        const forms = await availableForms(kv);
        const attempts = [
          ['POST /', true, () => kv.root(['SET', key, 'v'], none)],
          ['path form', forms.path, () => kv.path('POST', ['set', key, 'v'], none)],
          ['/pipeline', forms.pipeline, () => kv.pipeline([['SET', key, 'v']], none)],
          ['/multi-exec', forms.multiExec, () => kv.multiExec([['SET', key, 'v']], none)],
        ] as const;
        for (const [what, available, send] of attempts) {
          if (!available) continue;
          const res = await send();
          // The status is the auth rule's; the body is an Error object like every failure's (spec
          // "Errors"), so a 401 answered text/plain "Unauthorized" fails B.response.error-shape; its text
          // is recorded (B.observe.unauthorized-text: {"error":"Unauthorized"} is an answer of real deployments).
          checkUnauthorized('B.auth.missing-401', res, what, ctx.observe);
        }
        const monitor = await openKvStream(ctx, kv, '/monitor', { kind: 'none' });
        if (monitor.status !== 404) {
          checkThat('B.auth.missing-401', monitor.status === 401, `/monitor status ${monitor.status}`, 'status 401');
        }
        checkResult('B.auth.missing-401', await kv.root(['EXISTS', key]), 0, 'nothing was written');
      },
    },
    {
      id: 'kv.auth.invalid-401',
      rules: ['B.auth.invalid-401', 'B.response.error-shape', 'B.observe.unauthorized-text'],
      title: 'A request with an invalid token answers 401 and runs nothing',
      expect: 'A wrong token by header or by _token answers 401 with {"error"}; nothing is written.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('never');
        const wrong = { credentials: { kind: 'wrong' } } as const;
        const byQuery = {
          credentials: { kind: 'token', token: 'svch-wrong-query-token-000000000000', via: 'query' },
        } as const;
        const forms = await availableForms(kv);
        for (const [what, res] of [
          ['header', await kv.root(['SET', key, 'v'], wrong)],
          [
            '_token',
            await (forms.path ? kv.path('POST', ['set', key, 'v'], byQuery) : kv.root(['SET', key, 'v'], byQuery)),
          ],
          ...(forms.pipeline ? [['/pipeline', await kv.pipeline([['SET', key, 'v']], wrong)] as const] : []),
        ] as const) {
          checkUnauthorized('B.auth.invalid-401', res, what, ctx.observe);
        }
        const basic = await kv.root(['SET', key, 'v'], {
          credentials: { kind: 'none' },
          headers: { authorization: 'Basic dXNlcjpwYXNz' },
        });
        checkStatus('B.auth.invalid-401', basic, 401, 'a Basic authorization');
        checkResult('B.auth.invalid-401', await kv.root(['EXISTS', key]), 0, 'nothing was written');
      },
    },
    {
      id: 'kv.auth.read-only.reads',
      rules: ['B.auth.read-only.reads'],
      needs: ['kv.readOnlyToken'],
      title: 'The Read Only token runs read commands',
      expect: 'Ten reads over each data type answer with the Read Only token exactly as with the Standard token.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [s, l, h, z, set] = ['s', 'l', 'h', 'z', 'set'].map((name) => keys.key(name)) as [
          string,
          string,
          string,
          string,
          string,
        ];
        await steps(kv, [
          ['SET', s, 'text', 'EX', '1000'],
          ['RPUSH', l, 'a', 'b'],
          ['HSET', h, 'f', 'v'],
          ['ZADD', z, '1', 'one'],
          ['SADD', set, 'm'],
        ]);
        const reads = [
          ['GET', s],
          ['MGET', s, l],
          ['EXISTS', s, h],
          ['STRLEN', s],
          ['GETRANGE', s, '0', '1'],
          ['LRANGE', l, '0', '-1'],
          ['HGETALL', h],
          ['ZRANGE', z, '0', '-1'],
          ['SMEMBERS', set],
          ['TYPE', l],
        ];
        for (const read of reads) {
          const expected = resultOf('B.root.json-array', await kv.root(read), `${read[0]} with the Standard token`);
          checkResult(
            'B.auth.read-only.reads',
            await kv.root(read, readOnly),
            expected,
            `${read[0]} with the Read Only token`,
          );
        }
        checkResult('B.auth.read-only.reads', await kv.path('GET', ['get', s], readOnly), 'text', 'GET by path');
        // PING and ECHO are connection commands, not reads: whether the Read Only token may run them is not shown.
        for (const command of [['PING'], ['ECHO', 'x']]) {
          ctx.observe(`${command[0]} with the Read Only token: ${describe(await kv.root(command, readOnly))}`);
        }
      },
    },
    {
      id: 'kv.auth.read-only.keys-scan-refused',
      rules: ['B.auth.read-only.keys-scan-refused', 'B.observe.read-only-refusal'],
      needs: ['kv.readOnlyToken'],
      title: 'The Read Only token is refused KEYS and SCAN',
      expect:
        'KEYS, SCAN and a read-only script calling KEYS (EVAL_RO) with the Read Only token do not succeed (recorded).',
      async run(ctx) {
        const kv = createKvClient(ctx);
        await readOnlyTokenReads(ctx, kv);
        const pattern = `${keySpace(ctx, kv).key('x').slice(0, -1)}*`;
        for (const command of [
          ['KEYS', pattern],
          ['SCAN', '0', 'MATCH', pattern],
          // A read-only script reaches KEYS all the same: refused as the command itself is.
          ['EVAL_RO', "return redis.call('KEYS', ARGV[1])", '0', pattern],
        ]) {
          const res = await kv.root(command, readOnly);
          checkNotSuccess('B.auth.read-only.keys-scan-refused', res, command[0]);
          ctx.observe(`${command[0]} refused: ${describe(res)}`);
        }
      },
    },
    {
      id: 'kv.auth.read-only.batch-writes-refused',
      rules: ['B.auth.read-only.writes-refused'],
      needs: ['kv.readOnlyToken'],
      title: 'The Read Only token is refused writes inside /pipeline and /multi-exec too',
      expect:
        'A SET sent with the Read Only token in a /pipeline item or a /multi-exec is not run (an item error or a discard); the key stays absent.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        await readOnlyTokenReads(ctx, kv);
        const forms = await availableForms(kv);
        const rule = 'B.auth.read-only.writes-refused';
        const sends = [
          ['/pipeline', forms.pipeline, (key: string) => kv.pipeline([['SET', key, 'v']], readOnly)],
          ['/multi-exec', forms.multiExec, (key: string) => kv.multiExec([['SET', key, 'v']], readOnly)],
        ] as const;
        for (const [what, available, send] of sends) {
          if (!available) {
            ctx.observe(`${what} is not available: not checked there`);
            continue;
          }
          const key = keys.key(what.slice(1));
          const res = await send(key);
          const body = jsonBody(res);
          const ran = Array.isArray(body) && body.some((item) => isRecord(item) && 'result' in item);
          checkThat(rule, !ran, `${what}: ${describe(res)}`, 'the write refused (an item error or a discard)');
          checkResult(rule, await kv.root(['EXISTS', key]), 0, `${what}: the key must not exist`);
        }
      },
    },
    {
      id: 'kv.auth.read-only.writes-refused',
      rules: ['B.auth.read-only.writes-refused', 'B.observe.read-only-refusal'],
      needs: ['kv.readOnlyToken'],
      title: 'The Read Only token is refused every write command the target’s COMMAND reports',
      expect:
        'Each write command with a key answers no success with the Read Only token, including those that run with the Standard token.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        keys.sweepAfter();
        await readOnlyTokenReads(ctx, kv);
        const reply = await kv.root(['COMMAND']);
        const catalog = isSuccess(reply) ? writeCatalog((jsonBody(reply) as { result: unknown }).result) : undefined;
        if (!catalog || catalog.invocations.length === 0)
          ctx.observe(`COMMAND is not usable (${describe(reply)}): a fixed list of writes is checked`);
        const invocations =
          catalog && catalog.invocations.length > 0
            ? catalog.invocations
            : fallbackWrites.map((command) => ({
                name: command[0] as string,
                blocking: false,
                build: (key: (index: number) => string) => command.map((arg) => (arg === '{k}' ? key(0) : arg)),
              }));
        let verified = 0;
        const refusals = new Map<string, number>();
        const outcomes = await mapLimit(invocations, 8, async (write) => {
          const slug = write.name.toLowerCase().replace(/\W+/g, '-');
          // Runnable with the Standard token on fresh keys? Then the Read Only refusal is the token's doing.
          const runnable =
            !write.blocking && isSuccess(await kv.root(write.build((i) => keys.key(`std:${slug}:${i}`))));
          const res = await kv.root(
            write.build((i) => keys.key(`ro:${slug}:${i}`)),
            readOnly,
          );
          // Judged here and reduced to its shape: hundreds of answers are not kept (a target may send megabytes).
          try {
            checkNotSuccess('B.auth.read-only.writes-refused', res, `${write.name} with the Read Only token`);
          } catch (failure) {
            return { runnable, failure };
          }
          const body = jsonBody(res) as { error?: unknown } | undefined;
          const text =
            typeof body?.error === 'string'
              ? excerpt(body.error.replace(/'[^']*'/g, "'…'"), 200)
              : describe(res).slice(0, 60);
          return { runnable, shape: `status ${res.status} ${text}` };
        });
        for (const { runnable, failure, shape } of outcomes) {
          // The first failure in the order of the commands, as when they were judged one by one.
          if (failure !== undefined) throw failure;
          if (runnable) verified++;
          if (shape !== undefined) refusals.set(shape, (refusals.get(shape) ?? 0) + 1);
        }
        checkThat(
          'B.auth.read-only.writes-refused',
          verified > 0,
          'no write command ran with the Standard token',
          'some writes to verify',
        );
        const skipped = catalog?.skipped.length ?? 0;
        ctx.observe(
          `${invocations.length} writes refused (${verified} shown runnable with the Standard token); ${skipped} keyless or external writes not sent`,
        );
        const [common] = [...refusals.entries()].sort((a, b) => b[1] - a[1]);
        if (common) ctx.observe(`most common refusal (${common[1]}×): ${common[0]}`);
      },
    },
  ]),
);
