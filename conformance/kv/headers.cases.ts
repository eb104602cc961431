/**
 * Spec "Endpoints > Area B", request headers and rules 1–4: Svc-Encoding base64 (every string but
 * OK), U+FFFD for invalid UTF-8, Svc-Response-Format json and resp2, the 400s for an invalid format
 * and for base64 with resp2, and /multi-exec answering JSON only. Header names come from the dialect.
 */

import {
  defineCases,
  fromBase64,
  type HttpResponse,
  jsonBody,
  means,
  show,
  toBase64,
} from '../../src/suite-kit/suite-api.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkContentType,
  checkError,
  checkItems,
  checkResp2,
  checkResult,
  checkStatus,
  checkThat,
  checkUtf8Body,
  describe,
  itemsOf,
  resultOf,
} from '../support/kv-checks.ts';
import { createKvClient } from '../support/kv-client.ts';
import { availableForms, pathFormAvailable, steps, transactionRuns } from '../support/kv-steps.ts';
import { resp2 } from '../support/resp2.ts';
import { matchReplacement } from '../support/utf8.ts';

/** Bytes that are not valid UTF-8: a lone continuation byte, an invalid lead byte, a cut sequence. */
const invalidUtf8 = Buffer.from([0x61, 0xff, 0x62, 0x80, 0x63, 0xe2, 0x82]);

/** SETBIT commands that build `bytes` in `key` from ASCII-only requests (no reliance on body handling). */
function setbitCommands(key: string, bytes: Uint8Array): string[][] {
  const commands: string[][] = [];
  bytes.forEach((byte, index) => {
    for (let bit = 0; bit < 8; bit++) {
      const value = (byte >> (7 - bit)) & 1;
      commands.push(['SETBIT', key, String(index * 8 + bit), String(value)]);
    }
  });
  return commands;
}

/** The first item of a base64 batch is SET's OK, which stays OK (B.encoding.base64-ok-plain). */
function checkOkItem(res: HttpResponse, what: string): void {
  const [first] = itemsOf('B.encoding.base64', res, 5, what);
  checkThat(
    'B.encoding.base64-ok-plain',
    first !== undefined && 'result' in first && first.result === 'OK',
    `item 1 ${show(first)}`,
    'item 1 {"result":"OK"}',
    what,
  );
}

const requirements: Requirements = {
  // base64-strings judges the encoding, unasked included (its plain control): it rests on nothing.
  'kv.headers.base64-strings': ['standard-token'],
  'kv.headers.multi-exec-json-only': ['multi-exec'],
  'kv.headers.pipeline-resp2': ['pipeline'],
  'kv.headers.base64-ok-plain': ['root-form', 'pipeline'],
  // Its /multi-exec items only where the target has the route (availableForms).
  'kv.headers.base64-pipeline-items': ['root-form', 'pipeline'],
  // Its reads go through the path form too, with keys holding `:` (%3A).
  'kv.headers.format-resp2': ['root-form', 'percent-decoding'],
  '*': ['root-form'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.headers.base64-strings',
      rules: ['B.encoding.base64'],
      title: 'Svc-Encoding: base64 encodes every string of the result',
      expect:
        'Without the header a string comes back as it is; with it a bulk string, the strings of an array (nulls kept), PONG and ECHO come back base64-encoded; integers stay.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [key, hash] = [keys.key('string'), keys.key('hash')];
        await steps(kv, [
          ['SET', key, 'héllo wörld'],
          ['HSET', hash, 'a', 'first', 'b', ''],
        ]);
        // The plain control first: without the header the same string is not encoded (spec "Svc-Encoding":
        // base64 is asked for). A target encoding every reply fails here, on this rule, and the cases that
        // rest on plain replies are blocked on it (kv-capabilities 'plain-replies').
        checkResult('B.encoding.base64', await kv.root(['GET', key]), 'héllo wörld', 'GET without Svc-Encoding');
        const base64 = { encoding: 'base64' } as const;
        checkResult('B.encoding.base64', await kv.root(['GET', key], base64), toBase64('héllo wörld'), 'GET');
        const array = await kv.root(['HMGET', hash, 'a', 'missing', 'b'], base64);
        checkResult('B.encoding.base64', array, [toBase64('first'), null, ''], 'HMGET');
        checkResult('B.encoding.base64', await kv.root(['STRLEN', key], base64), 13, 'STRLEN (an integer)');
        checkResult('B.encoding.base64', await kv.root(['PING'], base64), toBase64('PONG'), 'PING');
        checkResult('B.encoding.base64', await kv.root(['ECHO', 'echoed'], base64), toBase64('echoed'), 'ECHO');
        if (await pathFormAvailable(kv)) {
          const echoed = await kv.path('GET', ['echo', 'echoed'], base64);
          checkResult('B.encoding.base64', echoed, toBase64('echoed'), 'ECHO by path');
        }
        for (const encoding of ['BASE64', 'hex']) {
          ctx.observe(`encoding ${JSON.stringify(encoding)}: ${describe(await kv.root(['GET', key], { encoding }))}`);
        }
      },
    },
    {
      id: 'kv.headers.base64-ok-plain',
      rules: ['B.encoding.base64-ok-plain'],
      title: 'Under Svc-Encoding: base64 the OK response stays OK',
      expect: 'SET with base64 answers {"result":"OK"}, in POST / and inside a pipeline.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('ok');
        checkResult('B.encoding.base64-ok-plain', await kv.root(['SET', key, 'v'], { encoding: 'base64' }), 'OK');
        const res = await kv.pipeline([['SET', key, 'w']], { encoding: 'base64' });
        checkItems('B.encoding.base64-ok-plain', res, [{ result: 'OK' }], 'pipeline');
      },
    },
    {
      id: 'kv.headers.base64-pipeline-items',
      rules: ['B.encoding.base64'],
      title: 'Svc-Encoding: base64 applies to every item of a pipeline and a transaction',
      expect: 'The strings of each item are base64, integers stay integers, OK stays OK; error texts are recorded.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('items');
        const commands = [
          ['SET', key, 'v1'],
          ['GET', key],
          ['APPEND', key, '2'],
          ['GET', key],
          ['INCR', key],
        ];
        const expected = [
          { result: 'OK' },
          { result: toBase64('v1') },
          { result: 3 },
          { result: toBase64('v12') },
          { error: true },
        ] as const;
        const pipeline = await kv.pipeline(commands, { encoding: 'base64' });
        // OK stays OK under its own rule (B.encoding.base64-ok-plain); the other items are this case's.
        checkOkItem(pipeline, 'pipeline');
        checkItems('B.encoding.base64', pipeline, expected, 'pipeline');
        const forms = await availableForms(kv);
        if (forms.multiExec) {
          const transaction = await kv.multiExec(commands, { encoding: 'base64' });
          checkOkItem(transaction, '/multi-exec');
          checkItems('B.encoding.base64', transaction, expected, '/multi-exec');
        }
        const items = jsonBody(pipeline) as { error?: string }[];
        ctx.observe(`error text under base64: ${JSON.stringify(items[4]?.error ?? '').slice(0, 80)}`);
      },
    },
    {
      id: 'kv.headers.utf8-replacement',
      rules: ['B.utf8.replacement', 'B.encoding.base64', 'B.format.resp2'],
      title: 'Invalid UTF-8 in a reply string becomes U+FFFD, unless base64 is asked for',
      expect:
        'A value holding invalid UTF-8 reads back with U+FFFD in JSON, as its exact bytes in base64 and in resp2.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('bytes');
        // Writing the bytes is a means (SETBIT by bit, since JSON cannot carry them).
        await steps(kv, setbitCommands(key, invalidUtf8));
        const jsonRes = await kv.root(['GET', key]);
        checkUtf8Body('B.utf8.replacement', jsonRes, 'JSON');
        const json = resultOf('B.utf8.replacement', jsonRes, 'JSON');
        const match = typeof json === 'string' ? matchReplacement(json, invalidUtf8) : 'no';
        checkThat(
          'B.utf8.replacement',
          match !== 'no',
          `result ${JSON.stringify(json)}`,
          'the valid text with U+FFFD for each invalid sequence',
        );
        if (match === 'loose') ctx.observe(`U+FFFD count differs from a WHATWG decoder: ${JSON.stringify(json)}`);
        // base64 carries the exact bytes (rule 1 replaces only where base64 is not asked for).
        const exact = resultOf('B.encoding.base64', await kv.root(['GET', key], { encoding: 'base64' }), 'base64');
        const decoded = typeof exact === 'string' ? fromBase64(exact) : undefined;
        // Not base64 at all breaks the encoding rule; base64 of the replaced text breaks rule 1's "unless
        // base64 is asked for" (the bytes must arrive as they are).
        checkThat(
          'B.encoding.base64',
          decoded !== undefined,
          `a result that is not base64: ${show(exact, 80)}`,
          'base64',
        );
        checkThat(
          'B.utf8.replacement',
          exact === toBase64(invalidUtf8),
          `base64 of other bytes: ${show(exact, 80)}`,
          `base64 of the exact bytes ${toBase64(invalidUtf8)}`,
        );
        // resp2 is the raw protocol reply (not rule 1's business): exact bytes.
        checkResp2('B.format.resp2', await kv.root(['GET', key], { format: 'resp2' }), resp2(invalidUtf8), 'resp2');
      },
    },
    {
      id: 'kv.headers.format-json',
      rules: ['B.format.json'],
      title: 'Svc-Response-Format json, and no header, answer application/json',
      expect: 'The same GET answers application/json with {"result"} with the header json and without it.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('json');
        await steps(kv, [['SET', key, 'v']]);
        for (const format of [undefined, 'json']) {
          const res = await kv.root(['GET', key], format === undefined ? {} : { format });
          checkContentType('B.format.json', res, 'application/json', `format ${format ?? 'absent'}`);
          checkResult('B.format.json', res, 'v', `format ${format ?? 'absent'}`);
        }
      },
    },
    {
      id: 'kv.headers.format-resp2',
      rules: ['B.format.resp2'],
      title: 'Svc-Response-Format resp2 answers the raw RESP2 reply as application/octet-stream',
      expect: 'OK, a bulk string, an integer, nil, an array and an error arrive as their exact RESP2 bytes.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [key, list] = [keys.key('string'), keys.key('list')];
        const o = { format: 'resp2' } as const;
        checkResp2('B.format.resp2', await kv.root(['SET', key, 'bar'], o), resp2({ simple: 'OK' }), 'SET');
        checkResp2('B.format.resp2', await kv.root(['GET', key], o), resp2('bar'), 'GET');
        checkResp2('B.format.resp2', await kv.path('GET', ['strlen', key], o), resp2(3), 'STRLEN');
        checkResp2('B.format.resp2', await kv.root(['GET', keys.key('missing')], o), resp2(null), 'GET missing');
        await kv.root(['RPUSH', list, 'a', '', 'c']);
        checkResp2('B.format.resp2', await kv.root(['LRANGE', list, '0', '-1'], o), resp2(['a', '', 'c']), 'LRANGE');
        const error = await kv.root(['INCR', key], o);
        checkStatus('B.format.resp2', error, 400, 'INCR of a string');
        const text = error.body.toString('utf8');
        checkThat(
          'B.format.resp2',
          /^-[A-Z][A-Z0-9_]*(?: [^\r\n]*)?\r\n$/.test(text),
          describe(error),
          'one RESP2 error line -ERR …\\r\\n',
        );
      },
    },
    {
      id: 'kv.headers.format-invalid-400',
      rules: ['B.format.invalid-400'],
      title: 'A Svc-Response-Format other than json or resp2 answers 400',
      expect: 'xml, resp3 and text answer 400 with {"error"}; the case and empty variants are recorded.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        for (const format of ['xml', 'resp3', 'text']) {
          checkError('B.format.invalid-400', await kv.root(['PING'], { format }), {
            context: `format ${format}`,
            observe: ctx.observe,
          });
        }
        for (const format of ['JSON', 'RESP2', '']) {
          ctx.observe(`format ${JSON.stringify(format)}: ${describe(await kv.root(['PING'], { format }))}`);
        }
      },
    },
    {
      id: 'kv.headers.base64-with-resp2-400',
      rules: ['B.format.base64-with-resp2-400'],
      title: 'Svc-Encoding base64 with Svc-Response-Format resp2 answers 400',
      expect: 'The combination answers 400 on POST / and on the path form; whether the command ran is recorded.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('never');
        const both = { encoding: 'base64', format: 'resp2' } as const;
        checkStatus('B.format.base64-with-resp2-400', await kv.root(['SET', key, 'v'], both), 400, 'POST /');
        // A 400 is only a pass after the positives: each header alone is accepted by the same form (a
        // target answering 400 to everything, or to either header, refuses the pair for another reason).
        await means(async () => {
          checkStatus('B.format.resp2', await kv.root(['ECHO', 'svc'], { format: 'resp2' }), 200, 'resp2 alone');
          checkStatus('B.encoding.base64', await kv.root(['ECHO', 'svc'], { encoding: 'base64' }), 200, 'base64 alone');
        });
        // The path form where the target has it (its absence is B.methods.allowed's case).
        if (await pathFormAvailable(kv)) {
          checkStatus(
            'B.format.base64-with-resp2-400',
            await kv.path('GET', ['set', key, 'v'], both),
            400,
            'path form',
          );
        }
        // The spec gives the status only; whether the command ran before the refusal is recorded.
        const exists = jsonBody(await kv.root(['EXISTS', key])) as { result?: unknown } | undefined;
        ctx.observe(`after the two 400s the key ${exists?.result === 1 ? 'was' : 'was not'} written`);
      },
    },
    {
      id: 'kv.headers.multi-exec-json-only',
      rules: ['B.multi-exec.json-only'],
      title: '/multi-exec answers JSON even when resp2 is asked for',
      expect: '/multi-exec with resp2 answers 200, application/json, a JSON array of result objects.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('tx');
        await transactionRuns(kv, key);
        const res = await kv.multiExec(
          [
            ['SET', key, 'v'],
            ['GET', key],
          ],
          { format: 'resp2' },
        );
        checkStatus('B.multi-exec.json-only', res, 200);
        checkContentType('B.multi-exec.json-only', res, 'application/json');
        checkItems('B.multi-exec.json-only', res, [{ result: 'OK' }, { result: 'v' }]);
      },
    },
    {
      id: 'kv.headers.pipeline-resp2',
      rules: ['B.observe.pipeline-resp2'],
      title: 'What resp2 does on /pipeline (not shown)',
      expect: 'Recorded only: the status, content type and body of /pipeline with resp2.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('p');
        const res = await kv.pipeline(
          [
            ['SET', key, 'v'],
            ['GET', key],
          ],
          { format: 'resp2' },
        );
        ctx.observe(`/pipeline with resp2: ${describe(res)}`);
      },
    },
  ]),
);
