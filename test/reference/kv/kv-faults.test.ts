/**
 * Every area B fault switch visibly changes behaviour: the same probe, run against a reference with
 * the switch on and one without, gives different observations. Every switch names a real rule.
 */
import { describe, expect, it } from 'vitest';
import { kvRuleCatalog } from '../../../conformance/rules/kv-rules.ts';
import { openSse } from '../../../src/http/sse-client.ts';
import { type KvFaultName, kvFaults } from '../../../src/reference/kv/kv-faults.ts';
import type { ReferenceOptions } from '../../../src/reference/reference-options.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import {
  admin,
  type CallResult,
  call,
  nextMatching,
  openStream,
  startTestReference,
  uniqueKey,
  useTestReference,
} from '../../support/reference-fixture.ts';

type Probe = (ref: RunningReference) => Promise<unknown>;

const status = (res: CallResult) => res.status;
const b64 = { 'Svc-Encoding': 'base64' };
const resp2 = { 'Svc-Response-Format': 'resp2' };
const big = 'x'.repeat(100);
const ro = (ref: RunningReference) => ref.target.kv!.readOnlyToken!;

async function resetDaily(ref: RunningReference): Promise<void> {
  await admin(ref, 'POST', '/limits/reset-daily');
}

async function firstEvent(ref: RunningReference, path: string, after?: () => Promise<unknown>): Promise<string> {
  const stream = await openStream(ref, path);
  try {
    await after?.();
    return await stream.next();
  } finally {
    stream.close();
  }
}

/** The status a stream answers with the token (none when undefined). */
async function streamStatus(ref: RunningReference, path: string, token: string | undefined): Promise<number> {
  const stream = await openSse({
    url: `${ref.target.kv!.url}${path}`,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  stream.close();
  return stream.status;
}

/** Subscribes to `channel`, publishes to each channel in turn, and returns the first message item. */
async function firstMessage(ref: RunningReference, channel: string, publishTo: readonly string[]): Promise<string> {
  const stream = await openStream(ref, `/subscribe/${encodeURIComponent(channel)}`);
  try {
    await stream.next();
    for (const to of publishTo) await call(ref, `/publish/${encodeURIComponent(to)}/to-${encodeURIComponent(to)}`);
    return await nextMatching(stream, (data) => data.startsWith('message,'));
  } finally {
    stream.close();
  }
}

const probes: Record<KvFaultName, { probe: Probe; options?: ReferenceOptions }> = {
  'accept-delete': { probe: async (ref) => status(await call(ref, '/ping', { method: 'DELETE' })) },
  'head-refused': { probe: async (ref) => status(await call(ref, '/ping', { method: 'HEAD' })) },
  'path-args-reversed': { probe: async (ref) => (await call(ref, '/lrange/nothing-here/0/-1')).json },
  'success-status-201': { probe: async (ref) => status(await call(ref, '/ping')) },
  'error-shape-extra-field': { probe: async (ref) => (await call(ref, '/nosuch')).json },
  'syntax-error-200': { probe: async (ref) => status(await call(ref, '/get')) },
  'unsupported-status-500': { probe: async (ref) => status(await call(ref, '/nosuch')) },
  'no-percent-decoding': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/set/${key}/a%20b`);
      return (await call(ref, `/get/${key}`)).json;
    },
  },
  'body-not-last-arg': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/set/${key}`, { body: 'value' });
      return (await call(ref, `/get/${key}`)).json;
    },
  },
  'query-args-ignored': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/set/${key}?EX=100`, { body: 'v' });
      return ((await call(ref, `/ttl/${key}`)).json as { result: number }).result > 0;
    },
  },
  'root-drops-last-arg': { probe: async (ref) => (await call(ref, '/', { body: ['echo', 'a'] })).json },
  'result-wrapped-wrong': { probe: async (ref) => (await call(ref, '/ping')).json },
  'error-without-class-token': { probe: async (ref) => (await call(ref, '/incr/%FF')).json },
  'exec-failure-200': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/set/${key}/text`);
      return status(await call(ref, `/incr/${key}`));
    },
  },
  'pipeline-stops-at-error': {
    probe: async (ref) => (await call(ref, '/pipeline', { body: [['echo', 'a'], ['nosuch'], ['echo', 'b']] })).json,
  },
  'pipeline-error-whole-400': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/set/${key}/text`);
      const res = await call(ref, '/pipeline', {
        body: [
          ['incr', key],
          ['echo', 'after'],
        ],
      });
      return [res.status, res.json];
    },
  },
  'head-failure-200': { probe: async (ref) => status(await call(ref, '/get', { method: 'HEAD' })) },
  'pttl-in-seconds': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/set/${key}/v/PX/100000`);
      return (await call(ref, `/pttl/${key}`)).body.toString();
    },
  },
  'pipeline-reversed-order': {
    probe: async (ref) =>
      (
        await call(ref, '/pipeline', {
          body: [
            ['echo', 'a'],
            ['echo', 'b'],
          ],
        })
      ).json,
  },
  'exec-write-behind': {
    // Held, the increment reaches Redis only with the next flush, as an INCRBY: /monitor shows which.
    probe: async (ref) => {
      const key = uniqueKey('held');
      const stream = await openStream(ref, '/monitor');
      try {
        await stream.next();
        await call(ref, '/multi-exec', { body: [['incr', key]] });
        return /incrby/i.test(await nextMatching(stream, (data) => data.includes(key) && /incr/i.test(data)));
      } finally {
        stream.close();
      }
    },
  },
  'transaction-not-atomic': {
    probe: async (ref) => {
      const marker = uniqueKey('marker');
      const stream = await openStream(ref, '/monitor');
      try {
        await stream.next();
        await call(ref, '/multi-exec', { body: [['echo', marker]] });
        const seen = await nextMatching(stream, (data) => /"multi"/i.test(data) || data.includes(marker));
        return /"multi"/i.test(seen);
      } finally {
        stream.close();
      }
    },
  },
  'transaction-discards-on-runtime-error': {
    probe: async (ref) => {
      const key = uniqueKey();
      return status(
        await call(ref, '/multi-exec', {
          body: [
            ['set', key, 't'],
            ['incr', key],
          ],
        }),
      );
    },
  },
  'transaction-runs-syntax-errors': {
    probe: async (ref) =>
      status(
        await call(ref, '/multi-exec', {
          body: [
            ['echo', 'a'],
            ['set', 'x'],
          ],
        }),
      ),
  },
  'transaction-ignores-unsupported': {
    probe: async (ref) =>
      status(
        await call(ref, '/multi-exec', {
          body: [
            ['echo', 'a'],
            ['blpop', 'x', '1'],
          ],
        }),
      ),
  },
  'transaction-size-limit-in-place': {
    options: { maxRequestBytes: 64 },
    probe: async (ref) =>
      status(
        await call(ref, '/multi-exec', {
          body: [
            ['echo', 'a'],
            ['echo', big],
          ],
        }),
      ),
  },
  'transaction-daily-limit-in-place': {
    options: { dailyRequestLimit: 2 },
    probe: async (ref) => {
      await resetDaily(ref);
      return (
        await call(ref, '/multi-exec', {
          body: [
            ['echo', 'a'],
            ['echo', 'b'],
            ['echo', 'c'],
          ],
        })
      ).json;
    },
  },
  'resp2-on-multi-exec': {
    probe: async (ref) =>
      (await call(ref, '/multi-exec', { body: [['ping']], headers: resp2 })).headers['content-type'],
  },
  'transaction-allows-watch': {
    probe: async (ref) =>
      status(
        await call(ref, '/multi-exec', {
          body: [
            ['watch', 'x'],
            ['echo', 'a'],
          ],
        }),
      ),
  },
  'monitor-drops-ok': {
    probe: async (ref) => (await firstEvent(ref, '/monitor', () => call(ref, '/ping'))) === '"OK"',
  },
  'monitor-unquoted': {
    probe: async (ref) => {
      const marker = uniqueKey('marker');
      const stream = await openStream(ref, '/monitor');
      try {
        await call(ref, `/echo/${marker}`);
        return /"echo" "marker:/.test(await nextMatching(stream, (data) => data.includes(marker)));
      } finally {
        stream.close();
      }
    },
  },
  'subscribe-wrong-count': { probe: async (ref) => firstEvent(ref, '/subscribe/fixed-channel') },
  'message-comma-truncation': {
    probe: async (ref) => {
      const stream = await openStream(ref, '/subscribe/comma-channel');
      try {
        await stream.next();
        await call(ref, '/publish/comma-channel', { body: 'a,b,c' });
        return await stream.next();
      } finally {
        stream.close();
      }
    },
  },
  'publish-result-object': { probe: async (ref) => (await call(ref, `/publish/${uniqueKey()}/m`)).json },
  'info-plain-text': { probe: async (ref) => (await call(ref, '/info')).headers['content-type'] },
  'no-base64': { probe: async (ref) => (await call(ref, '/echo/v', { headers: b64 })).json },
  'base64-encodes-ok': { probe: async (ref) => (await call(ref, `/set/${uniqueKey()}/v`, { headers: b64 })).json },
  'no-utf8-replacement': { probe: async (ref) => (await call(ref, '/echo/a%FF')).json },
  'json-as-text-plain': { probe: async (ref) => (await call(ref, '/ping')).headers['content-type'] },
  'ignore-response-format': { probe: async (ref) => (await call(ref, '/ping', { headers: resp2 })).body.toString() },
  'resp2-labelled-json': {
    probe: async (ref) => (await call(ref, '/ping', { headers: resp2 })).headers['content-type'],
  },
  'accept-invalid-format': {
    probe: async (ref) => status(await call(ref, '/ping', { headers: { 'Svc-Response-Format': 'xml' } })),
  },
  'allow-base64-with-resp2': {
    probe: async (ref) => status(await call(ref, '/ping', { headers: { ...b64, ...resp2 } })),
  },
  'stream-commands-refused': { probe: async (ref) => status(await call(ref, `/xlen/${uniqueKey()}`)) },
  'json-commands-refused': { probe: async (ref) => status(await call(ref, `/json.get/${uniqueKey()}`)) },
  'blpop-allowed': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/rpush/${key}/a`);
      return (await call(ref, `/blpop/${key}/1`)).json;
    },
  },
  'bzpop-allowed': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/zadd/${key}/1/a`);
      return status(await call(ref, `/bzpopmin/${key}/1`));
    },
  },
  'xread-block-allowed': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/xadd/${key}/*/f/v`);
      return status(await call(ref, `/xread/block/10/streams/${key}/0`));
    },
  },
  'connection-commands-allowed': { probe: async (ref) => status(await call(ref, '/client/id')) },
  'bearer-ignored': { probe: async (ref) => status(await call(ref, '/ping')) },
  'query-token-ignored': {
    probe: async (ref) => status(await call(ref, `/ping?_token=${ref.target.kv!.token}`, { token: null })),
  },
  'missing-token-allowed': { probe: async (ref) => status(await call(ref, '/ping', { token: null })) },
  'any-token-allowed': { probe: async (ref) => status(await call(ref, '/ping', { token: 'wrong' })) },
  'readonly-refuses-reads': { probe: async (ref) => status(await call(ref, '/get/x', { token: ro(ref) })) },
  'readonly-runs-writes': {
    probe: async (ref) => status(await call(ref, `/set/${uniqueKey()}/v`, { token: ro(ref) })),
  },
  'readonly-scripts-allowed': {
    probe: async (ref) =>
      status(
        await call(ref, '/', { body: ['EVAL_RO', "return redis.call('KEYS', 'none-such-*')", '0'], token: ro(ref) }),
      ),
  },
  'readonly-runs-keys': { probe: async (ref) => status(await call(ref, '/keys/none-such-*', { token: ro(ref) })) },
  'reset-keeps-tokens': {
    probe: async (ref) => {
      const old = ref.target.kv!.token;
      await admin(ref, 'POST', '/reset-password');
      return status(await call(ref, '/ping', { token: old }));
    },
  },
  'resttoken-full-permissions': {
    probe: async (ref) => {
      const username = uniqueKey('user').replace(':', '-');
      await admin(ref, 'POST', '/acl-users', { username, password: 'pw', rules: ['~mine:*', '+get'] });
      const token = ((await call(ref, `/acl/resttoken/${username}/pw`)).json as { result: string }).result;
      return status(await call(ref, `/set/${uniqueKey()}/v`, { token }));
    },
  },
  'resttoken-ignores-password': { probe: async (ref) => status(await call(ref, '/acl/resttoken/nobody-x/pw')) },
  'size-limit-ignored': {
    options: { maxRequestBytes: 64 },
    probe: async (ref) => status(await call(ref, `/echo/${big}`)),
  },
  'hgetall-empty-body': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, '/', { body: ['HSET', key, 'f', 'v'] });
      return (await call(ref, `/hgetall/${key}`)).body.toString();
    },
  },
  'base64-top-level-only': {
    probe: async (ref) => (await call(ref, '/', { body: ['EVAL', "return {'a',{'b'}}", '0'], headers: b64 })).json,
  },
  'resp2-flattens-nested': {
    probe: async (ref) =>
      (await call(ref, '/', { body: ['EVAL', "return {'a',{'b'}}", '0'], headers: resp2 })).body.toString(),
  },
  'raw-invalid-utf8-in-items': {
    probe: async (ref) =>
      (await call(ref, '/pipeline', { body: [['EVAL', 'return string.char(255)', '0']] })).body.toString('hex'),
  },
  'utf8-replacement-top-level-only': {
    probe: async (ref) => (await call(ref, '/', { body: ['EVAL', "return {'x',{string.char(255)}}", '0'] })).json,
  },
  'big-integers-rounded': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, '/', { body: ['SET', key, '9007199254740993'] });
      return (await call(ref, '/', { body: ['INCRBY', key, '0'] })).body.toString();
    },
  },
  'pipeline-long-reordered': {
    probe: async (ref) =>
      (await call(ref, '/pipeline', { body: Array.from({ length: 150 }, (_, index) => ['ECHO', String(index)]) })).json,
  },
  'readonly-writes-in-batches': {
    probe: async (ref) => (await call(ref, '/pipeline', { body: [['SET', uniqueKey(), 'v']], token: ro(ref) })).json,
  },
  'unknown-methods-accepted': { probe: async (ref) => status(await call(ref, '/ping', { method: 'PROPFIND' })) },
  'base64-skips-ok-values': {
    probe: async (ref) => {
      const key = uniqueKey();
      await call(ref, `/set/${key}/OK`);
      return (await call(ref, `/get/${key}`, { headers: b64 })).json;
    },
  },
  'base64-items-plain': {
    probe: async (ref) => (await call(ref, '/pipeline', { body: [['ECHO', 'abc']], headers: b64 })).json,
  },
  'digit-values-as-integers': { probe: async (ref) => (await call(ref, '/echo/123')).json },
  'resp2-ok-values-simple': {
    probe: async (ref) => (await call(ref, '/echo/OK', { headers: resp2 })).body.toString('latin1'),
  },
  'plus-as-space-in-path': { probe: async (ref) => (await call(ref, '/echo/a+b')).json },
  'double-percent-decoding': { probe: async (ref) => (await call(ref, '/echo/a%2541')).json },
  'body-trailing-newline-trimmed': { probe: async (ref) => (await call(ref, '/echo', { body: 'line\r\n' })).json },
  'monitor-no-auth': { probe: (ref) => streamStatus(ref, '/monitor', undefined) },
  'subscribe-any-token': { probe: (ref) => streamStatus(ref, '/subscribe/any-token', 'not-a-token') },
  'query-token-unchecked': {
    probe: async (ref) => status(await call(ref, '/ping?_token=not-a-token', { token: null })),
  },
  'readonly-publish-allowed': {
    probe: async (ref) => (await call(ref, '/publish/ro-channel/x', { token: ro(ref) })).json,
  },
  'subscribe-prefix-match': { probe: (ref) => firstMessage(ref, 'prefix-a', ['prefix-ab', 'prefix-a']) },
  'subscribe-as-pattern': { probe: (ref) => firstMessage(ref, 'glob-a*', ['glob-ab', 'glob-a*']) },
  'monitor-misses-transactions': {
    probe: async (ref) => {
      const marker = uniqueKey('tx');
      const stream = await openStream(ref, '/monitor');
      try {
        await call(ref, '/multi-exec', { body: [['ECHO', marker]] });
        await call(ref, `/echo/${marker}:after`);
        return (await nextMatching(stream, (data) => data.includes(marker))).includes(':after');
      } finally {
        stream.close();
      }
    },
  },
  'monitor-unescaped-quotes': {
    probe: async (ref) => {
      const marker = uniqueKey('quote');
      const stream = await openStream(ref, '/monitor');
      try {
        await call(ref, '/', { body: ['ECHO', `${marker}"`] });
        return /\\""$/.test(await nextMatching(stream, (data) => data.includes(marker)));
      } finally {
        stream.close();
      }
    },
  },
  'error-labelled-text-plain': { probe: async (ref) => (await call(ref, '/nosuch')).headers['content-type'] },
  'head-labelled-octet-stream': {
    probe: async (ref) => (await call(ref, '/ping', { method: 'HEAD' })).headers['content-type'],
  },
  'put-path-labelled-text-plain': {
    probe: async (ref) => (await call(ref, '/ping', { method: 'PUT' })).headers['content-type'],
  },
  'stream-401-not-error-object': {
    probe: async (ref) => (await call(ref, '/monitor', { method: 'POST', token: null })).json,
  },
  'method-405-plain-text': { probe: async (ref) => (await call(ref, '/ping', { method: 'DELETE' })).body.toString() },
  'monitor-events-swapped': {
    probe: async (ref) => {
      const marker = uniqueKey('order');
      const stream = await openStream(ref, '/monitor');
      try {
        // Four in a row, each answered before the next; the first three items seen must be 1, 2, 3. The
        // fault swaps the stream's items in pairs, and whether one of the reference's own commands came
        // first (which shifts the pairs by one) depends on timing: 2,1,4 or 1,3,2, never 1,2,3.
        for (const n of [1, 2, 3, 4]) await call(ref, `/echo/${marker}:${n}`);
        const seen: string[] = [];
        for (let i = 0; i < 3; i += 1) {
          const item = await nextMatching(stream, (data) => data.includes(marker));
          const at = item.indexOf(`${marker}:`);
          seen.push(at < 0 ? '?' : item.charAt(at + marker.length + 1));
        }
        return seen.join(',');
      } finally {
        stream.close();
      }
    },
  },
  'daily-limit-ignored': {
    options: { dailyRequestLimit: 1 },
    probe: async (ref) => {
      await resetDaily(ref);
      await call(ref, '/ping');
      return status(await call(ref, '/ping'));
    },
  },
};

const env = useTestReference();

describe('kv fault switches', () => {
  it('have unique names, each naming a rule of the area B catalog', () => {
    const names = kvFaults.map((fault) => fault.name);
    expect(new Set(names).size).toBe(names.length);
    const ruleIds = new Set(kvRuleCatalog.map((rule) => rule.id));
    for (const fault of kvFaults) expect(ruleIds.has(fault.rule), fault.name).toBe(true);
  });

  it.each(kvFaults.map((fault) => fault.name))('%s changes what the service does', async (name) => {
    const { probe, options } = probes[name];
    const faulty = await startTestReference(env.redis, { ...options, faults: [name] });
    const baseline = options ? await startTestReference(env.redis, options) : env.ref;
    try {
      const correct = await probe(baseline);
      const broken = await probe(faulty);
      expect(broken).not.toEqual(correct);
    } finally {
      await faulty.stop();
      if (baseline !== env.ref) await baseline.stop();
    }
  });
});
