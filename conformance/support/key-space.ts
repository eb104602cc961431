/**
 * Key isolation: every key a case writes is named under the case's prefix (unique per run and case)
 * and deleted after the case, pass or fail, so a run against a shared target leaves nothing behind.
 * Never FLUSHALL or FLUSHDB.
 */
import { type CaseContext, encodeSegment, type HttpResponse } from '../../src/suite-kit/suite-api.ts';
import type { Credentials } from './credentials.ts';
import { createKvClient, type KvClient } from './kv-client.ts';

export interface KeySpace {
  /** A key under the case prefix, deleted after the case. */
  key(name: string): string;
  /** Registers keys created by other means (already prefixed) for deletion. */
  track(...keys: string[]): void;
  /** Deletes, after the case, every key under the prefix (SCAN, bounded) as well as the named ones. */
  sweepAfter(): void;
}

const deleteChunk = 200;
const maxScanRounds = 200;

export function keySpace(ctx: CaseContext, kv: KvClient = createKvClient(ctx)): KeySpace {
  const names = new Set<string>();
  let sweep = false;
  ctx.onCleanup(async () => {
    if (sweep) for (const key of await scanPrefix(kv, ctx.keyPrefix)) names.add(key);
    // A target that does not percent-decode path segments writes the encoded name (`svch%3A…`),
    // outside the prefix: delete that form too, so a broken target is left clean as well.
    for (const key of [...names]) names.add(encodeSegment(key));
    if (sweep) for (const key of await scanPrefix(kv, encodeSegment(ctx.keyPrefix))) names.add(key);
    const all = [...names];
    for (let at = 0; at < all.length; at += deleteChunk) await deleteKeys(kv, all.slice(at, at + deleteChunk));
  });
  return {
    key(name) {
      const key = `${ctx.keyPrefix}${name}`;
      names.add(key);
      return key;
    },
    track(...keys) {
      for (const key of keys) names.add(key);
    },
    sweepAfter() {
      sweep = true;
    },
  };
}

/**
 * DEL with the Standard token: `POST /`, else the path form, each by header and else by `_token`,
 * so a target that breaks one form or one way to authenticate is still cleaned.
 */
async function deleteKeys(kv: KvClient, keys: readonly string[]): Promise<void> {
  let last: HttpResponse | undefined;
  for (const credentials of [{ kind: 'bearer' }, { kind: 'query' }] as const satisfies readonly Credentials[]) {
    last = await kv.root(['DEL', ...keys], { credentials });
    if (last.status === 200) return;
    last = await kv.path('POST', ['del', ...keys], { credentials });
    if (last.status === 200) return;
  }
  throw new Error(`deleting ${keys.length} keys answered status ${last?.status}`);
}

/** Keys matching the prefix, through SCAN with a bounded number of rounds. */
async function scanPrefix(kv: KvClient, prefix: string): Promise<string[]> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const found: string[] = [];
  let cursor = '0';
  for (let round = 0; round < maxScanRounds; round++) {
    const res = await kv.root(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']);
    if (res.status !== 200) return found;
    const body = JSON.parse(res.body.toString('utf8')) as { result?: [string, string[]] };
    const [next, keys] = body.result ?? ['0', []];
    found.push(...keys);
    cursor = next;
    if (cursor === '0') break;
  }
  return found;
}
