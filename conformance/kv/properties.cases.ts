/**
 * Property-based round trips (fast-check, fixed seed, bounded runs): binary values through the POST
 * body read back as exact bytes (base64, resp2) and with U+FFFD (JSON); unicode keys through the path
 * form; empty strings; values near the maximum request size.
 */

import fc from 'fast-check';
import { CheckFailure, defineCases, means, show, toBase64 } from '../../src/suite-kit/suite-api.ts';
import { adminClient } from '../support/admin-client.ts';
import { classedText } from '../support/byte-classes.ts';
import { type KeySpace, keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkResp2, checkResult, checkThat, checkUtf8Body, describe, resultOf } from '../support/kv-checks.ts';
import { createKvClient, type KvClient } from '../support/kv-client.ts';
import { pathFormRuns } from '../support/kv-steps.ts';
import { byteValues, checkProperty, unicodeText } from '../support/properties.ts';
import { resp2 } from '../support/resp2.ts';
import { matchReplacement } from '../support/utf8.ts';

/**
 * The body must land as the last argument before random bytes are sent as bodies: a target that
 * misplaces it would otherwise write keys named by those bytes, outside the case prefix.
 */
async function checkBodyIsLast(kv: KvClient, keys: KeySpace): Promise<void> {
  const [key, body] = [keys.key('probe'), keys.key('probe-body')];
  checkResult('B.post.body-last-arg', await kv.postBody(['set', key], body), 'OK', 'SET with a key-like body');
  checkResult('B.post.body-last-arg', await kv.root(['GET', key]), body, 'the body became the value');
}

const requirements: Requirements = {
  'kv.properties.binary-values': ['root-form', 'percent-decoding'],
  'kv.properties.near-max-size': ['root-form', 'percent-decoding'],
  '*': ['root-form'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    {
      id: 'kv.properties.binary-values',
      rules: ['B.post.body-last-arg', 'B.encoding.base64', 'B.utf8.replacement', 'B.format.resp2'],
      title: 'Any byte string written as a POST body reads back exactly',
      expect: 'Base64 gives the exact bytes, resp2 the exact bulk string, JSON the text with U+FFFD for invalid UTF-8.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        // A means here (B.post.body-last-arg has its own case): without it the bytes were never sent.
        await means(() => checkBodyIsLast(kv, keys));
        let run = 0;
        const note = await checkProperty(
          fc.asyncProperty(byteValues(), async (bytes) => {
            const key = keys.key(`bin:${run++}`);
            checkResult(
              'B.post.body-last-arg',
              await kv.postBody(['set', key], bytes),
              'OK',
              'SET with the bytes as body',
            );
            checkResult('B.post.body-last-arg', await kv.root(['STRLEN', key]), bytes.length, 'STRLEN');
            checkResult(
              'B.encoding.base64',
              await kv.root(['GET', key], { encoding: 'base64' }),
              toBase64(bytes),
              'GET, base64',
            );
            checkResp2('B.format.resp2', await kv.root(['GET', key], { format: 'resp2' }), resp2(bytes), 'GET, resp2');
            const jsonRes = await kv.root(['GET', key]);
            checkUtf8Body('B.utf8.replacement', jsonRes, 'GET, JSON');
            const json = resultOf('B.utf8.replacement', jsonRes, 'GET, JSON');
            const match = typeof json === 'string' ? matchReplacement(json, bytes) : 'no';
            checkThat(
              'B.utf8.replacement',
              match !== 'no',
              `result ${show(json, 80)}`,
              'the text with U+FFFD for invalid UTF-8',
            );
          }),
          { numRuns: 40 },
        );
        ctx.observe(note);
      },
    },
    {
      id: 'kv.properties.unicode-keys',
      rules: ['B.path.percent-decoding', 'B.root.json-array', 'B.encoding.base64'],
      title: 'Unicode keys and values, and mixes of the byte classes, round trip through the path form and POST /',
      expect:
        'A key and value of any unicode text or mix of the byte classes, set by path, read back equal by POST / (and as UTF-8 under base64).',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        await pathFormRuns(kv);
        const note = await checkProperty(
          // Any unicode text, and mixes of the byte classes paths commonly get wrong (`+`, `%41`, `/`, `?`, `#`…).
          fc.asyncProperty(
            fc.oneof(unicodeText(), classedText()),
            fc.oneof(unicodeText(), classedText()),
            async (name, value) => {
              const key = keys.key(`u:${name}`);
              checkResult('B.path.percent-decoding', await kv.path('POST', ['set', key, value]), 'OK', 'SET by path');
              checkResult('B.path.percent-decoding', await kv.root(['GET', key]), value, 'GET by POST /');
              checkResult(
                'B.encoding.base64',
                await kv.root(['GET', key], { encoding: 'base64' }),
                toBase64(value),
                'GET, base64',
              );
              checkResult('B.path.percent-decoding', await kv.path('GET', ['echo', name]), name, 'ECHO by path');
              checkResult('B.root.json-array', await kv.root(['EXISTS', key]), 1, 'EXISTS by POST /');
            },
          ),
          { numRuns: 40 },
        );
        ctx.observe(note);
      },
    },
    {
      id: 'kv.properties.empty-strings',
      rules: ['B.root.json-array', 'B.encoding.base64', 'B.format.resp2', 'B.response.result-shape'],
      title: 'Empty strings are arguments and results like any other',
      expect:
        'An empty value, field and list item round trip in JSON, base64 ("") and resp2 ($0); empty bodies and segments are recorded.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const [s, h, l, body] = [keys.key('s'), keys.key('h'), keys.key('l'), keys.key('body')];
        checkResult('B.root.json-array', await kv.root(['SET', s, '']), 'OK', 'SET ""');
        checkResult('B.response.result-shape', await kv.root(['GET', s]), '', 'GET');
        checkResult('B.encoding.base64', await kv.root(['GET', s], { encoding: 'base64' }), '', 'GET, base64');
        checkResp2('B.format.resp2', await kv.root(['GET', s], { format: 'resp2' }), resp2(''), 'GET, resp2');
        checkResult('B.root.json-array', await kv.root(['HSET', h, '', '']), 1, 'HSET "" ""');
        checkResult('B.root.json-array', await kv.root(['HGET', h, '']), '', 'HGET ""');
        checkResult('B.root.json-array', await kv.root(['RPUSH', l, '', 'x', '']), 3, 'RPUSH');
        checkResult('B.response.result-shape', await kv.root(['LRANGE', l, '0', '-1']), ['', 'x', ''], 'LRANGE');
        checkResult('B.root.json-array', await kv.root(['ECHO', '']), '', 'ECHO ""');
        ctx.observe(`POST /set/k with an empty body: ${describe(await kv.postBody(['set', body], ''))}`);
        ctx.observe(`GET /echo/ (an empty last segment): ${describe(await kv.raw({ method: 'GET', path: '/echo/' }))}`);
      },
    },
    {
      id: 'kv.properties.near-max-size',
      rules: ['B.limits.max-request-size', 'B.post.body-last-arg'],
      needs: ['admin'],
      title: 'Values just under the maximum request size round trip exactly',
      expect: 'Random values a few kilobytes under the maximum are written and read back byte for byte.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const keys = keySpace(ctx, kv);
        const { maxRequestBytes } = await adminClient(ctx).limits();
        await checkBodyIsLast(kv, keys);
        let run = 0;
        const note = await checkProperty(
          fc.asyncProperty(
            fc.integer({ min: 4096, max: 8192 }),
            fc.uint8Array({ minLength: 64, maxLength: 64 }),
            async (below, seed) => {
              const size = Math.max(1, maxRequestBytes - below);
              const value = Buffer.alloc(size);
              for (let at = 0; at < size; at += seed.length)
                value.set(seed.subarray(0, Math.min(seed.length, size - at)), at);
              const key = keys.key(`big:${run++}`);
              const rule = 'B.limits.max-request-size';
              checkResult(
                rule,
                await kv.postBody(['set', key], value, [], { timeoutMs: 30_000 }),
                'OK',
                `SET of ${size} bytes`,
              );
              const back = resultOf(
                rule,
                await kv.root(['GET', key], { encoding: 'base64', timeoutMs: 30_000, largestAnswer: size }),
                'GET, base64',
              );
              if (typeof back !== 'string' || !Buffer.from(back, 'base64').equals(value)) {
                throw new CheckFailure(
                  rule,
                  `${typeof back === 'string' ? Buffer.from(back, 'base64').length : 0} bytes read back`,
                  `the same ${size} bytes`,
                );
              }
              await kv.root(['DEL', key]);
            },
          ),
          { numRuns: 2, timeLimitMs: 20_000 },
        );
        ctx.observe(`${note}; maximum request size ${maxRequestBytes} bytes`);
      },
    },
  ]),
);
