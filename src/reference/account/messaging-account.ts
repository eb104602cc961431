/**
 * The messaging account (spec "Messaging account (area C)"): one record in the reference's Redis,
 * created on the first start and kept across restarts, so its token and limits survive a crash.
 * Area A authenticates with its `token` and obeys its limits; area C answers it on
 * `GET /v2/svc/user` and authenticates with the management credentials kept beside it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { MessagingAccountField, SameKeys } from '../../protocol/management/resource-fields.ts';
import type { AreaRedis } from './area-redis.ts';

export type AccountPlanType = 'free' | 'paid';

/** Every field of the spec's Messaging account, in its order and types. */
export interface MessagingAccount {
  readonly customer_id: string;
  readonly id: string;
  /** Secret. */
  readonly password: string;
  /** Secret: area A's bearer token (JWT format). */
  readonly token: string;
  readonly active: boolean;
  readonly state: 'active' | 'passive';
  readonly last_plan_upgrade_time: number;
  readonly max_message_size: number;
  readonly max_requests_per_day: number;
  readonly max_requests_per_day_hard: number;
  readonly max_endpoints_per_topic: number;
  readonly max_requests_per_second: number;
  readonly max_dlq_size: number;
  readonly max_retries: number;
  readonly max_topics: number;
  readonly max_schedules: number;
  readonly max_events_size: number;
  readonly max_dlq_retention_time_milis: number;
  readonly max_delay: number;
  readonly max_parallelism: number;
  readonly max_global_parallelism: number;
  readonly max_queues: number;
  readonly prod_pack_enabled: boolean;
  readonly timeout: number;
  readonly type: AccountPlanType;
  /** A dialect's reserved plan name, or '' when no card is attached and the account is not pay-as-you-go. */
  readonly reserved_type: string;
  readonly reserved_price: number;
  readonly created_by: string;
  readonly creation_time: number;
}

/** Compile-time: the interface has exactly the fields of the spec's table (resource-fields.ts). */
export const messagingAccountMatchesSpec: SameKeys<keyof MessagingAccount, MessagingAccountField> = true;

/** The limits an operator (or a test) may change through the admin endpoint. */
export const accountLimitFields = [
  'max_message_size',
  'max_requests_per_day',
  'max_requests_per_day_hard',
  'max_endpoints_per_topic',
  'max_requests_per_second',
  'max_dlq_size',
  'max_retries',
  'max_topics',
  'max_schedules',
  'max_events_size',
  'max_dlq_retention_time_milis',
  'max_delay',
  'max_parallelism',
  'max_global_parallelism',
  'max_queues',
  'timeout',
] as const satisfies readonly (keyof MessagingAccount)[];

export type AccountLimitField = (typeof accountLimitFields)[number];
export type AccountLimits = Readonly<Record<AccountLimitField, number>>;

/** What is stored: the account and the management API key (HTTP Basic password of area C). */
export interface AccountRecord {
  readonly account: MessagingAccount;
  /** Secret: area C's Basic password; the user name is the account's `customer_id`. */
  readonly managementKey: string;
}

export const accountKey = 'svc:ref:account';

/**
 * The spec's example values for a paid account ("Limits"), and the real service's defaults for the
 * rest. A reserved plan of 'paid': the account is pay-as-you-go.
 */
export const paidPlanLimits: AccountLimits = {
  max_message_size: 52_428_800,
  max_requests_per_day: 1_000_000,
  max_requests_per_day_hard: 10_000_000,
  max_endpoints_per_topic: 100,
  max_requests_per_second: 500,
  max_dlq_size: 100_000,
  max_retries: 20,
  max_topics: 1000,
  max_schedules: 1_000_000,
  max_events_size: 100_000,
  max_dlq_retention_time_milis: 7 * 24 * 3600 * 1000,
  max_delay: 365 * 24 * 3600,
  max_parallelism: 10,
  max_global_parallelism: 200,
  max_queues: 1000,
  timeout: 21_600,
};

async function newAccountRecord(): Promise<AccountRecord> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const customer = 'owner@reference.invalid';
  const id = randomUUID();
  // A JWT-format token, as the spec's area A authentication says; its signing secret is thrown away.
  const token = await new SignJWT({ UserID: id, Password: randomBytes(16).toString('hex') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(randomBytes(32));
  return {
    account: {
      customer_id: customer,
      id,
      password: randomBytes(24).toString('base64url'),
      token,
      active: true,
      state: 'active',
      last_plan_upgrade_time: nowSeconds,
      ...paidPlanLimits,
      prod_pack_enabled: false,
      type: 'paid',
      reserved_type: 'paid',
      reserved_price: 0,
      created_by: customer,
      creation_time: nowSeconds,
    },
    managementKey: randomBytes(24).toString('base64url'),
  };
}

/**
 * The account as both areas read it. Reads are cached for a short while (every area A request reads
 * the limits); `update` writes through, and the other area sees it within `maxAgeMs`.
 */
export class AccountStore {
  readonly #redis: AreaRedis;
  readonly #maxAgeMs: number;
  #cached: AccountRecord;
  #readAt: number;

  private constructor(redis: AreaRedis, record: AccountRecord, maxAgeMs: number) {
    this.#redis = redis;
    this.#cached = record;
    this.#readAt = Date.now();
    this.#maxAgeMs = maxAgeMs;
  }

  /** Reads the account, creating it on the first start of a reference on this Redis. */
  static async open(redis: AreaRedis, maxAgeMs = 250): Promise<AccountStore> {
    await redis.set(accountKey, JSON.stringify(await newAccountRecord()), { condition: 'NX' });
    return new AccountStore(redis, await AccountStore.#read(redis), maxAgeMs);
  }

  static async #read(redis: AreaRedis): Promise<AccountRecord> {
    const raw = await redis.get(accountKey);
    if (raw === null) throw new Error(`the account record ${accountKey} is missing from Redis`);
    return JSON.parse(String(raw)) as AccountRecord;
  }

  /** The record as last read; fresh enough for a request's checks. */
  async record(): Promise<AccountRecord> {
    if (Date.now() - this.#readAt > this.#maxAgeMs) {
      this.#cached = await AccountStore.#read(this.#redis);
      this.#readAt = Date.now();
    }
    return this.#cached;
  }

  /** The record without a read: for hot paths that tolerate a value up to `maxAgeMs` old. */
  get cached(): AccountRecord {
    if (Date.now() - this.#readAt > this.#maxAgeMs) {
      // Refreshed in the background; this request uses the value in hand.
      this.#readAt = Date.now();
      AccountStore.#read(this.#redis).then(
        (record) => {
          this.#cached = record;
        },
        () => {},
      );
    }
    return this.#cached;
  }

  /** Changes limits, the plan type or the reserved plan; the rest of the record stays. */
  async update(
    patch: Partial<Pick<MessagingAccount, AccountLimitField | 'type' | 'reserved_type' | 'state' | 'active'>>,
  ) {
    const current = await AccountStore.#read(this.#redis);
    const next: AccountRecord = { ...current, account: { ...current.account, ...patch } };
    await this.#redis.set(accountKey, JSON.stringify(next));
    this.#cached = next;
    this.#readAt = Date.now();
    return next.account;
  }
}
