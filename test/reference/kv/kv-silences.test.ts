/**
 * Every area B silence switch visibly changes what the service does (the same probe against a reference
 * with the switch on and one without gives different observations), and each names a place where the
 * spec is silent: an observed rule of the area B catalog or a `notes:` item. That no case fails with it
 * on is self-validation's (test/conformance/self-validation.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { kvRuleCatalog } from '../../../conformance/rules/kv-rules.ts';
import { type KvSilenceName, kvSilences } from '../../../src/reference/kv/kv-silences.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import {
  admin,
  call,
  nextMatching,
  openStream,
  startTestReference,
  uniqueKey,
  useTestReference,
} from '../../support/reference-fixture.ts';

type Probe = (ref: RunningReference) => Promise<unknown>;

const probes: Record<KvSilenceName, Probe> = {
  'unauthorized-text-plain': async (ref) => (await call(ref, '/ping', { token: null })).json,
  'unknown-command-redis-text': async (ref) => (await call(ref, '/nosuchcommand')).json,
  'discard-status-422': async (ref) => (await call(ref, '/multi-exec', { body: [['NOSUCHCOMMAND']] })).status,
  'pipeline-resp2-array': async (ref) =>
    (
      await call(ref, '/pipeline', { body: [['PING'], ['ECHO', 'x']], headers: { 'Svc-Response-Format': 'resp2' } })
    ).body.toString('latin1'),
  'sync-token-header': async (ref) => (await call(ref, '/ping')).headers['svc-sync-token'] !== undefined,
  'content-type-parameters': async (ref) => (await call(ref, '/ping')).headers['content-type'],
  'monitor-own-line': async (ref) => {
    const marker = uniqueKey('mon');
    const stream = await openStream(ref, '/monitor');
    try {
      await call(ref, `/echo/${marker}`);
      // Only the line's punctuation differs: the timestamp is cut off.
      return (await nextMatching(stream, (data) => data.includes(marker))).replace(/^\S+ /, '');
    } finally {
      stream.close();
    }
  },
  'publish-result-zero': async (ref) => {
    const channel = uniqueKey('ch');
    const stream = await openStream(ref, `/subscribe/${encodeURIComponent(channel)}`);
    try {
      await stream.next();
      return (await call(ref, `/publish/${encodeURIComponent(channel)}/m`)).json;
    } finally {
      stream.close();
    }
  },
  'info-result-lines': async (ref) =>
    Array.isArray(((await call(ref, '/info', { method: 'POST' })).json as { result?: unknown } | undefined)?.result),
  'post-root-strings-only': async (ref) => (await call(ref, '/', { body: ['ECHO', 5] })).status,
  // E2 82 is a three-byte sequence cut short: one U+FFFD by a WHATWG decoder, two byte by byte.
  'utf8-replacement-per-byte': async (ref) =>
    (await call(ref, '/', { body: ['EVAL', 'return string.char(226, 130)', '0'] })).json,
  'nested-integers-as-strings': async (ref) =>
    (await call(ref, '/', { body: ['EVAL', "return {1, 'two'}", '0'] })).json,
  // The daily limit is set to 1 through the admin hook and reset, so the second command is refused.
  'limit-errors-own-class': async (ref) => {
    const before = (await admin(ref, 'GET', '/limits')).json as { dailyRequestLimit: number | null };
    await admin(ref, 'POST', '/limits/reset-daily');
    await admin(ref, 'PUT', '/limits', { dailyRequestLimit: 1 });
    try {
      await call(ref, '/ping');
      return (await call(ref, '/ping')).json;
    } finally {
      await admin(ref, 'PUT', '/limits', { dailyRequestLimit: before.dailyRequestLimit });
      await admin(ref, 'POST', '/limits/reset-daily');
    }
  },
  // Reads beside a long pipeline of INCRs: whether any saw a partial count (kv.pipeline.non-atomic's probe).
  'pipeline-one-at-a-time': async (ref) => {
    const key = uniqueKey('counter');
    const total = 500;
    const pipeline = call(ref, '/pipeline', { body: Array.from({ length: total }, () => ['INCR', key]) });
    const reads: unknown[] = [];
    for (let i = 0; i < 30; i++) reads.push(((await call(ref, `/get/${key}`)).json as { result?: unknown })?.result);
    await pipeline;
    return reads.some((value) => value !== null && Number(value) > 0 && Number(value) < total);
  },
  'max-request-size-1mib': async (ref) => (await admin(ref, 'GET', '/limits')).json,
  'daily-limit-million': async (ref) => (await admin(ref, 'GET', '/limits')).json,
  'path-command-lower-case': async (ref) => (await call(ref, '/ECHO/x')).status,
  'no-psubscribe': async (ref) => {
    const stream = await openStream(ref, `/psubscribe/${encodeURIComponent(uniqueKey('p'))}*`);
    stream.close();
    return stream.status;
  },
  'read-only-refusal-403': async (ref) => {
    const res = await call(ref, `/set/${uniqueKey()}/v`, { token: ref.target.kv!.readOnlyToken! });
    return [res.status, res.json];
  },
};

const env = useTestReference();

describe('kv silence switches', () => {
  it('have unique names, each naming a place where the spec is silent', () => {
    const names = kvSilences.map((silence) => silence.name);
    expect(new Set(names).size).toBe(names.length);
    const observed = new Set(kvRuleCatalog.filter((rule) => rule.level === 'OBSERVE').map((rule) => rule.id));
    for (const silence of kvSilences) {
      expect(observed.has(silence.silence) || silence.silence.startsWith('notes: B.'), silence.name).toBe(true);
    }
  });

  it.each(kvSilences.map((silence) => silence.name))('%s changes what the service does', async (name) => {
    const probe = probes[name];
    const other = await startTestReference(env.redis, { silences: [name] });
    try {
      expect(await probe(other)).not.toEqual(await probe(env.ref));
    } finally {
      await other.stop();
    }
  });
});
