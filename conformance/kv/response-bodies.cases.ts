/**
 * Spec "Resources and their fields > Key-value REST responses" and "Errors" (area B): the result and
 * error objects, their statuses, and the class token at the start of every error text.
 */
import { type ConformanceCase, defineCases } from '../../src/suite-kit/suite-api.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkContentType,
  checkError,
  checkResult,
  checkResultBody,
  checkResultShape,
  checkStatus,
  describe,
} from '../support/kv-checks.ts';
import { createKvClient, type JsonArg } from '../support/kv-client.ts';
import { pathFormAvailable, steps } from '../support/kv-steps.ts';

interface ResultRow {
  readonly name: string;
  /** Commands run first; `{k}` is the case's key. */
  readonly arrange: readonly (readonly JsonArg[])[];
  readonly command: readonly JsonArg[];
  readonly result: unknown;
}

/** One row per kind of result the spec lists: null, integer, string, array of strings and nulls. */
const resultRows: readonly ResultRow[] = [
  { name: 'null', arrange: [], command: ['GET', '{k}'], result: null },
  { name: 'integer', arrange: [['SET', '{k}', '41']], command: ['INCR', '{k}'], result: 42 },
  { name: 'string', arrange: [['SET', '{k}', 'some text']], command: ['GET', '{k}'], result: 'some text' },
  { name: 'ok', arrange: [], command: ['SET', '{k}', 'v'], result: 'OK' },
  {
    name: 'array',
    arrange: [['HSET', '{k}', 'a', '1', 'b', '2']],
    command: ['HMGET', '{k}', 'a', 'missing', 'b'],
    result: ['1', null, '2'],
  },
  { name: 'empty-array', arrange: [], command: ['LRANGE', '{k}', '0', '-1'], result: [] },
];

const withKey = (command: readonly JsonArg[], key: string) => command.map((arg) => (arg === '{k}' ? key : arg));

function resultCase(row: ResultRow): ConformanceCase {
  return {
    id: `kv.response.result-${row.name}`,
    rules: ['B.response.result-shape', 'B.status.ok-200', 'B.format.json'],
    title: `A ${row.name} reply is {"result": …} with status 200`,
    expect: `${row.command[0]} answers 200, application/json, exactly {"result":${JSON.stringify(row.result)}}.`,
    async run(ctx) {
      const kv = createKvClient(ctx);
      const key = keySpace(ctx, kv).key(row.name);
      await steps(
        kv,
        row.arrange.map((command) => withKey(command, key)),
      );
      const res = await kv.root(withKey(row.command, key));
      checkStatus('B.status.ok-200', res, 200);
      checkContentType('B.format.json', res, 'application/json');
      const result = checkResultBody('B.response.result-shape', res);
      checkResultShape('B.response.result-shape', result);
      checkResult('B.response.result-shape', res, row.result);
    },
  };
}

const requirements: Requirements = { '*': ['plain-replies'] };

export const cases = withRequirements(
  requirements,
  defineCases([
    ...resultRows.map(resultCase),
    {
      id: 'kv.response.error-wrong-arity',
      rules: ['B.response.error-shape', 'B.errors.class-token', 'B.status.syntax-400'],
      title: 'A wrong argument count answers 400 with an ERR error object',
      expect: 'GET without a key answers 400 and exactly {"error":"ERR …"}.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        checkError('B.status.syntax-400', await kv.root(['GET']), { token: 'ERR', context: 'POST /' });
        if (await pathFormAvailable(kv)) {
          checkError('B.status.syntax-400', await kv.path('GET', ['get']), { token: 'ERR', context: 'path form' });
        } else ctx.observe('the path form is not available: checked on POST / only');
      },
    },
    {
      id: 'kv.response.error-not-integer',
      rules: ['B.response.error-shape', 'B.errors.class-token', 'B.status.exec-failure-400'],
      title: 'A command failing at run time answers 400 with an ERR error object',
      expect: 'INCR of a non-integer value answers 400 and {"error":"ERR …"}.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('text');
        await steps(kv, [['SET', key, 'not a number']]);
        const res = await kv.root(['INCR', key]);
        checkStatus('B.status.exec-failure-400', res, 400);
        checkError('B.errors.class-token', res, { token: 'ERR' });
      },
    },
    {
      id: 'kv.response.error-wrong-type',
      rules: ['B.response.error-shape', 'B.errors.class-token', 'B.status.exec-failure-400', 'B.observe.error-class'],
      title: 'A wrong-type operation answers 400 with a classed error',
      expect: 'LPUSH on a string key answers 400 and {"error"} starting with a class token (recorded).',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('string');
        await steps(kv, [['SET', key, 'v']]);
        const res = await kv.root(['LPUSH', key, 'x']);
        checkStatus('B.status.exec-failure-400', res, 400);
        const text = checkError('B.errors.class-token', res, { observe: ctx.observe });
        ctx.observe(`wrong-type error class: ${text.split(' ')[0]}`);
      },
    },
    {
      id: 'kv.response.unknown-command',
      rules: ['B.status.unsupported-400', 'B.response.error-shape', 'B.errors.class-token', 'B.observe.error-class'],
      title: 'An unknown command answers 400 with an error object',
      expect: 'An unknown command name, in the path form and in POST /, answers 400 with {"error"} and a class token.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        checkError('B.status.unsupported-400', await kv.root(['NOSUCHCOMMAND', 'x']), {
          context: 'POST /',
          observe: ctx.observe,
        });
        if (await pathFormAvailable(kv)) {
          checkError('B.status.unsupported-400', await kv.path('GET', ['nosuchcommand', 'x']), {
            context: 'path form',
          });
        } else ctx.observe('the path form is not available: checked on POST / only');
      },
    },
    {
      id: 'kv.response.syntax-errors',
      rules: ['B.status.syntax-400', 'B.response.error-shape'],
      title: 'A malformed request body answers 400 with an error object',
      expect:
        'POST / with broken JSON, a JSON object or an empty array answers 400 and {"error"}; an object argument is recorded.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = JSON.stringify(keySpace(ctx, kv).key('never-written'));
        const bodies: readonly (readonly [string, string])[] = [
          ['broken JSON', `["SET", ${key}, "v"`],
          ['a JSON object', `{"command":"SET","key":${key}}`],
          ['an empty array', '[]'],
        ];
        for (const [what, body] of bodies) {
          const res = await kv.raw({ method: 'POST', path: '/', body, contentType: 'application/json' });
          checkError('B.status.syntax-400', res, { context: what, observe: ctx.observe });
        }
        // The spec lists arguments without their JSON types: what an object argument does is not shown.
        const objectArg = `["SET", ${key}, {"a": 1}]`;
        const res = await kv.raw({ method: 'POST', path: '/', body: objectArg, contentType: 'application/json' });
        ctx.observe(`an object as an argument of POST /: ${describe(res)}`);
      },
    },
    {
      id: 'kv.response.info',
      rules: ['B.info.result', 'B.observe.info-result'],
      title: 'POST /info answers a JSON result',
      expect:
        'POST /info answers 200, application/json, {"result": …} of a shape results may take (its content is recorded).',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const res = await kv.path('POST', ['info']);
        checkStatus('B.info.result', res, 200);
        checkContentType('B.info.result', res, 'application/json');
        // The spec says "JSON result" only: any shape a result may take, never a particular text.
        const result = checkResultBody('B.info.result', res);
        checkResultShape('B.info.result', result);
        const kind = Array.isArray(result) ? 'an array' : result === null ? 'null' : `a ${typeof result}`;
        ctx.observe(`/info result is ${kind}${typeof result === 'string' ? ` of ${result.length} characters` : ''}`);
      },
    },
  ]),
);
