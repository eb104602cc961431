/**
 * Reply shapes × container × encoding (issue 20, coverage by construction): every shape of
 * conformance/rules/dimensions.ts (null … nested arrays of depth 2 and 3, an error, the OK reply), with
 * plain and invalid-UTF-8 bytes and values that look like special replies, read as a whole answer
 * (POST /), as /pipeline items and as /multi-exec items; in JSON, under base64 and (whole answers) in
 * resp2. One oracle from the spec judges every cell: JSON gives flat replies exactly and strings with
 * U+FFFD, base64 every string at any depth but the OK reply, resp2 the exact protocol bytes.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  CheckFailure,
  type ConformanceCase,
  defineCases,
  type HttpResponse,
  means,
  show,
  toBase64,
} from '../../src/suite-kit/suite-api.ts';
import { allOf, cover, type DimensionValue } from '../rules/dimensions.ts';
import { type BatchCell, runCells } from '../support/cell-batch.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import {
  checkContentType,
  checkStatus,
  checkThat,
  describe,
  isRecord,
  itemsOf,
  jsonOf,
  resultOf,
} from '../support/kv-checks.ts';
import { createKvClient, type JsonArg, type KvClient } from '../support/kv-client.ts';
import { steps } from '../support/kv-steps.ts';
import { sameLeaves, sameScalar } from '../support/nested-reply.ts';
import { isResp2Error, type Resp2Value, resp2 } from '../support/resp2.ts';
import { matchReplacement } from '../support/utf8.ts';

/** A reply as the protocol has it: bulk strings (text or bytes), the OK simple string, integers, nil, an error. */
type Reply =
  | string
  | Uint8Array
  | number
  | null
  | { readonly simple: 'OK' }
  | { readonly error: true }
  | readonly Reply[];

type Shape = DimensionValue<'reply-shape'>;
type Container = DimensionValue<'container'>;

interface Row {
  readonly name: string;
  readonly shape: Shape | 'lookalike';
  /** Arrange commands; `{k}` is the case's key base. */
  readonly seed: readonly (readonly JsonArg[])[];
  readonly read: readonly JsonArg[];
  readonly reply: Reply;
}

const bytes = (...values: number[]) => Uint8Array.from(values);
const lookalikes = allOf('lookalike');
/** Lua's string.char of the bytes, for seeding values JSON cannot carry. */
const lua = (value: Uint8Array) => `string.char(${[...value].join(',')})`;
const bad = {
  a: bytes(97, 0xff, 98),
  b: bytes(0xc8),
  c: bytes(99, 0xe2, 0x82),
  f: bytes(102, 0xff),
  v: bytes(0xfe, 118),
};

const rows: readonly Row[] = [
  { name: 'null', shape: 'null', seed: [], read: ['GET', '{k}:missing'], reply: null },
  { name: 'integer', shape: 'integer', seed: [['SET', '{k}:s', 'hello']], read: ['STRLEN', '{k}:s'], reply: 5 },
  {
    name: 'string',
    shape: 'string',
    seed: [['SET', '{k}:t', 'hello world']],
    read: ['GET', '{k}:t'],
    reply: 'hello world',
  },
  { name: 'empty-string', shape: 'empty-string', seed: [['SET', '{k}:e', '']], read: ['GET', '{k}:e'], reply: '' },
  { name: 'ok-simple', shape: 'ok-simple', seed: [], read: ['SET', '{k}:w', 'v'], reply: { simple: 'OK' } },
  {
    name: 'string-array',
    shape: 'string-array',
    seed: [['RPUSH', '{k}:l', 'a', 'b', 'c']],
    read: ['LRANGE', '{k}:l', '0', '-1'],
    reply: ['a', 'b', 'c'],
  },
  {
    name: 'array-with-nulls',
    shape: 'array-with-nulls',
    seed: [['SET', '{k}:n', 'here']],
    read: ['MGET', '{k}:n', '{k}:missing', '{k}:n'],
    reply: ['here', null, 'here'],
  },
  { name: 'empty-array', shape: 'empty-array', seed: [], read: ['LRANGE', '{k}:none', '0', '-1'], reply: [] },
  {
    name: 'nested-2',
    shape: 'nested-2',
    seed: [],
    read: ['EVAL', "return {'a', {'b', 'c'}}", '0'],
    reply: ['a', ['b', 'c']],
  },
  {
    name: 'nested-3',
    shape: 'nested-3',
    seed: [['XADD', '{k}:x', '1-1', 'f', 'v']],
    read: ['XRANGE', '{k}:x', '-', '+'],
    reply: [['1-1', ['f', 'v']]],
  },
  {
    name: 'error',
    shape: 'error',
    seed: [['SET', '{k}:i', 'not a number']],
    read: ['INCR', '{k}:i'],
    reply: { error: true },
  },
  // The same shapes holding bytes that are not UTF-8 (seeded by script: JSON cannot carry them).
  {
    name: 'string-bytes',
    shape: 'string',
    seed: [['EVAL', `redis.call('SET', KEYS[1], ${lua(bad.a)}) return 1`, '1', '{k}:b']],
    read: ['GET', '{k}:b'],
    reply: bad.a,
  },
  {
    name: 'string-array-bytes',
    shape: 'string-array',
    seed: [['EVAL', `return redis.call('RPUSH', KEYS[1], ${lua(bad.b)}, 'x', ${lua(bad.c)})`, '1', '{k}:lb']],
    read: ['LRANGE', '{k}:lb', '0', '-1'],
    reply: [bad.b, 'x', bad.c],
  },
  {
    name: 'array-with-nulls-bytes',
    shape: 'array-with-nulls',
    seed: [['EVAL', `redis.call('SET', KEYS[1], ${lua(bad.a)}) return 1`, '1', '{k}:nb']],
    read: ['MGET', '{k}:missing', '{k}:nb'],
    reply: [null, bad.a],
  },
  {
    name: 'nested-2-bytes',
    shape: 'nested-2',
    seed: [],
    read: ['EVAL', `return {${lua(bad.a)}, {${lua(bad.b)}, 'ok'}}`, '0'],
    reply: [bad.a, [bad.b, 'ok']],
  },
  {
    name: 'nested-3-bytes',
    shape: 'nested-3',
    seed: [['EVAL', `return redis.call('XADD', KEYS[1], '1-1', ${lua(bad.f)}, ${lua(bad.v)})`, '1', '{k}:xb']],
    read: ['XRANGE', '{k}:xb', '-', '+'],
    reply: [['1-1', [bad.f, bad.v]]],
  },
  // Values that look like special replies: strings all the same.
  {
    name: 'lookalikes',
    shape: 'lookalike',
    seed: [['MSET', ...lookalikes.flatMap((value, index) => [`{k}:L${index}`, value])]],
    read: ['MGET', ...lookalikes.map((_, index) => `{k}:L${index}`)],
    reply: [...lookalikes],
  },
  ...lookalikes.map((value, index) => ({
    name: `lookalike ${JSON.stringify(value)}`,
    shape: 'lookalike' as const,
    seed: [],
    read: ['GET', `{k}:L${index}`],
    reply: value,
  })),
];

const hasBytes = (reply: Reply): boolean =>
  reply instanceof Uint8Array ? true : Array.isArray(reply) ? reply.some(hasBytes) : false;
const isNested = (reply: Reply) => Array.isArray(reply) && reply.some(Array.isArray);

/** The reply under base64: every string at any depth, except the OK simple string. */
function asBase64(reply: Reply): unknown {
  if (typeof reply === 'string' || reply instanceof Uint8Array) return toBase64(reply);
  if (Array.isArray(reply)) return reply.map(asBase64);
  return isRecord(reply) && 'simple' in reply ? reply.simple : reply;
}

/** Same nesting, strings anywhere: telling a different JSON form of nesting (not shown) from wrong strings. */
function sameShape(value: unknown, reply: Reply): boolean {
  if (Array.isArray(reply))
    return Array.isArray(value) && value.length === reply.length && reply.every((item, i) => sameShape(value[i], item));
  if (typeof reply === 'string' || reply instanceof Uint8Array || (isRecord(reply) && 'simple' in reply))
    return typeof value === 'string';
  return value === reply;
}

/** The JSON value matches the reply: exact text, integers, nil; bytes as text with U+FFFD. */
function matchesJson(value: unknown, reply: Reply): boolean {
  if (reply instanceof Uint8Array) return typeof value === 'string' && matchReplacement(value, reply) !== 'no';
  if (Array.isArray(reply))
    return (
      Array.isArray(value) && value.length === reply.length && reply.every((item, i) => matchesJson(value[i], item))
    );
  if (isRecord(reply) && 'simple' in reply) return value === reply.simple;
  return value === reply;
}

/** The reply's scalars in order, every array flattened. */
function replyLeaves(reply: Reply): Reply[] {
  return Array.isArray(reply) ? reply.flatMap(replyLeaves) : [reply];
}

/** A scalar of a JSON form against one of the reply, as matchesJson compares them. */
function matchesLeaf(value: unknown, leaf: Reply): boolean {
  return Array.isArray(leaf) ? false : matchesJson(value, leaf) || sameScalar(value, leaf);
}

function resp2Of(reply: Reply): Resp2Value {
  if (Array.isArray(reply)) return reply.map(resp2Of);
  if (isRecord(reply) && 'simple' in reply) return { simple: reply.simple };
  return reply as Resp2Value;
}

/** The rule a JSON value answers to: U+FFFD where the reply holds bytes, else the result's shape. */
const jsonRule = (row: Row) => (hasBytes(row.reply) ? 'B.utf8.replacement' : 'B.response.result-shape');

/** Judges one value read in JSON (`plain`) and its base64 form (`encoded`); returns a note where silent. */
function judge(row: Row, plain: unknown, encoded: unknown, where: string): string | undefined {
  if (isNested(row.reply) && !sameShape(plain, row.reply)) {
    // The JSON form of nesting is not shown: recorded, and base64 then compared only where nesting is
    // kept. Its content is the reply's in any form (nested-reply.ts): dropped, repeated or reordered fails.
    checkThat(
      jsonRule(row),
      sameLeaves(plain, replyLeaves(row.reply), matchesLeaf),
      `${where} ${show(plain)}`,
      `${show(asJsonShown(row.reply))}, or any nesting of the same content in that order`,
    );
    return `${where}: nested reply in JSON as ${show(plain, 80)} (not shown)`;
  }
  checkThat(jsonRule(row), matchesJson(plain, row.reply), `${where} ${show(plain)}`, `${show(asJsonShown(row.reply))}`);
  const want = asBase64(row.reply);
  const okRow = row.shape === 'ok-simple';
  checkThat(
    okRow ? 'B.encoding.base64-ok-plain' : 'B.encoding.base64',
    isDeepStrictEqual(encoded, want),
    `${where}, base64: ${show(encoded)}`,
    `${show(want)}${okRow ? '' : ' (every string base64, at any depth)'}`,
  );
  return undefined;
}

function asJsonShown(reply: Reply): unknown {
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  if (Array.isArray(reply)) return reply.map(asJsonShown);
  return isRecord(reply) && 'simple' in reply ? reply.simple : reply;
}

function withKey(command: readonly JsonArg[], base: string): JsonArg[] {
  return command.map((arg) => (typeof arg === 'string' ? arg.replaceAll('{k}', base) : arg));
}

/** The whole-answer cells: JSON, base64 and resp2 for each row, one request each. */
function replyCells(kv: KvClient, base: string): BatchCell[] {
  return rows.map((row) => ({
    name: `POST / ${row.name}`,
    async check() {
      const read = withKey(row.read, base);
      const [plainRes, encodedRes, rawRes] = [
        await kv.root(read),
        await kv.root(read, { encoding: 'base64' }),
        await kv.root(read, { format: 'resp2' }),
      ];
      if (row.shape === 'error') {
        checkStatus('B.status.exec-failure-400', plainRes, 400, 'JSON');
        // resp2's error is the protocol's error line; a JSON {error} there is recorded (not shown either way).
        if (isResp2Error(rawRes.body)) return undefined;
        if (isRecord(jsonOf(rawRes))) return 'an error under resp2 answered as a JSON {error}';
        throw new CheckFailure('B.format.resp2', describe(rawRes), 'a RESP2 error line (-CLASS text\\r\\n)', 'resp2');
      }
      const note = judge(
        row,
        resultOf(jsonRule(row), plainRes, 'JSON'),
        resultOf('B.encoding.base64', encodedRes),
        'result',
      );
      checkContentType('B.format.resp2', rawRes, 'application/octet-stream', 'resp2');
      const want = resp2(resp2Of(row.reply));
      checkThat('B.format.resp2', rawRes.body.equals(want), `resp2 ${show(rawRes.body)}`, show(want));
      return note;
    },
  }));
}

/** The item cells: all rows' reads in one /pipeline or /multi-exec, in JSON and under base64. */
function itemCells(kv: KvClient, base: string, container: Exclude<Container, 'reply'>): BatchCell[] {
  const rule = container === 'pipeline-item' ? 'B.pipeline.order' : 'B.multi-exec.results';
  const send = (options: { encoding?: string }) => {
    const commands = rows.map((row) => withKey(row.read, base));
    return container === 'pipeline-item' ? kv.pipeline(commands, options) : kv.multiExec(commands, options);
  };
  let answers: Promise<[HttpResponse, HttpResponse]> | undefined;
  return rows.map((row, index) => ({
    name: `${container} ${row.name}`,
    async check() {
      answers ??= Promise.all([send({}), send({ encoding: 'base64' })]);
      const [plainRes, encodedRes] = await answers;
      const plain = itemsOf(rule, plainRes, rows.length, 'JSON')[index];
      const encoded = itemsOf(rule, encodedRes, rows.length, 'base64')[index];
      if (row.shape === 'error') {
        checkThat(rule, plain !== undefined && 'error' in plain, `item ${index + 1} ${show(plain)}`, 'an {error} item');
        return undefined;
      }
      const where = `item ${index + 1}`;
      if (plain === undefined || !('result' in plain))
        throw new CheckFailure(rule, `${where} ${show(plain)}`, 'a {result} item');
      if (encoded === undefined || !('result' in encoded))
        throw new CheckFailure('B.encoding.base64', `${where}, base64: ${show(encoded)}`, 'a {result} item');
      return judge(row, plain.result, encoded.result, where);
    },
  }));
}

const byteShapes = ['string', 'string-array', 'array-with-nulls', 'nested-2', 'nested-3'] as const;

function containerCase(container: Container): ConformanceCase {
  const own =
    container === 'pipeline-item'
      ? 'B.pipeline.order'
      : container === 'multi-exec-item'
        ? 'B.multi-exec.results'
        : undefined;
  const covers = [
    cover('B.encoding.base64', { 'reply-shape': allOf('reply-shape'), container: [container] }),
    cover('B.encoding.base64-ok-plain', { container: [container] }),
    cover('B.utf8.replacement', { 'reply-shape': byteShapes, container: [container] }),
    ...(own === undefined
      ? [
          cover('B.response.result-shape', { 'reply-shape': allOf('reply-shape') }),
          cover('B.response.result-shape', { lookalike: lookalikes }),
          cover('B.encoding.base64', { lookalike: lookalikes }),
          cover('B.format.resp2', { 'reply-shape': allOf('reply-shape'), container: ['reply'] }),
          cover('B.format.resp2', { lookalike: lookalikes }),
        ]
      : [cover(own, { 'reply-shape': allOf('reply-shape') })]),
  ];
  const rules = [
    ...new Set([...covers.map((item) => item.rule), ...(own === undefined ? ['B.status.exec-failure-400'] : [])]),
  ];
  return {
    id: `kv.reply-matrix.${container}`,
    rules,
    covers,
    title: `Every reply shape, byte class and lookalike value as ${container === 'reply' ? 'a whole answer' : `a ${container}`}: JSON, base64${container === 'reply' ? ', resp2' : ''}`,
    expect:
      'JSON gives each flat reply exactly (a lookalike value as the same string, invalid UTF-8 as U+FFFD); base64 encodes every string at any depth, "OK" values too, except the OK reply; resp2 gives the exact bytes.',
    async run(ctx) {
      const kv = createKvClient(ctx);
      const base = keySpace(ctx, kv).key('rm');
      ctx.onCleanup(async () => {
        const names = ['missing', 's', 't', 'e', 'w', 'l', 'n', 'none', 'x', 'i', 'b', 'lb', 'nb', 'xb'];
        await kv.root(['DEL', ...names.map((name) => `${base}:${name}`), ...lookalikes.map((_, i) => `${base}:L${i}`)]);
      });
      await steps(
        kv,
        rows.flatMap((row) => row.seed.map((command) => withKey(command, base))),
      );
      // The positive: the plainest read answers, so every cell is about its shape and encoding.
      await means(async () => {
        const res = await kv.root(['GET', `${base}:t`]);
        checkThat(
          'B.root.json-array',
          isDeepStrictEqual(jsonOf(res), { result: 'hello world' }),
          describe(res),
          '{"result":"hello world"}',
        );
      });
      if (own !== undefined) {
        // The plainest container answers one plain item, so a target without the endpoint blocks the
        // case (the endpoint's own cases fail it) instead of failing every cell of its shapes.
        await means(async () => {
          const read = [['GET', `${base}:t`]];
          const res = container === 'pipeline-item' ? await kv.pipeline(read) : await kv.multiExec(read);
          const [item] = itemsOf(own, res, 1, 'JSON');
          checkThat(
            own,
            isDeepStrictEqual(item, { result: 'hello world' }),
            describe(res),
            '[{"result":"hello world"}]',
          );
        });
      }
      await runCells(ctx, container === 'reply' ? replyCells(kv, base) : itemCells(kv, base, container));
    },
  };
}

const requirements: Requirements = {
  // Its replies are made by EVAL too (a means: the scripting group's own case judges it).
  'kv.reply-matrix.pipeline-item': ['root-form', 'scripting', 'pipeline'],
  'kv.reply-matrix.multi-exec-item': ['root-form', 'scripting', 'multi-exec'],
  '*': ['root-form', 'scripting'],
};

export const cases = withRequirements(requirements, defineCases(allOf('container').map(containerCase)));
