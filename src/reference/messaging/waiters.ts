/**
 * Waiters and notify (spec "Waiter (area A)", "NotifyResponse item (area A)"). A waiter lives in
 * Redis under its event id, keyed by its workflow run id, with its deadline in a sorted set. Notify,
 * notify-by-run, wait and the deadline sweep are each one Lua script that takes the waiter and stores
 * the message it causes (the notification to the waiter's URL, or the timeout request to its
 * timeoutUrl) together, so a crash never loses an event that was answered as notified.
 */
import { randomBytes } from 'node:crypto';
import { type LuaReply, LuaScript, type MessagingRedis } from './lua-script.ts';
import { keyPrefix } from './message-store.ts';

/** A waiter as stored: the spec's Waiter fields, and what notify responses need besides. */
export interface StoredWaiter {
  readonly url: string;
  /** Header name → array of strings (or a plain string under the `workflow-headers-plain` fault). */
  readonly headers: Readonly<Record<string, string[] | string>>;
  readonly deadlineMs: number;
  /** Base64. */
  readonly timeoutBody: string;
  readonly timeoutUrl: string;
  readonly timeoutHeaders: Readonly<Record<string, string[]>>;
  readonly workflowRunId: string;
  readonly workflowCreatedAt: number;
  readonly createdAt: number;
}

const deadlinesKey = `${keyPrefix}waiter-deadlines`;
const dueKey = `${keyPrefix}due`;
const waitersKey = (eventId: string) => `${keyPrefix}waiters:${eventId}`;
const pendingKey = (runId: string, eventId: string) => `${keyPrefix}pending:${runId}:${eventId}`;
const keptKey = (eventId: string) => `${keyPrefix}kept:${eventId}`;
/** How long an event notified to a run before it waits is kept for it. */
const pendingTtlSeconds = 7 * 24 * 3600;

/**
 * Shared by the scripts: stores the message a waiter causes and makes it due now. ARGV[1..4] of every
 * script are: now (ms), the new messages' id prefix, their retries, their per-attempt timeout (ms).
 */
const makeMessage = `
local function flat(headers)
  local out = {}
  for name, value in pairs(headers or {}) do
    if type(value) == 'table' then out[name] = table.concat(value, ', ') else out[name] = value end
  end
  return out
end
local function store_message(n, kind, url, headers, body)
  local id = ARGV[2] .. n
  local m = { id = id, kind = kind, url = url, method = 'POST', headers = flat(headers), body = body,
    createdAt = tonumber(ARGV[1]), notBefore = tonumber(ARGV[1]), maxRetries = tonumber(ARGV[3]), retried = 0,
    timeoutMs = tonumber(ARGV[4]), sourceHeader = {}, callerIP = '' }
  redis.call('SET', '${keyPrefix}msg:' .. id, cjson.encode(m))
  redis.call('ZADD', '${dueKey}', ARGV[1], id)
  return id
end
`;

// KEYS[1] the event's waiters, KEYS[2] deadlines, KEYS[3] the kept event (fault); ARGV[5] event id,
// ARGV[6] body (base64), ARGV[7] '1' for the oldest waiter only (fault), ARGV[8] '1' to keep an event
// nobody waits for (fault). Answers {waiter json, message id} pairs.
const notifyScript = new LuaScript(`${makeMessage}
local all = redis.call('HGETALL', KEYS[1])
local chosen = {}
for i = 1, #all, 2 do chosen[#chosen + 1] = { all[i], all[i + 1], cjson.decode(all[i + 1]).createdAt } end
table.sort(chosen, function(a, b) return a[3] < b[3] end)
if ARGV[7] == '1' and #chosen > 1 then chosen = { chosen[1] } end
if #chosen == 0 and ARGV[8] == '1' then redis.call('SET', KEYS[3], ARGV[6], 'EX', ${pendingTtlSeconds}) end
local out = {}
for n, item in ipairs(chosen) do
  local w = cjson.decode(item[2])
  local id = store_message(n, 'notify', w.url, w.headers, ARGV[6])
  redis.call('HDEL', KEYS[1], item[1])
  redis.call('ZREM', KEYS[2], ARGV[5] .. '\\n' .. item[1])
  out[#out + 1] = { item[2], id }
end
return out
`);

// KEYS[1] the event's waiters, KEYS[2] deadlines, KEYS[3] the run's pending event; ARGV[5] event id,
// ARGV[6] run id, ARGV[7] body, ARGV[8] '1' to keep the event for the run when it is not waiting yet.
const notifyRunScript = new LuaScript(`${makeMessage}
local raw = redis.call('HGET', KEYS[1], ARGV[6])
if not raw then
  if ARGV[8] == '1' then redis.call('SET', KEYS[3], ARGV[7], 'EX', ${pendingTtlSeconds}) end
  return {}
end
local w = cjson.decode(raw)
local id = store_message(1, 'notify', w.url, w.headers, ARGV[7])
redis.call('HDEL', KEYS[1], ARGV[6])
redis.call('ZREM', KEYS[2], ARGV[5] .. '\\n' .. ARGV[6])
return { { raw, id } }
`);

// KEYS[1] the event's waiters, KEYS[2] deadlines, KEYS[3] the run's pending event, KEYS[4] the kept
// event (fault); ARGV[5] event id, ARGV[6] run id, ARGV[7] waiter json, ARGV[8] deadline (ms).
// An event already notified to this run is delivered at once; otherwise the waiter waits.
const waitScript = new LuaScript(`${makeMessage}
local w = cjson.decode(ARGV[7])
local pending = redis.call('GET', KEYS[3]) or redis.call('GET', KEYS[4])
if pending then
  redis.call('DEL', KEYS[3], KEYS[4])
  return { 'notified', store_message(1, 'notify', w.url, w.headers, pending) }
end
redis.call('HSET', KEYS[1], ARGV[6], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[8], ARGV[5] .. '\\n' .. ARGV[6])
return { 'waiting' }
`);

// KEYS[1] deadlines; ARGV[5] how many at most. Ends waiters whose deadline passed; a waiter with a
// timeoutUrl gets its timeout request.
const expireScript = new LuaScript(`${makeMessage}
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[5]))
local n = 0
for _, member in ipairs(members) do
  redis.call('ZREM', KEYS[1], member)
  local cut = string.find(member, '\\n', 1, true)
  local event, run = string.sub(member, 1, cut - 1), string.sub(member, cut + 1)
  local key = '${keyPrefix}waiters:' .. event
  local raw = redis.call('HGET', key, run)
  if raw then
    redis.call('HDEL', key, run)
    local w = cjson.decode(raw)
    if w.timeoutUrl and w.timeoutUrl ~= '' then
      n = n + 1
      store_message(n, 'timeout', w.timeoutUrl, w.timeoutHeaders, w.timeoutBody)
    end
  end
end
return #members
`);

export interface Notified {
  readonly waiter: StoredWaiter;
  readonly messageId: string;
}

export interface NotifyFaults {
  readonly firstOnly: boolean;
  readonly keepLost: boolean;
  readonly emptyBody: boolean;
}

/** Retries and per-attempt timeout of the messages waiters cause. */
export interface CausedSettings {
  readonly retries: number;
  readonly timeoutMs: number;
}

function idPrefix(): string {
  return `msg_${randomBytes(15).toString('base64url')}_`;
}

function pairs(reply: LuaReply): Notified[] {
  return (reply as LuaReply[]).map((item) => {
    const [raw, id] = item as [string, string];
    return { waiter: JSON.parse(String(raw)) as StoredWaiter, messageId: String(id) };
  });
}

export class WaiterStore {
  readonly #redis: MessagingRedis;
  readonly #caused: () => CausedSettings;

  constructor(redis: MessagingRedis, caused: () => CausedSettings) {
    this.#redis = redis;
    this.#caused = caused;
  }

  #head(now: number): (string | number)[] {
    const { retries, timeoutMs } = this.#caused();
    return [now, idPrefix(), retries, timeoutMs];
  }

  async notify(eventId: string, bodyBase64: string, faults: NotifyFaults): Promise<Notified[]> {
    const reply = await notifyScript.run(
      this.#redis,
      [waitersKey(eventId), deadlinesKey, keptKey(eventId)],
      [
        ...this.#head(Date.now()),
        eventId,
        faults.emptyBody ? '' : bodyBase64,
        faults.firstOnly ? '1' : '0',
        faults.keepLost ? '1' : '0',
      ],
    );
    return pairs(reply);
  }

  async notifyRun(runId: string, eventId: string, bodyBase64: string, keepForRun: boolean, emptyBody: boolean) {
    const reply = await notifyRunScript.run(
      this.#redis,
      [waitersKey(eventId), deadlinesKey, pendingKey(runId, eventId)],
      [...this.#head(Date.now()), eventId, runId, emptyBody ? '' : bodyBase64, keepForRun ? '1' : '0'],
    );
    return pairs(reply);
  }

  /** Registers a waiter, or delivers at once an event already notified to its run. */
  async wait(
    eventId: string,
    waiter: StoredWaiter,
  ): Promise<{ notified: false } | { notified: true; messageId: string }> {
    const reply = (await waitScript.run(
      this.#redis,
      [waitersKey(eventId), deadlinesKey, pendingKey(waiter.workflowRunId, eventId), keptKey(eventId)],
      [...this.#head(Date.now()), eventId, waiter.workflowRunId, JSON.stringify(waiter), waiter.deadlineMs],
    )) as string[];
    return reply[0] === 'notified' ? { notified: true, messageId: String(reply[1]) } : { notified: false };
  }

  async list(eventId: string): Promise<StoredWaiter[]> {
    const all = (await this.#redis.sendCommand(['HVALS', waitersKey(eventId)])) as string[];
    return all.map((raw) => JSON.parse(String(raw)) as StoredWaiter).sort((a, b) => a.createdAt - b.createdAt);
  }

  async expire(now: number): Promise<number> {
    return Number(await expireScript.run(this.#redis, [deadlinesKey], [...this.#head(now), 100]));
  }
}
