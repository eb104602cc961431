/**
 * Area A's messages in the reference's Redis. A message is a JSON string under `svc:ref:msg:<id>`;
 * it waits in the `due` sorted set (score: when its next attempt is due), moves to `inflight` while
 * an attempt runs, and its outcome is one atomic script call (batched with other attempts' outcomes):
 * the next attempt, or its end (delivered, or failed with its dead-letter entry), together with the
 * callback messages it causes. A reference killed
 * mid-attempt finds the message in `inflight` on its next start and tries it again: at least once.
 * Queued messages wait in their queue's list until the queue is active and has a free slot.
 *
 * The plan's limits on what is kept are counted in the same script that adds to it, so concurrent
 * requests cannot pass them: a new queue (by upsert or by a first enqueue) past max_queues is refused,
 * and the dead letter queue never holds more than max_dlq_size entries (see finishScript).
 *
 * One reference process per Redis: `inflight` holds the attempts of the process that runs.
 */

import { type LuaReply, LuaScript, type MessagingRedis } from './lua-script.ts';
import type { StoredMessage } from './stored-message.ts';
import { TurnBatch } from './turn-batch.ts';

export interface AcceptItem {
  readonly message: StoredMessage;
  /** The deduplication key's id part; none when the publish has no deduplication id. */
  readonly dedupId?: string;
  /**
   * Stored straight into inflight (as if claimed at this Unix ms), not due: the dispatcher starts it
   * from memory, so no claim reads it back; a restart still finds it (recover).
   */
  readonly inflightAt?: number;
  /**
   * The plan's max_queues, for a queued message whose queue does not exist yet: past it the message
   * is refused and nothing is stored (no queue, no deduplication id). None: no limit.
   */
  readonly maxQueues?: number;
}

/** The stored id (the earlier message's when deduplicated). */
export interface Accepted {
  readonly id: string;
  readonly deduplicated: boolean;
}

/** A queued message refused because its queue would be a new one past the plan's max_queues. */
export interface QueueLimitRefusal {
  readonly refused: 'max_queues';
  readonly queue: string;
  readonly limit: number;
}

/** What `acceptMany` answers for one item. */
export type AcceptAnswer = Accepted | QueueLimitRefusal;

/** The refusal of a new queue past the plan's max_queues, whichever way it would have come to exist. */
export function queueLimitText(queue: string, limit: number): string {
  return `a new queue ${JSON.stringify(queue)} exceeds the plan's max_queues of ${limit}`;
}

/** What `accept` rejects with when the message would create a queue past the plan's max_queues. */
export class QueueLimitReached extends Error {
  readonly queue: string;
  readonly limit: number;

  constructor(queue: string, limit: number) {
    super(queueLimitText(queue, limit));
    this.queue = queue;
    this.limit = limit;
  }
}

export const keyPrefix = 'svc:ref:';
const dueKey = `${keyPrefix}due`;
const inflightKey = `${keyPrefix}inflight`;
const dlqKey = `${keyPrefix}dlq`;
/** The dead letters' ids scored by when each became one: what trims the queue to max_dlq_size, oldest first. */
const dlqOrderKey = `${keyPrefix}dlq:order`;
const queuesKey = `${keyPrefix}queues`;
const statsKey = `${keyPrefix}stats`;
/** How long a finished message stays readable (`GET /v2/messages/<id>`). */
const finishedTtlSeconds = 24 * 3600;
/** How long a deduplication id holds. */
const dedupTtlSeconds = 600;

export const messageKey = (id: string) => `${keyPrefix}msg:${id}`;
const queueKey = (name: string) => `${keyPrefix}queue:${name}`;

// ARGV[1] the dedup ttl, ARGV[2] now, then 9 per message: its key, due (or inflight, for a message the
// dispatcher starts from memory) or its queue's list, json, id, score, dedup key ('' for none), queue
// name ('' when not queued), queue hash key, max_queues (-1: no limit). Many publishes in one call,
// each as one call did it, in order (a later message with the same dedup id finds the earlier one's);
// answers id and deduplicated (1 or 0) per message, or '' and -1 for a message refused because its
// queue would be a new one past max_queues (counted before anything is written, dedup id included).
const acceptScript = new LuaScript(`
local out = {}
local i = 3
while i <= #ARGV do
  local key, list, json, id, score, dedup, queue, queueHash, maxQueues = unpack(ARGV, i, i + 8)
  i = i + 9
  local limit = tonumber(maxQueues)
  if queue ~= '' and limit >= 0 and redis.call('SISMEMBER', '${queuesKey}', queue) == 0
    and redis.call('SCARD', '${queuesKey}') >= limit then
    out[#out + 1] = ''
    out[#out + 1] = -1
  else
    local existing = false
    if dedup ~= '' then
      existing = redis.call('GET', dedup)
      if not existing then redis.call('SET', dedup, id, 'EX', ARGV[1]) end
    end
    if existing then
      out[#out + 1] = existing
      out[#out + 1] = 1
    else
      redis.call('SET', key, json)
      if queue == '' then
        redis.call('ZADD', list, score, id)
      else
        redis.call('RPUSH', list, id)
        redis.call('SADD', '${queuesKey}', queue)
        redis.call('HSETNX', queueHash, 'parallelism', '1')
        redis.call('HSETNX', queueHash, 'paused', '0')
        redis.call('HSETNX', queueHash, 'createdAt', ARGV[2])
        redis.call('HSETNX', queueHash, 'updatedAt', ARGV[2])
      end
      out[#out + 1] = id
      out[#out + 1] = 0
    end
  end
end
return out
`);

// KEYS[1] the queues set, KEYS[2] the queue's hash; ARGV: name, parallelism, paused ('1', '0', or ''
// to keep it, '0' for a new queue), now, max_queues (-1: no limit). Creates or updates the queue;
// answers 0, writing nothing, when the queue is a new one past max_queues, else 1.
const upsertQueueScript = new LuaScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then
  local limit = tonumber(ARGV[5])
  if limit >= 0 and redis.call('SCARD', KEYS[1]) >= limit then return 0 end
  redis.call('SADD', KEYS[1], ARGV[1])
end
redis.call('HSETNX', KEYS[2], 'createdAt', ARGV[4])
redis.call('HSET', KEYS[2], 'parallelism', ARGV[2], 'updatedAt', ARGV[4])
if ARGV[3] == '' then redis.call('HSETNX', KEYS[2], 'paused', '0') else redis.call('HSET', KEYS[2], 'paused', ARGV[3]) end
return 1
`);

// KEYS[1] due, KEYS[2] inflight; ARGV: now, limit. Moves due messages to inflight, returns their JSON.
const claimScript = new LuaScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local body = redis.call('GET', '${keyPrefix}msg:' .. id)
  if body then
    redis.call('ZADD', KEYS[2], ARGV[1], id)
    out[#out + 1] = body
  end
end
return out
`);

// The same, answering also when the next due message is ('' for none), so the delivery loop knows how
// long to sleep without a second round trip.
const claimDueScript = new LuaScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local body = redis.call('GET', '${keyPrefix}msg:' .. id)
  if body then
    redis.call('ZADD', KEYS[2], ARGV[1], id)
    out[#out + 1] = body
  end
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {out, head[2] or ''}
`);

// KEYS[1] inflight, KEYS[2] due, KEYS[3] dead letters, KEYS[4] stats, KEYS[5] the dead letters' order;
// ARGV[1] the finished messages' TTL, then one group per attempt (see finishArgs). The outcomes of many
// attempts in one call: what a MULTI per attempt wrote, in the same order, without a round trip and
// seven client commands each.
//
// A full dead letter queue (more than the attempt's max_dlq_size, -1: no limit) drops its oldest
// entries, as the real service documents ("if you exceed this limit, the oldest messages will be
// dropped"): the newest failures are the ones still worth handling, and a failing endpoint never
// stops the queue from recording. Entries that predate the order (a Redis written by an older
// reference) are ordered first, by their createdAt.
const finishScript = new LuaScript(`
local function trimDeadLetters(cap)
  if redis.call('ZCARD', KEYS[5]) < redis.call('HLEN', KEYS[3]) then
    local all = redis.call('HGETALL', KEYS[3])
    for j = 1, #all, 2 do
      if not redis.call('ZSCORE', KEYS[5], all[j]) then
        redis.call('ZADD', KEYS[5], cjson.decode(all[j + 1]).createdAt, all[j])
      end
    end
  end
  while redis.call('HLEN', KEYS[3]) > cap do
    local oldest = redis.call('ZPOPMIN', KEYS[5])
    if #oldest == 0 then break end
    redis.call('HDEL', KEYS[3], oldest[1])
  end
end
local i = 2
while i <= #ARGV do
  local id, json, nxt, at, field, active, dlqId, dlqJson, dlqAt, dlqCap = unpack(ARGV, i, i + 9)
  local caused = tonumber(ARGV[i + 10])
  i = i + 11
  redis.call('ZREM', KEYS[1], id)
  for _ = 1, caused do
    local cid, cbody, score, where = unpack(ARGV, i, i + 3)
    i = i + 4
    redis.call('SET', '${keyPrefix}msg:' .. cid, cbody)
    if where == 'inflight' then redis.call('ZADD', KEYS[1], score, cid) else redis.call('ZADD', KEYS[2], score, cid) end
  end
  if dlqId ~= '' then
    redis.call('HSET', KEYS[3], dlqId, dlqJson)
    redis.call('ZADD', KEYS[5], dlqAt, dlqId)
    local cap = tonumber(dlqCap)
    if cap >= 0 then trimDeadLetters(cap) end
  end
  if nxt == 'retry' then
    redis.call('SET', '${keyPrefix}msg:' .. id, json)
    redis.call('ZADD', KEYS[2], at, id)
    redis.call('HINCRBY', KEYS[4], 'retries', 1)
  else
    redis.call('SET', '${keyPrefix}msg:' .. id, json, 'EX', ARGV[1])
    redis.call('HINCRBY', KEYS[4], field, 1)
    if active ~= '' then redis.call('DECR', active) end
  end
end
return 0
`);

// KEYS[1] dead letters, KEYS[2] their order; ARGV: the dlqId. Answers 1 when it was there.
const deleteDeadLetterScript = new LuaScript(`
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
`);

// KEYS[1] the queues set, KEYS[2] due; ARGV: now, '1' to ignore pauses. Moves each active queue's
// oldest messages to due while the queue has free slots (its parallelism).
const pumpScript = new LuaScript(`
local moved = 0
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local q = '${keyPrefix}queue:' .. name
  if redis.call('HGET', q, 'paused') ~= '1' or ARGV[2] == '1' then
    local parallelism = tonumber(redis.call('HGET', q, 'parallelism') or '1')
    local active = tonumber(redis.call('GET', q .. ':active') or '0')
    while active < parallelism do
      local id = redis.call('LPOP', q .. ':list')
      if not id then break end
      local raw = redis.call('GET', '${keyPrefix}msg:' .. id)
      if raw then
        local m = cjson.decode(raw)
        redis.call('ZADD', KEYS[2], math.max(tonumber(ARGV[1]), m.notBefore), id)
        active = active + 1
        moved = moved + 1
      end
    end
    redis.call('SET', q .. ':active', active)
  end
end
return moved
`);

// KEYS[1] inflight, KEYS[2] due; ARGV: now. Every attempt a dead process left behind is due again.
const recoverScript = new LuaScript(`
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[2], ARGV[1], id) end
redis.call('DEL', KEYS[1])
return #ids
`);

export interface DeadLetter {
  readonly dlqId: string;
  readonly messageId: string;
  readonly url: string;
  readonly method: string;
  readonly header: Readonly<Record<string, string>>;
  readonly body: string;
  readonly createdAt: number;
  readonly responseStatus: number;
  readonly responseHeader: Readonly<Record<string, string[]>>;
  readonly responseBody: string;
  readonly retried: number;
  readonly maxRetries: number;
}

/** What one finished attempt writes, all at once (one script call, atomic). */
export interface AttemptWrite {
  readonly message: StoredMessage;
  /** The message's next state: retried later, or its end. */
  readonly next: { readonly kind: 'retry'; readonly at: number } | { readonly kind: 'end' };
  /** Callback and failure-callback messages caused by the attempt, stored as due at their notBefore. */
  readonly caused: readonly StoredMessage[];
  /**
   * Caused messages the writer attempts itself at once: stored straight into inflight (as if claimed
   * at `inflightAt`), so no claim reads them back, and a restart still finds them (recover).
   */
  readonly causedInflight?: readonly StoredMessage[];
  /** Unix ms the causedInflight are claimed at. */
  readonly inflightAt?: number;
  readonly deadLetter?: DeadLetter;
  /**
   * The plan's max_dlq_size when the attempt writes a dead letter: the queue keeps at most this many,
   * the oldest dropped first. None: no limit.
   */
  readonly maxDeadLetters?: number;
}

/** One attempt's group of finishScript's arguments. */
function finishArgs(write: AttemptWrite, out: string[]): void {
  const { message, next, deadLetter } = write;
  const inflight = write.causedInflight ?? [];
  out.push(
    message.id,
    JSON.stringify(message),
    next.kind,
    next.kind === 'retry' ? String(next.at) : '',
    message.state === 'delivered' ? 'delivered' : 'failed',
    next.kind === 'end' && message.queue !== undefined ? `${queueKey(message.queue)}:active` : '',
    deadLetter?.dlqId ?? '',
    deadLetter === undefined ? '' : JSON.stringify(deadLetter),
    String(deadLetter?.createdAt ?? ''),
    String(write.maxDeadLetters ?? -1),
    String(write.caused.length + inflight.length),
  );
  for (const caused of write.caused) out.push(caused.id, JSON.stringify(caused), String(caused.notBefore), 'due');
  const at = String(write.inflightAt ?? Date.now());
  for (const caused of inflight) out.push(caused.id, JSON.stringify(caused), at, 'inflight');
}

export interface QueueView {
  readonly name: string;
  readonly parallelism: number;
  readonly paused: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lag: number;
}

export class MessageStore {
  readonly #redis: MessagingRedis;
  /** Publishes that arrive together, stored in one script call (a failed call answers each 500). */
  readonly #accepts = new TurnBatch<AcceptItem, AcceptAnswer>((items) => this.acceptMany(items));
  /** Attempts that finish together, their outcomes in one call (the dispatcher retries a failed one). */
  readonly #finishes = new TurnBatch<AttemptWrite, void>(async (writes) => {
    await this.finishAttempts(writes);
    return writes.map(() => undefined);
  });

  constructor(redis: MessagingRedis) {
    this.#redis = redis;
  }

  /**
   * Stores a message as due (or queued). Answers the id, or the earlier id of a deduplicated message;
   * rejects with QueueLimitReached when its queue would be a new one past `maxQueues`.
   * Publishes that arrive together go to Redis as one call (turn-batch.ts).
   */
  async accept(message: StoredMessage, dedupId?: string, inflightAt?: number, maxQueues?: number): Promise<Accepted> {
    const answer = await this.#accepts.add({
      message,
      ...(dedupId !== undefined && { dedupId }),
      ...(inflightAt !== undefined && { inflightAt }),
      ...(maxQueues !== undefined && { maxQueues }),
    });
    if ('refused' in answer) throw new QueueLimitReached(answer.queue, answer.limit);
    return answer;
  }

  /** Stores many messages in one call, in order, each as `accept` does (a refusal is an answer here). */
  async acceptMany(items: readonly AcceptItem[]): Promise<AcceptAnswer[]> {
    const args: (string | number)[] = [dedupTtlSeconds, Date.now()];
    for (const { message, dedupId, inflightAt, maxQueues } of items) {
      const queued = message.queue !== undefined;
      const direct = !queued && inflightAt !== undefined;
      args.push(
        messageKey(message.id),
        queued ? `${queueKey(message.queue as string)}:list` : direct ? inflightKey : dueKey,
        JSON.stringify(message),
        message.id,
        direct ? inflightAt : message.notBefore,
        dedupId === undefined ? '' : `${keyPrefix}dedup:${dedupId}`,
        message.queue ?? '',
        queued ? queueKey(message.queue as string) : '',
        queued && maxQueues !== undefined ? maxQueues : -1,
      );
    }
    const reply = (await acceptScript.run(this.#redis, [], args)) as LuaReply[];
    const out: AcceptAnswer[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const flag = Number(reply[i + 1]);
      const item = items[i / 2] as AcceptItem;
      out.push(
        flag === -1
          ? { refused: 'max_queues', queue: item.message.queue ?? '', limit: item.maxQueues ?? -1 }
          : { id: String(reply[i]), deduplicated: flag === 1 },
      );
    }
    return out;
  }

  /** Due messages, moved to inflight. */
  async claim(now: number, limit: number): Promise<StoredMessage[]> {
    const reply = (await claimScript.run(this.#redis, [dueKey, inflightKey], [now, limit])) as LuaReply[];
    return reply.map((raw) => JSON.parse(String(raw)) as StoredMessage);
  }

  /** Due messages, moved to inflight, and when the next due message is (one round trip). */
  async claimDue(now: number, limit: number): Promise<{ messages: StoredMessage[]; nextDueAt?: number }> {
    const [raw, next] = (await claimDueScript.run(this.#redis, [dueKey, inflightKey], [now, limit])) as [
      LuaReply[],
      string,
    ];
    const messages = raw.map((item) => JSON.parse(String(item)) as StoredMessage);
    return next === '' ? { messages } : { messages, nextDueAt: Number(next) };
  }

  /** When the next due message is, if any. */
  async nextDueAt(): Promise<number | undefined> {
    const reply = (await this.#redis.sendCommand(['ZRANGE', dueKey, '0', '0', 'WITHSCORES'])) as string[];
    return reply.length >= 2 ? Number(reply[1]) : undefined;
  }

  async pumpQueues(now: number, ignorePauses: boolean): Promise<number> {
    return Number(await pumpScript.run(this.#redis, [queuesKey, dueKey], [now, ignorePauses ? '1' : '0']));
  }

  async recover(now: number): Promise<number> {
    return Number(await recoverScript.run(this.#redis, [inflightKey, dueKey], [now]));
  }

  /** Writes an attempt's outcome; attempts that finish together go to Redis as one call (turn-batch.ts). */
  finishAttempt(write: AttemptWrite): Promise<void> {
    return this.#finishes.add(write);
  }

  /** The outcomes of many attempts in one round trip, each as finishAttempt writes it. */
  async finishAttempts(writes: readonly AttemptWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const args: string[] = [String(finishedTtlSeconds)];
    for (const write of writes) finishArgs(write, args);
    await finishScript.run(this.#redis, [inflightKey, dueKey, dlqKey, statsKey, dlqOrderKey], args);
  }

  async message(id: string): Promise<StoredMessage | undefined> {
    const raw = await this.#redis.get(messageKey(id));
    return raw === null ? undefined : (JSON.parse(String(raw)) as StoredMessage);
  }

  async deadLetters(): Promise<DeadLetter[]> {
    const all = (await this.#redis.sendCommand(['HVALS', dlqKey])) as string[];
    return all.map((raw) => JSON.parse(String(raw)) as DeadLetter).sort((a, b) => a.createdAt - b.createdAt);
  }

  async deadLetter(dlqId: string): Promise<DeadLetter | undefined> {
    const raw = (await this.#redis.sendCommand(['HGET', dlqKey, dlqId])) as string | null;
    return raw === null ? undefined : (JSON.parse(String(raw)) as DeadLetter);
  }

  async deleteDeadLetter(dlqId: string): Promise<boolean> {
    return Number(await deleteDeadLetterScript.run(this.#redis, [dlqKey, dlqOrderKey], [dlqId])) === 1;
  }

  /** Counts for the admin endpoint and the accounting tests. */
  async stats(): Promise<Record<string, number>> {
    const [counts, due, inflight, dlq] = await Promise.all([
      this.#redis.sendCommand(['HGETALL', statsKey]) as Promise<string[]>,
      this.#redis.sendCommand(['ZCARD', dueKey]),
      this.#redis.sendCommand(['ZCARD', inflightKey]),
      this.#redis.sendCommand(['HLEN', dlqKey]),
    ]);
    const out: Record<string, number> = { delivered: 0, failed: 0, retries: 0 };
    for (let i = 0; i + 1 < counts.length; i += 2) out[String(counts[i])] = Number(counts[i + 1]);
    return { ...out, due: Number(due), inflight: Number(inflight), deadLetters: Number(dlq) };
  }

  // Queues (the real service's upsert, get, pause and resume)

  /**
   * Creates or updates a queue. False, with nothing written, when the queue does not exist and the
   * account already holds `maxQueues` queues (counted and created in one script: concurrent upserts
   * cannot pass the limit); an existing queue is always updated. No `maxQueues`: no limit.
   */
  async upsertQueue(name: string, parallelism: number, paused: boolean | undefined, maxQueues = -1): Promise<boolean> {
    const written = await upsertQueueScript.run(
      this.#redis,
      [queuesKey, queueKey(name)],
      [name, parallelism, paused === undefined ? '' : paused ? '1' : '0', Date.now(), maxQueues],
    );
    return Number(written) === 1;
  }

  async queue(name: string): Promise<QueueView | undefined> {
    const fields = (await this.#redis.sendCommand(['HGETALL', queueKey(name)])) as string[];
    if (fields.length === 0) return undefined;
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < fields.length; i += 2) map.set(String(fields[i]), String(fields[i + 1]));
    const lag = Number(await this.#redis.sendCommand(['LLEN', `${queueKey(name)}:list`]));
    return {
      name,
      parallelism: Number(map.get('parallelism') ?? 1),
      paused: map.get('paused') === '1',
      createdAt: Number(map.get('createdAt') ?? 0),
      updatedAt: Number(map.get('updatedAt') ?? 0),
      lag,
    };
  }

  /** Sets a queue's pause; false when there is no such queue. */
  async setPaused(name: string, paused: boolean): Promise<boolean> {
    if (Number(await this.#redis.sendCommand(['EXISTS', queueKey(name)])) === 0) return false;
    await this.#redis.sendCommand([
      'HSET',
      queueKey(name),
      'paused',
      paused ? '1' : '0',
      'updatedAt',
      String(Date.now()),
    ]);
    return true;
  }

  async deleteQueue(name: string): Promise<boolean> {
    const tx = this.#redis.multi();
    tx.addCommand(['DEL', queueKey(name), `${queueKey(name)}:list`, `${queueKey(name)}:active`]);
    tx.addCommand(['SREM', queuesKey, name]);
    const [deleted] = (await tx.exec()) as unknown as number[];
    return Number(deleted) > 0;
  }

  async queueNames(): Promise<string[]> {
    return ((await this.#redis.sendCommand(['SMEMBERS', queuesKey])) as string[]).map(String).sort();
  }
}
