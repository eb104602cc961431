/**
 * Spec "Endpoints > Area B" rule 5, command support: one case per supported group (a family from a
 * table), the JSON group, and one case per kind of refused command the spec names.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type CaseContext,
  type ConformanceCase,
  defineCases,
  type HttpResponse,
  show,
} from '../../src/suite-kit/suite-api.ts';
import { keySpace } from '../support/key-space.ts';
import { type Requirements, withRequirements } from '../support/kv-capabilities.ts';
import { checkDiscarded, checkRefusal, checkResult, checkThat, isSuccess, resultOf } from '../support/kv-checks.ts';
import { createKvClient, type JsonArg, type KvClient } from '../support/kv-client.ts';
import { pathFormAvailable, step, steps, transactionRuns } from '../support/kv-steps.ts';
import { checkNestedForm } from '../support/nested-reply.ts';

/** What a step must answer: the result itself, a predicate over it, or a nested reply (see `nested`). */
type Expected = unknown;

/**
 * A nested reply (see nested-reply.ts): another nesting of the same content in the same order is
 * observed (its form is not shown); one that drops, adds or reorders content fails the group's rule.
 */
class Nested {
  readonly reply: unknown;
  constructor(reply: unknown) {
    this.reply = reply;
  }
}
const nested = (reply: unknown) => new Nested(reply);

interface GroupRow {
  readonly group: string;
  /** Commands in order with what each answers; `{k}` and `{k2}` are the case's keys, in results too. */
  readonly steps: readonly (readonly [command: readonly JsonArg[], result: Expected])[];
}

const isNumericString = (value: unknown) => typeof value === 'string' && Number.isFinite(Number(value));
/** A score or a distance: a double, which JSON may carry as its text (RESP2) or as a number. */
const isNumber =
  (want: number, within = 0) =>
  (value: unknown) =>
    (typeof value === 'number' || isNumericString(value)) && Math.abs(Number(value) - want) <= within;

/**
 * A representative of each group rule 5 lists as supported (JSON has its own rule and case). Every step's
 * result is checked, not only the last: a target that runs a command and answers it wrongly does not
 * support it.
 */
const groupRows: readonly GroupRow[] = [
  {
    group: 'string',
    steps: [
      [['SET', '{k}', 'ab'], 'OK'],
      [['APPEND', '{k}', 'c'], 3],
      [['GETRANGE', '{k}', '1', '2'], 'bc'],
    ],
  },
  {
    group: 'bitmap',
    steps: [
      [['SETBIT', '{k}', '7', '1'], 0],
      [['SETBIT', '{k}', '9', '1'], 0],
      [['BITCOUNT', '{k}'], 2],
    ],
  },
  {
    group: 'hash',
    steps: [
      [['HSET', '{k}', 'f', 'v', 'g', 'w'], 2],
      [['HINCRBY', '{k}', 'n', '5'], 5],
      [['HLEN', '{k}'], 3],
    ],
  },
  {
    group: 'list',
    steps: [
      [['RPUSH', '{k}', 'a', 'b', 'c'], 3],
      [['LPOP', '{k}'], 'a'],
      [
        ['LRANGE', '{k}', '0', '-1'],
        ['b', 'c'],
      ],
    ],
  },
  {
    group: 'set',
    steps: [
      [['SADD', '{k}', 'a', 'b', 'a'], 2],
      [['SISMEMBER', '{k}', 'b'], 1],
      [['SCARD', '{k}'], 2],
    ],
  },
  {
    group: 'sorted-set',
    steps: [
      [['ZADD', '{k}', '2', 'two', '1', 'one'], 2],
      [['ZINCRBY', '{k}', '5', 'one'], isNumber(6)],
      [
        ['ZRANGE', '{k}', '0', '-1'],
        ['two', 'one'],
      ],
    ],
  },
  {
    group: 'geo',
    steps: [
      [['GEOADD', '{k}', '13.361389', '38.115556', 'Palermo', '15.087269', '37.502669', 'Catania'], 2],
      [['GEODIST', '{k}', 'Palermo', 'Catania', 'km'], isNumber(166.27, 0.1)],
    ],
  },
  {
    group: 'hyperloglog',
    steps: [
      [['PFADD', '{k}', 'a', 'b', 'c', 'a'], 1],
      [['PFCOUNT', '{k}'], 3],
    ],
  },
  {
    group: 'generic',
    steps: [
      [['SET', '{k}', 'v'], 'OK'],
      [['EXPIRE', '{k}', '100'], 1],
      [['RENAME', '{k}', '{k2}'], 'OK'],
      [['TYPE', '{k2}'], 'string'],
    ],
  },
  {
    group: 'server',
    steps: [[['TIME'], (value: unknown) => Array.isArray(value) && value.length === 2 && value.every(isNumericString)]],
  },
  {
    group: 'scripting',
    steps: [
      [['EVAL', "return redis.call('SET', KEYS[1], ARGV[1])", '1', '{k}', 'lua'], 'OK'],
      [['GET', '{k}'], 'lua'],
    ],
  },
  { group: 'pub-sub', steps: [[['PUBLISH', '{k}', 'nobody listens'], 0]] },
  {
    group: 'stream',
    steps: [
      [['XADD', '{k}', '1-1', 'field', 'value'], '1-1'],
      [['XGROUP', 'CREATE', '{k}', 'group', '0'], 'OK'],
      [
        ['XREADGROUP', 'GROUP', 'group', 'consumer', 'COUNT', '1', 'STREAMS', '{k}', '>'],
        nested([['{k}', [['1-1', ['field', 'value']]]]]),
      ],
      [['XREAD', 'COUNT', '1', 'STREAMS', '{k}', '0'], nested([['{k}', [['1-1', ['field', 'value']]]]])],
      [['XLEN', '{k}'], 1],
    ],
  },
];

/** The case's keys in place of `{k}` and `{k2}`, at any depth. */
function withNames(value: unknown, names: Readonly<Record<string, string>>): unknown {
  if (Array.isArray(value)) return value.map((item) => withNames(item, names));
  return typeof value === 'string' ? (names[value] ?? value) : value;
}

function checkStep(ctx: CaseContext, command: readonly JsonArg[], got: unknown, expected: Expected): void {
  const name = String(command[0]);
  const rule = 'B.commands.supported-groups';
  if (expected instanceof Nested) {
    checkNestedForm(ctx, rule, got, expected.reply, name);
    return;
  }
  const ok =
    typeof expected === 'function' ? (expected as (v: unknown) => boolean)(got) : isDeepStrictEqual(got, expected);
  checkThat(
    rule,
    ok,
    `result ${show(got, 160)}`,
    `result ${typeof expected === 'function' ? 'as the protocol gives' : show(expected, 160)}`,
    name,
  );
}

function groupCase(row: GroupRow): ConformanceCase {
  return {
    id: `kv.commands.group.${row.group}`,
    rules: ['B.commands.supported-groups'],
    title: `The ${row.group} command group is supported`,
    expect: `${row.steps.map(([c]) => c[0]).join(', ')} run and each gives the protocol's result.`,
    async run(ctx) {
      const kv = createKvClient(ctx);
      const keys = keySpace(ctx, kv);
      const names: Record<string, string> = { '{k}': keys.key('k'), '{k2}': keys.key('k2') };
      for (const [command, expected] of row.steps) {
        const named = withNames(command, names) as JsonArg[];
        const got = await step(kv, named, { rule: 'B.commands.supported-groups' });
        checkStep(ctx, named, got, expected instanceof Nested ? nested(withNames(expected.reply, names)) : expected);
      }
    },
  };
}

interface RefusedRow {
  readonly name: string;
  readonly rule: string;
  /** The command; `{k}` is a key of the case. Timeouts are short, so a target that runs it still answers. */
  readonly command: readonly string[];
  /** Commands run first, so that the refused one would succeed if it ran. */
  readonly arrange?: readonly (readonly string[])[];
  /**
   * For a command that changes the state of the connection it runs on: how to put that state back
   * when a broken target runs it (see sharedState below). Called only when the command was accepted.
   */
  readonly restore?: (kv: KvClient, ctx: CaseContext, marker: string) => Promise<void>;
}

/**
 * Cases must not change one another's verdicts. A broken target may run every command on the ONE
 * Redis connection it shares between all requests (up-redis does): `HELLO 2` would switch that
 * connection to RESP2 for every later case, `SELECT 0` move it to another database, `READONLY` make
 * it a replica reader. The connection and cluster rows are therefore chosen or undone so that a
 * target that runs them is left as it was:
 * - HELLO is sent without a protocol version: a HELLO that runs answers the connection's properties
 *   and switches nothing (Redis ≥ 6.2), and still proves HELLO is not refused;
 * - SELECT is undone: a marker key written before tells whether the connection moved, and SELECT of
 *   each database in turn (Redis has 16 by default) finds the one holding the marker again;
 * - READONLY is undone by READWRITE, and ASKING (a flag for the next command only) is used up by a PING;
 * - CLIENT ID, CLIENT GETNAME, CLUSTER INFO and CLUSTER KEYSLOT only read.
 * Running these rows last was the other way, but "last in the run" is an order across suite files,
 * which vitest's sequencer decides, and it would still leave a broken connection to the cases of a
 * later run against the same target. A blind restore (HELLO 3, SELECT 0) would guess a state the
 * suite cannot know: the undo above is driven by what the target showed (the marker, an accepted answer).
 */
const sharedState = {
  async select(kv: KvClient, ctx: CaseContext, marker: string): Promise<void> {
    const here = async () => {
      const res = await kv.root(['GET', marker]);
      return isSuccess(res) && resultOf('B.root.json-array', res) === 'here';
    };
    if (await here()) return;
    for (let db = 0; db < 16; db++) {
      await kv.root(['SELECT', String(db)]);
      if (await here()) {
        ctx.observe(`SELECT ran and moved the target's connection; database ${db} selected again`);
        return;
      }
    }
    ctx.observe("SELECT ran and moved the target's connection; the database could not be found again");
  },
  async readonly(kv: KvClient): Promise<void> {
    await kv.root(['READWRITE']);
  },
  async asking(kv: KvClient): Promise<void> {
    await kv.root(['PING']);
  },
};

/** Every command rule 5 names as not supported (connection and cluster groups by example). */
const refusedRows: readonly RefusedRow[] = [
  { name: 'blpop', rule: 'B.commands.blocking-list-refused', command: ['BLPOP', '{k}', '0.1'] },
  { name: 'brpop', rule: 'B.commands.blocking-list-refused', command: ['BRPOP', '{k}', '0.1'] },
  { name: 'brpoplpush', rule: 'B.commands.blocking-list-refused', command: ['BRPOPLPUSH', '{k}', '{k}', '0.1'] },
  { name: 'bzpopmax', rule: 'B.commands.blocking-zset-refused', command: ['BZPOPMAX', '{k}', '0.1'] },
  { name: 'bzpopmin', rule: 'B.commands.blocking-zset-refused', command: ['BZPOPMIN', '{k}', '0.1'] },
  {
    name: 'xread-block',
    rule: 'B.commands.blocking-stream-refused',
    command: ['XREAD', 'BLOCK', '100', 'STREAMS', '{k}', '$'],
    arrange: [['XADD', '{k}', '*', 'f', 'v']],
  },
  {
    name: 'xreadgroup-block',
    rule: 'B.commands.blocking-stream-refused',
    command: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '100', 'STREAMS', '{k}', '>'],
    arrange: [['XGROUP', 'CREATE', '{k}', 'g', '$', 'MKSTREAM']],
  },
  {
    name: 'select',
    rule: 'B.commands.connection-only-ping-echo',
    command: ['SELECT', '0'],
    restore: sharedState.select,
  },
  { name: 'client-id', rule: 'B.commands.connection-only-ping-echo', command: ['CLIENT', 'ID'] },
  { name: 'client-getname', rule: 'B.commands.connection-only-ping-echo', command: ['CLIENT', 'GETNAME'] },
  { name: 'hello', rule: 'B.commands.connection-only-ping-echo', command: ['HELLO'] },
  { name: 'cluster-info', rule: 'B.commands.cluster-refused', command: ['CLUSTER', 'INFO'] },
  { name: 'cluster-keyslot', rule: 'B.commands.cluster-refused', command: ['CLUSTER', 'KEYSLOT', '{k}'] },
  { name: 'readonly', rule: 'B.commands.cluster-refused', command: ['READONLY'], restore: sharedState.readonly },
  { name: 'asking', rule: 'B.commands.cluster-refused', command: ['ASKING'], restore: sharedState.asking },
];

function refusedCase(row: RefusedRow): ConformanceCase {
  return {
    id: `kv.commands.refused.${row.name}`,
    // The refusal's status and body are checked too, each under its own rule (checkRefusal).
    rules: [row.rule, 'B.status.unsupported-400', 'B.response.error-shape', 'B.errors.class-token'],
    title: `${row.command.slice(0, 2).join(' ')} is not supported`,
    expect: `${row.command[0]} answers 400 with an {error} object, in POST / and in the path form.`,
    async run(ctx) {
      const kv = createKvClient(ctx);
      const keys = keySpace(ctx, kv);
      const key = keys.key('k');
      const marker = keys.key('marker');
      const withKey = (command: readonly string[]) => command.map((arg) => (arg === '{k}' ? key : arg));
      // The positive first: POST / runs a command; a target refusing everything proves nothing.
      await steps(kv, [
        ['PING'],
        ...(row.arrange ?? []).map(withKey),
        ...(row.restore ? [['SET', marker, 'here']] : []),
      ]);
      const send = async (how: () => Promise<HttpResponse>) => {
        const res = await how();
        if (row.restore && res.status >= 200 && res.status < 300) await row.restore(kv, ctx, marker);
        return res;
      };
      checkRefusal(row.rule, await send(() => kv.root(withKey(row.command))), {
        context: 'POST /',
        observe: ctx.observe,
      });
      // The path form is another way to send the same command; where the target lacks it, the rule
      // held on POST / and the path form's absence is its own case's failure (B.methods.allowed).
      if (await pathFormAvailable(kv)) {
        checkRefusal(row.rule, await send(() => kv.path('POST', withKey(row.command))), {
          context: 'path form',
          observe: ctx.observe,
        });
      } else ctx.observe('the path form is not available: checked on POST / only');
    },
  };
}

const requirements: Requirements = {
  // The scripting group's own case judges EVAL (B.commands.supported-groups), so no case here rests on it.
  '*': ['root-form'],
  'kv.commands.transaction-refused.watch': ['root-form', 'multi-exec'],
  'kv.commands.transaction-refused.unwatch': ['root-form', 'multi-exec'],
  'kv.commands.transaction-refused.discard': ['root-form', 'multi-exec'],
};

export const cases = withRequirements(
  requirements,
  defineCases([
    ...groupRows.map(groupCase),
    {
      id: 'kv.commands.json-group',
      rules: ['B.commands.json-group'],
      title: 'The JSON command group is supported',
      expect: 'JSON.SET, JSON.NUMINCRBY, JSON.GET and JSON.TYPE run on a document.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const key = keySpace(ctx, kv).key('doc');
        const rule = 'B.commands.json-group';
        checkResult(rule, await kv.root(['JSON.SET', key, '$', '{"name":"svc","n":1,"tags":["a"]}']), 'OK', 'JSON.SET');
        resultOf(rule, await kv.root(['JSON.NUMINCRBY', key, '$.n', '2']), 'JSON.NUMINCRBY');
        const doc = resultOf(rule, await kv.root(['JSON.GET', key, '$']), 'JSON.GET');
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(doc));
        } catch {
          parsed = undefined;
        }
        // `$` answers a one-item array in current JSON modules and the document itself in older ones;
        // key order inside a JSON document is not part of its value.
        const expected = { name: 'svc', n: 3, tags: ['a'] };
        const documentOf = Array.isArray(parsed) && parsed.length === 1 ? parsed[0] : parsed;
        checkThat(
          rule,
          isDeepStrictEqual(documentOf, expected),
          `JSON.GET ${String(doc)}`,
          `${JSON.stringify([expected])} (or the document alone)`,
        );
        const type = resultOf(rule, await kv.root(['JSON.TYPE', key, '$.tags']), 'JSON.TYPE');
        checkThat(
          rule,
          JSON.stringify(type) === '["array"]' || type === 'array',
          `JSON.TYPE ${JSON.stringify(type)}`,
          '["array"]',
        );
      },
    },
    {
      id: 'kv.commands.ping-echo',
      rules: ['B.commands.connection-only-ping-echo'],
      title: 'PING and ECHO, of the connection group, are supported',
      expect: 'PING answers PONG, PING msg answers msg, ECHO msg answers msg.',
      async run(ctx) {
        const kv = createKvClient(ctx);
        const rule = 'B.commands.connection-only-ping-echo';
        checkResult(rule, await kv.root(['PING']), 'PONG', 'PING');
        checkResult(rule, await kv.root(['PING', 'hello']), 'hello', 'PING hello');
        checkResult(rule, await kv.root(['ECHO', 'echo me']), 'echo me', 'ECHO');
      },
    },
    ...refusedRows.map(refusedCase),
    ...(['WATCH', 'UNWATCH', 'DISCARD'] as const).map(
      (name): ConformanceCase => ({
        id: `kv.commands.transaction-refused.${name.toLowerCase()}`,
        rules: ['B.commands.transaction-refused'],
        title: `${name} is not supported in a transaction`,
        expect: `A /multi-exec holding ${name} is refused as a whole: one {error} object, nothing runs.`,
        async run(ctx) {
          const kv = createKvClient(ctx);
          const key = keySpace(ctx, kv).key('first');
          const command = name === 'WATCH' ? [name, key] : [name];
          const rule = 'B.commands.transaction-refused';
          await transactionRuns(kv, key);
          await kv.root(['DEL', key]);
          const res = await kv.multiExec([['SET', key, 'v'], command, ['GET', key]]);
          checkDiscarded(rule, res, undefined, ctx.observe);
          checkResult(rule, await kv.root(['EXISTS', key]), 0, 'the SET must not have run');
        },
      }),
    ),
  ]),
);
