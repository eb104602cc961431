/**
 * URL groups (the real service calls them topics) in the reference's Redis: each group is one JSON
 * string under `svc:ref:topic:<name>`, its name in the `svc:ref:topics` set. Changes are read, merged
 * in TypeScript and written back by a compare-and-set script, so two upserts never lose each other's
 * endpoints and a new group is counted against the plan's max_topics in the same atomic step.
 */
import { LuaScript, type MessagingRedis } from './lua-script.ts';
import { keyPrefix } from './message-store.ts';

export interface TopicEndpoint {
  readonly name?: string;
  readonly url: string;
}

/** A group as the real service answers `GET /v2/topics/{name}`. */
export interface Topic {
  readonly name: string;
  /** Unix milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly endpoints: readonly TopicEndpoint[];
}

/** What removes endpoints: the name, the URL, or both (all given must match). */
export interface EndpointSelector {
  readonly name?: string;
  readonly url?: string;
}

const topicsKey = `${keyPrefix}topics`;
const topicKey = (name: string) => `${keyPrefix}topic:${name}`;

// KEYS[1] the topics set, KEYS[2] the topic; ARGV: the JSON read before ('' when none), the JSON to
// write ('' to delete), the name, max_topics (-1: no limit). Answers 1 written, 0 changed meanwhile,
// -1 a new group past max_topics.
const casScript = new LuaScript(`
local current = redis.call('GET', KEYS[2]) or ''
if current ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[2])
  redis.call('SREM', KEYS[1], ARGV[3])
  return 1
end
if current == '' then
  local limit = tonumber(ARGV[4])
  if limit >= 0 and redis.call('SCARD', KEYS[1]) >= limit then return -1 end
  redis.call('SADD', KEYS[1], ARGV[3])
end
redis.call('SET', KEYS[2], ARGV[2])
return 1
`);

/** Why a change was not written. */
export type TopicChange<T> =
  | { readonly kind: 'written'; readonly topic: T }
  | { readonly kind: 'topics-limit' }
  | { readonly kind: 'refused'; readonly reason: string };

export class TopicStore {
  readonly #redis: MessagingRedis;

  constructor(redis: MessagingRedis) {
    this.#redis = redis;
  }

  async #raw(name: string): Promise<string> {
    return String((await this.#redis.get(topicKey(name))) ?? '');
  }

  async topic(name: string): Promise<Topic | undefined> {
    const raw = await this.#raw(name);
    return raw === '' ? undefined : (JSON.parse(raw) as Topic);
  }

  async names(): Promise<string[]> {
    return ((await this.#redis.sendCommand(['SMEMBERS', topicsKey])) as string[]).map(String).sort();
  }

  async topics(): Promise<Topic[]> {
    const all = await Promise.all((await this.names()).map((name) => this.topic(name)));
    return all.filter((topic): topic is Topic => topic !== undefined);
  }

  /**
   * Reads the group, lets `change` make its next state (or refuse), and writes it if nobody changed
   * the group meanwhile; tries again otherwise. `maxTopics` bounds a group that does not exist yet.
   */
  async change(
    name: string,
    maxTopics: number,
    change: (current: Topic | undefined) => Topic | { readonly refused: string } | undefined,
  ): Promise<TopicChange<Topic | undefined>> {
    for (;;) {
      const raw = await this.#raw(name);
      const next = change(raw === '' ? undefined : (JSON.parse(raw) as Topic));
      if (next !== undefined && 'refused' in next) return { kind: 'refused', reason: next.refused };
      const written = Number(
        await casScript.run(
          this.#redis,
          [topicsKey, topicKey(name)],
          [raw, next === undefined ? '' : JSON.stringify(next), name, maxTopics],
        ),
      );
      if (written === 1) return { kind: 'written', topic: next };
      if (written === -1) return { kind: 'topics-limit' };
    }
  }
}

/**
 * Endpoints upserted into a group: one with the name of an existing endpoint replaces it, one with
 * the URL of an existing unnamed endpoint names it, any other is added at the end.
 */
export function upsertEndpoints(current: readonly TopicEndpoint[], given: readonly TopicEndpoint[]): TopicEndpoint[] {
  const out = [...current];
  for (const endpoint of given) {
    const at = out.findIndex((item) =>
      endpoint.name !== undefined && item.name !== undefined
        ? item.name === endpoint.name
        : item.url === endpoint.url && (item.name === undefined || endpoint.name === undefined),
    );
    if (at === -1) {
      out.push(endpoint);
      continue;
    }
    const name = endpoint.name ?? out[at]?.name;
    out[at] = name === undefined ? { url: endpoint.url } : { name, url: endpoint.url };
  }
  return out;
}

/** The endpoints left once every selected one is taken out (a selector matches on each field it gives). */
export function removeEndpoints(
  current: readonly TopicEndpoint[],
  selectors: readonly EndpointSelector[],
): TopicEndpoint[] {
  return current.filter(
    (item) =>
      !selectors.some(
        (selector) =>
          (selector.name !== undefined || selector.url !== undefined) &&
          (selector.name === undefined || selector.name === item.name) &&
          (selector.url === undefined || selector.url === item.url),
      ),
  );
}
