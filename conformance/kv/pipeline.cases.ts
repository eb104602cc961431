/**
 * Spec "Endpoints > Area B", POST /pipeline: one result-or-error object per command in request order,
 * a failing command does not stop the rest, and the pipeline is not atomic (permitted, recorded).
 */
import { defineCases } from '../../src/suite-kit/suite-api.ts';
import { mapLimit } from '../support/bounded.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkError, checkItems, checkResult, describe, resultOf } from '../support/kv-checks.ts';
import { createKvClient } from '../support/kv-client.ts';

const requirements: Requirements = {
  'kv.pipeline.order': ['root-form'],
  // A refusal is only a pass after the positive: a valid pipeline runs on the same route.
  '*': ['root-form', 'pipeline'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.pipeline.order',
      rules: ['B.pipeline.order'],
      title: 'A pipeline answers one item per command, in request order',
      expect: 'Seven different commands answer seven items whose results match each command in order.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [n, list, missing] = [keys.key('n'), keys.key('list'), keys.key('missing')];
        const res = await kv.pipeline([
          ['SET', n, '10'],
          ['INCR', n],
          ['GET', n],
          ['RPUSH', list, 'a', 'b'],
          ['LRANGE', list, '0', '-1'],
          ['ECHO', 'seventh?'],
          ['EXISTS', missing],
        ]);
        checkItems('B.pipeline.order', res, [
          { result: 'OK' },
          { result: 11 },
          { result: '11' },
          { result: 2 },
          { result: ['a', 'b'] },
          { result: 'seventh?' },
          { result: 0 },
        ]);
      },
    },
    {
      id: 'kv.pipeline.error-continues',
      rules: ['B.pipeline.error-continues'],
      title: 'A failing command in a pipeline does not stop the rest',
      expect: 'Status 200; the failing commands answer {error} in place and the commands after them run.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [text, after] = [keys.key('text'), keys.key('after')];
        const res = await kv.pipeline([
          ['SET', text, 'not a number'],
          ['INCR', text],
          ['LPUSH', text, 'x'],
          ['SET', after, 'ran'],
          ['GET', after],
        ]);
        checkItems('B.pipeline.error-continues', res, [
          { result: 'OK' },
          { error: true, token: 'ERR' },
          { error: true },
          { result: 'OK' },
          { result: 'ran' },
        ]);
        checkResult(
          'B.pipeline.error-continues',
          await kv.root(['GET', after]),
          'ran',
          'the command after the errors ran',
        );
        // Whether an unsupported command is an item's error (200) or the request's (400) is not shown.
        const unsupported = await kv.pipeline([['PING'], ['BLPOP', keys.key('list'), '0.1'], ['ECHO', 'after']]);
        ctx.observe(`a pipeline holding BLPOP: ${describe(unsupported)}`);
      },
    },
    {
      id: 'kv.pipeline.non-atomic',
      rules: ['B.pipeline.non-atomic'],
      title: 'Whether other clients interleave with a pipeline (permitted, not required)',
      expect: 'Recorded only: whether reads during a long pipeline of INCRs saw a partial count.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const counter = keySpace(ctx, kv).key('counter');
        const total = 500;
        // Its outcome is held (an error as a value) so that reads that fail first leave no rejection unheard.
        const pipeline = kv.pipeline(Array.from({ length: total }, () => ['INCR', counter])).then(
          () => undefined,
          (error: unknown) => error,
        );
        // Each read is kept as the count it says, not as what the target sent (which may be megabytes).
        const reads = await mapLimit(Array.from({ length: 30 }), 4, async () => {
          const value = resultOf('B.pipeline.non-atomic', await kv.root(['GET', counter]));
          return value === null ? null : Number(value);
        });
        const failed = await pipeline;
        if (failed !== undefined) throw failed;
        const partial = reads.filter((value) => value !== null && Number(value) > 0 && Number(value) < total);
        ctx.observe(
          partial.length > 0
            ? `interleaving observed: ${partial.length} of ${reads.length} concurrent reads saw a partial count`
            : `no interleaving observed in ${reads.length} concurrent reads`,
        );
      },
    },
    {
      id: 'kv.pipeline.malformed-400',
      rules: ['B.status.syntax-400'],
      title: 'A pipeline body that is not an array of arrays answers 400',
      expect:
        'A JSON object answers 400 with {"error"}; a bare string item answers 400 or an error item in place; an empty pipeline is recorded.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = JSON.stringify(keySpace(ctx, kv).key('never'));
        const send = (body: string) =>
          kv.raw({ method: 'POST', path: '/pipeline', body, contentType: 'application/json' });
        checkError('B.status.syntax-400', await send(`{"commands": [["SET", ${key}, "v"]]}`), {
          context: 'a JSON object',
          observe: ctx.observe,
        });
        // One malformed item is a syntax error of the request (400) or of that command alone (200 with an
        // error item, "one failing command does not stop the rest"): the spec does not say which.
        const mixed = await send(`[["SET", ${key}, "v"], "GET"]`);
        if (mixed.status === 200) {
          checkItems('B.status.syntax-400', mixed, [{ result: 'OK' }, { error: true }], 'a bare string item');
          ctx.observe('a bare string item in a pipeline: 200 with an error item in its place');
        } else {
          checkError('B.status.syntax-400', mixed, { context: 'a bare string item', observe: ctx.observe });
          ctx.observe(`a bare string item in a pipeline: ${describe(mixed)}`);
        }
        ctx.observe(`an empty pipeline []: ${describe(await kv.pipeline([]))}`);
      },
    },
  ]),
);
