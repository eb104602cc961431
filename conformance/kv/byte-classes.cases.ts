/**
 * Every byte class × every place an argument travels (issue 20, coverage by construction): a path
 * segment (strictly percent-encoded, and with RFC 3986's sub-delimiters such as `+`, `=`, `&` left
 * raw, as a path allows), the POST body, a query pair, a `POST /` JSON string. Each value is written
 * through its place and read back as base64 through `POST /`, so the exact bytes are compared; values
 * mixing the classes come from fast-check with the fixed seed.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type Arg,
  type ConformanceCase,
  commandPath,
  defineCases,
  encodeSegment,
  type HttpResponse,
  means,
  show,
  toBase64,
} from '../../src/suite-kit/suite-api.ts';
import { allOf, cover } from '../rules/dimensions.ts';
import { argBytes, type ByteClass, byteClassSamples, joinArgs, mixedBytes } from '../support/byte-classes.ts';
import { type BatchCell, runCells } from '../support/cell-batch.ts';
import { type KeySpace, keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkResult, checkThat, resultOf } from '../support/kv-checks.ts';
import { createKvClient, type KvClient } from '../support/kv-client.ts';
import { pathFormRuns } from '../support/kv-steps.ts';

type Place = 'path-segment' | 'post-body' | 'query-pair' | 'root-json';

interface PlaceSpec {
  readonly rule: string;
  readonly title: string;
  /** Classes the place's rule does not speak of (kv-dimensions.ts says why). */
  readonly skip: readonly ByteClass[];
  /** Writes `value` under `key` through the place; each answer must be a success. */
  write(kv: KvClient, key: string, value: Arg): Promise<{ readonly res: HttpResponse; readonly expected: unknown }[]>;
  /** Where the value lands: the key, or a hash field of it. */
  readonly readBack: (key: string, value: Arg) => readonly string[];
}

/**
 * A path segment with RFC 3986's sub-delimiters (and `:`, `@`) left raw, as a path allows them; all
 * but `;`, which servers in the Java tradition take as the start of path parameters.
 */
function lenientSegment(arg: Arg): string {
  return encodeSegment(arg).replace(/%(2B|3D|26|21|24|27|28|29|2A|2C|3A|40)/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

const places: Record<Place, PlaceSpec> = {
  'path-segment': {
    rule: 'B.path.percent-decoding',
    title: 'a path segment (strict and with sub-delimiters raw)',
    skip: ['empty'],
    async write(kv, key, value) {
      const strict = await kv.path('POST', ['set', key, value]);
      const raw = await kv.raw({
        method: 'POST',
        path: `${commandPath(['set', `${key}:raw`])}/${lenientSegment(value)}`,
      });
      return [
        { res: strict, expected: 'OK' },
        { res: raw, expected: 'OK' },
      ];
    },
    readBack: (key) => [key, `${key}:raw`],
  },
  'post-body': {
    rule: 'B.post.body-last-arg',
    title: 'the POST body',
    skip: ['empty'],
    async write(kv, key, value) {
      return [
        { res: await kv.postBody(['set', key], value), expected: 'OK' },
        { res: await kv.postBody(['hset', `${key}:h`, 'field'], value), expected: 1 },
      ];
    },
    readBack: (key) => [key],
  },
  'query-pair': {
    rule: 'B.post.query-args',
    title: 'a query pair NAME=value',
    skip: ['empty'],
    async write(kv, key, value) {
      // Percent-encoded byte for byte (no `+` for a space): the value is whatever the bytes are.
      const query = `?${encodeSegment(joinArgs('n', value))}=${encodeSegment(value)}`;
      const res = await kv.raw({
        method: 'POST',
        path: `${commandPath(['hset', key, 'f0'])}${query}`,
        body: 'v0',
        contentType: 'text/plain; charset=utf-8',
      });
      return [{ res, expected: 2 }];
    },
    readBack: () => [],
  },
  'root-json': {
    rule: 'B.root.json-array',
    title: 'a POST / JSON string',
    skip: ['invalid-utf8'],
    async write(kv, key, value) {
      const text = value as string;
      return [
        { res: await kv.root(['SET', key, text]), expected: 'OK' },
        { res: await kv.root(['ECHO', text]), expected: text },
      ];
    },
    readBack: (key) => [key],
  },
};

async function readBase64(kv: KvClient, rule: string, command: readonly string[], expected: unknown, where: string) {
  checkResult(rule, await kv.root(command, { encoding: 'base64' }), expected, where);
}

function cellsFor(kv: KvClient, keys: KeySpace, place: Place): BatchCell[] {
  const spec = places[place];
  const classes = allOf('byte-class').filter((name) => !spec.skip.includes(name));
  const values: [string, Arg][] = [
    ...classes.map((name): [string, Arg] => [name, byteClassSamples[name]]),
    ...mixedBytes(8, classes).map((value, index): [string, Arg] => [`mixed ${index + 1} ${describeArg(value)}`, value]),
  ];
  return values.map(([name, value], index) =>
    cellFor(kv, keys, place, `${place} ${name}`, keys.key(`bc:${index}`), value),
  );
}

/** Writes one value through the place and reads its bytes back as base64. */
function cellFor(kv: KvClient, keys: KeySpace, place: Place, name: string, key: string, value: Arg): BatchCell {
  const spec = places[place];
  return {
    name,
    async check() {
      keys.track(`${key}:raw`, `${key}:h`);
      for (const [at, { res, expected }] of (await spec.write(kv, key, value)).entries()) {
        checkResult(spec.rule, res, expected, `write ${at + 1}`);
      }
      const encoded = toBase64(argBytes(value));
      for (const read of spec.readBack(key, value))
        await readBase64(kv, spec.rule, ['GET', read], encoded, `GET ${read.slice(key.length) || 'key'}, base64`);
      if (place === 'post-body')
        await readBase64(kv, spec.rule, ['HGET', `${key}:h`, 'field'], encoded, 'HGET field, base64');
      if (place === 'query-pair') {
        // A hash holding a long value is no longer kept in insertion order: the pairs are compared as a set.
        const want = [['f0', 'v0'].map((text) => toBase64(text)), [toBase64(argBytes(joinArgs('n', value))), encoded]];
        const got = resultOf(spec.rule, await kv.root(['HGETALL', key], { encoding: 'base64' }), 'HGETALL, base64');
        const pairs = Array.isArray(got) ? [0, 2].map((at) => got.slice(at, at + 2)) : got;
        const sorted = (list: unknown) =>
          Array.isArray(list) ? list.map((pair) => JSON.stringify(pair)).sort() : list;
        checkThat(
          spec.rule,
          isDeepStrictEqual(sorted(pairs), sorted(want)) && Array.isArray(got) && got.length === 4,
          `HGETALL, base64: ${show(got)}`,
          `the pairs ${show(want)}`,
        );
      }
      return undefined;
    },
  };
}

function describeArg(value: Arg): string {
  return typeof value === 'string'
    ? JSON.stringify(value.length > 24 ? `${value.slice(0, 24)}…` : value)
    : `bytes ${Buffer.from(value).toString('hex')}`;
}

function placeCase(place: Place): ConformanceCase {
  const spec = places[place];
  const classes = allOf('byte-class').filter((name) => !spec.skip.includes(name));
  return {
    id: `kv.byte-classes.${place}`,
    rules: [spec.rule],
    covers: [cover(spec.rule, { 'byte-class': classes })],
    title: `Every byte class through ${spec.title}`,
    expect: `Each class (${classes.join(', ')}) and fast-check mixes of them arrive as exactly the bytes sent, read back as base64.`,
    async run(ctx) {
      const kv = createKvClient(ctx);
      const keys = keySpace(ctx, kv);
      // The positives: POST / reads back (every cell's means), and the place's plainest use works.
      const probe = keys.key('bc:probe');
      await means(async () => {
        checkResult('B.root.json-array', await kv.root(['SET', probe, 'plain']), 'OK', 'SET by POST /');
        checkResult(
          'B.encoding.base64',
          await kv.root(['GET', probe], { encoding: 'base64' }),
          toBase64('plain'),
          'GET, base64',
        );
      });
      if (place === 'path-segment') await pathFormRuns(kv);
      // The place this one builds on goes first with a plain value (the body needs the path; a query
      // pair, the body): a target that breaks that is blocked here, not blamed on this rule.
      const base: Place | undefined =
        place === 'post-body' ? 'path-segment' : place === 'query-pair' ? 'post-body' : undefined;
      if (base !== undefined) {
        await means(async () => void (await cellFor(kv, keys, base, 'plain', keys.key('bc:plain'), 'plain').check()));
      }
      await runCells(ctx, cellsFor(kv, keys, place));
    },
  };
}

const requirements: Requirements = {
  // The body's and the query pair's keys are path segments too; the path segment's own case judges
  // percent-decoding (B.path.percent-decoding), so it rests only on what its positives check.
  'kv.byte-classes.post-body': ['percent-decoding'],
  'kv.byte-classes.query-pair': ['percent-decoding'],
  '*': ['plain-replies'],
};

export const cases = withRequirements(
  requirements,
  defineCases((['path-segment', 'post-body', 'query-pair', 'root-json'] as const).map(placeCase)),
);
