/**
 * Spec "Endpoints > Area B": the request forms. Methods on command paths, path segments in protocol
 * order and percent-decoded, the POST body as last argument with query pairs after it, `POST /` with
 * a JSON array, and unversioned paths.
 */

import { defineCases, type HttpMethod, type HttpResponse, jsonBody } from '../../src/suite-kit/suite-api.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkClassToken,
  checkContentType,
  checkErrorBody,
  checkHeadContentType,
  checkResult,
  checkStatus,
  checkThat,
  describe,
  resultOf,
} from '../support/kv-checks.ts';
import { createKvClient } from '../support/kv-client.ts';
import { availableForms, pathFormAvailable, pathFormRuns, step } from '../support/kv-steps.ts';

/** Methods the spec does not allow; each must answer 405 (spec "Errors"). */
const refusedMethods: readonly HttpMethod[] = ['DELETE', 'PATCH', 'OPTIONS'];

const requirements: Requirements = {
  // The path form's and percent-decoding's own cases rest on POST / only.
  'kv.request-forms.methods-allowed': ['root-form'],
  'kv.request-forms.percent-decoding': ['root-form'],
  'kv.request-forms.root-json-array': ['plain-replies'],
  // A refused method runs nothing, whatever its path decodes to.
  'kv.request-forms.other-methods-405': ['root-form'],
  '*': ['root-form', 'percent-decoding'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.request-forms.methods-allowed',
      rules: ['B.methods.allowed', 'B.path.command-args', 'B.format.json'],
      title: 'GET, HEAD, POST and PUT run a command given as path segments',
      expect:
        'PUT and POST write through the path form, GET reads it back, HEAD answers 200 (400 for an unknown command).',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [a, b] = [keys.key('put'), keys.key('post')];
        // Each method's answer is JSON by default, so labelled application/json (a HEAD's label, if sent, too).
        const json = async (res: Promise<HttpResponse>, where: string) => {
          const answer = await res;
          if (answer.status === 200) checkContentType('B.format.json', answer, 'application/json', where);
          return answer;
        };
        checkResult(
          'B.methods.allowed',
          await json(kv.path('PUT', ['set', a, 'by-put']), 'PUT /set'),
          'OK',
          'PUT /set',
        );
        checkResult(
          'B.methods.allowed',
          await json(kv.path('POST', ['set', b, 'by-post']), 'POST /set'),
          'OK',
          'POST /set',
        );
        checkResult('B.methods.allowed', await json(kv.path('GET', ['get', a]), 'GET /get'), 'by-put', 'GET /get');
        checkResult('B.methods.allowed', await kv.path('GET', ['get', b]), 'by-post', 'GET /get');
        const headGet = await kv.path('HEAD', ['get', a]);
        checkStatus('B.methods.allowed', headGet, 200, 'HEAD /get');
        checkHeadContentType(headGet, 'application/json', 'B.format.json', 'HEAD /get');
        // HEAD runs the command like GET (a 200 for any HEAD would pass the line above): an unknown one is a 400.
        checkStatus('B.methods.allowed', await kv.path('HEAD', ['nosuchcommand', a]), 400, 'HEAD /nosuchcommand');
        const counter = keys.key('head-incr');
        const head = await kv.path('HEAD', ['incr', counter]);
        const after = jsonBody(await kv.root(['GET', counter])) as { result?: unknown } | undefined;
        ctx.observe(`HEAD /incr: status ${head.status}, the counter is then ${JSON.stringify(after?.result)}`);
      },
    },
    {
      id: 'kv.request-forms.other-methods-405',
      rules: [
        'B.methods.other-405',
        'B.response.error-shape',
        'B.errors.class-token',
        'B.format.json',
        'B.observe.error-class',
      ],
      title: 'DELETE, PATCH, OPTIONS and WebDAV methods answer 405',
      expect:
        'Each method other than HEAD, GET, POST and PUT answers 405 with an {error} object (application/json, a class token) and runs nothing, on command paths and on /, /pipeline, /multi-exec.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('kept');
        await step(kv, ['SET', key, 'kept']);
        // A 405 is a failure like any other: spec "Errors" gives every failure the Error object.
        const check405 = (res: HttpResponse, where: string) => {
          checkStatus('B.methods.other-405', res, 405, where);
          const text = checkErrorBody('B.response.error-shape', res, where);
          checkClassToken('B.errors.class-token', text, undefined, where, (note) => ctx.observe(`${where}: ${note}`));
        };
        for (const method of refusedMethods) check405(await kv.path(method, ['del', key]), `${method} /del`);
        checkResult('B.methods.other-405', await kv.root(['GET', key]), 'kept', 'the key after the refused DELETE');
        // The 405 row of "Errors" is not limited to command paths, nor to the methods of ordinary use.
        // /pipeline and /multi-exec where the target has them (a missing route is its own case's failure).
        const forms = await availableForms(kv);
        const paths = ['/', ...(forms.pipeline ? ['/pipeline'] : []), ...(forms.multiExec ? ['/multi-exec'] : [])];
        for (const path of paths) check405(await kv.raw({ method: 'DELETE', path }), `DELETE ${path}`);
        for (const method of ['PROPFIND', 'LOCK', 'SEARCH'] as const)
          check405(await kv.path(method, ['ping']), `${method} /ping`);
      },
    },
    {
      id: 'kv.request-forms.path-order',
      rules: ['B.path.command-args'],
      title: 'Path segments are the command and its arguments in protocol order',
      expect: 'GET /rpush/k/a/b/c then GET /lrange/k/0/-1 gives ["a","b","c"].',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [list, hash] = [keys.key('list'), keys.key('hash')];
        checkResult('B.path.command-args', await kv.path('GET', ['rpush', list, 'a', 'b', 'c']), 3, 'RPUSH');
        checkResult(
          'B.path.command-args',
          await kv.path('GET', ['lrange', list, '0', '-1']),
          ['a', 'b', 'c'],
          'LRANGE',
        );
        checkResult('B.path.command-args', await kv.path('GET', ['hset', hash, 'field', 'value']), 1, 'HSET');
        checkResult('B.path.command-args', await kv.path('GET', ['hget', hash, 'field']), 'value', 'HGET');
      },
    },
    {
      id: 'kv.request-forms.percent-decoding',
      rules: ['B.path.percent-decoding'],
      title: 'Each path segment is one percent-decoded argument',
      expect: 'A key and a value holding "/", "%", "?", "#", spaces and non-ASCII arrive decoded, one argument each.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('a/b c%2F?d#e=é');
        const value = 'x/y z%41&q=1#ü→';
        await pathFormRuns(kv);
        checkResult('B.path.percent-decoding', await kv.path('GET', ['set', key, value]), 'OK', 'SET through the path');
        checkResult('B.path.percent-decoding', await kv.root(['GET', key]), value, 'GET through POST /');
        checkResult('B.path.percent-decoding', await kv.path('GET', ['echo', value]), value, 'ECHO through the path');
      },
    },
    {
      id: 'kv.request-forms.post-body-last',
      rules: ['B.post.body-last-arg'],
      title: 'The POST body is appended as the last argument',
      expect: 'POST /set/k with a body sets k to exactly the body; POST /hset/h/f sets field f to the body.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        // Values are key-like, so a target that misplaces the body still writes only under the prefix.
        const [key, hash, value] = [keys.key('body'), keys.key('hash'), keys.key('value with spaces/and slash')];
        checkResult('B.post.body-last-arg', await kv.postBody(['set', key], value), 'OK', 'POST /set/k');
        checkResult('B.post.body-last-arg', await kv.root(['GET', key]), value, 'GET k');
        checkResult('B.post.body-last-arg', await kv.postBody(['hset', hash, 'field'], value), 1, 'POST /hset/h/field');
        checkResult('B.post.body-last-arg', await kv.root(['HGET', hash, 'field']), value, 'HGET h field');
      },
    },
    {
      id: 'kv.request-forms.post-query-args',
      rules: ['B.post.query-args'],
      title: 'Query pairs NAME=value are arguments after the body',
      expect:
        'POST /set/k?EX=100 with body v sets v with a time to live of at most 100 s; _token is never an argument.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('ttl');
        // The Standard token by header: _token in the query is B.auth.query-token's business.
        const res = await kv.postBody(['set', key], 'v', [['EX', '100']]);
        checkResult('B.post.query-args', res, 'OK', 'POST /set/k?EX=100');
        const ttl = resultOf('B.post.query-args', await kv.root(['TTL', key]), 'TTL k');
        checkThat(
          'B.post.query-args',
          typeof ttl === 'number' && ttl > 0 && ttl <= 100,
          `TTL ${String(ttl)}`,
          'TTL in 1..100',
        );
        checkResult('B.post.query-args', await kv.root(['GET', key]), 'v', 'GET k');
      },
    },
    {
      id: 'kv.request-forms.root-json-array',
      rules: ['B.root.json-array'],
      title: 'POST / takes a JSON array: command name first, then arguments',
      expect: 'POST / ["SET",k,"v","EX","60"] sets v with a TTL, ["GET",k] reads it, numbers are observed.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('root');
        checkResult('B.root.json-array', await kv.root(['SET', key, 'v', 'EX', '60']), 'OK', 'SET');
        checkResult('B.root.json-array', await kv.root(['GET', key]), 'v', 'GET');
        const ttl = resultOf('B.root.json-array', await kv.root(['TTL', key]), 'TTL');
        checkThat(
          'B.root.json-array',
          typeof ttl === 'number' && ttl > 0 && ttl <= 60,
          `TTL ${String(ttl)}`,
          'TTL in 1..60',
        );
        const numeric = await kv.root(['SET', key, 42]);
        ctx.observe(`a number as an argument of POST /: ${describe(numeric)}`);
      },
    },
    {
      id: 'kv.request-forms.unversioned',
      rules: ['B.versioning.unversioned'],
      title: 'Area B paths carry no version prefix',
      expect:
        'Commands run at the root of the key-value URL: POST / and, where the target has the path form, POST /ping and GET /echo/x answer without a /v2 prefix.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        checkResult('B.versioning.unversioned', await kv.root(['PING']), 'PONG', 'POST / ["PING"]');
        // The path form is checked where the target has it (its absence is B.methods.allowed's failure).
        if (!(await pathFormAvailable(kv)))
          return ctx.observe('the path form is not available: checked on POST / only');
        checkResult('B.versioning.unversioned', await kv.path('POST', ['ping']), 'PONG', 'POST /ping');
        checkResult(
          'B.versioning.unversioned',
          await kv.path('GET', ['echo', 'unversioned']),
          'unversioned',
          'GET /echo/…',
        );
      },
    },
  ]),
);
