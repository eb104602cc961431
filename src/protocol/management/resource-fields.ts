/**
 * The field tables of the spec's area C resources ("Resources and their fields": Search index, Messaging
 * account), written once. The suites judge answers against them and the reference's types are checked
 * against them at compile time, so the two cannot drift apart. Neutral: no Node module.
 */

/** A field's type as the spec's table gives it. `enum` fields list their values. */
export type SpecFieldType = 'string' | 'uuid' | 'integer' | 'number' | 'boolean' | 'enum' | 'throughput';

export interface SpecField {
  readonly type: SpecFieldType;
  /** The values of an `enum` field, as the spec lists them (the dialect may rename `svc_` values). */
  readonly values?: readonly string[];
  /** The spec marks it secret: it never reaches a report or a log. */
  readonly secret?: true;
}

export const searchIndexRegions = ['eu-west-1', 'us-central1'] as const;
export const searchIndexTypes = ['free', 'payg', 'fixed'] as const;

/** Spec "Search index (area C)", in the spec's order. */
export const searchIndexFields = {
  customer_id: { type: 'string' },
  id: { type: 'uuid' },
  name: { type: 'string' },
  endpoint: { type: 'string' },
  type: { type: 'enum', values: searchIndexTypes },
  region: { type: 'enum', values: searchIndexRegions },
  partner_email: { type: 'string' },
  token: { type: 'string', secret: true },
  read_only_token: { type: 'string', secret: true },
  max_vector_count: { type: 'integer' },
  max_monthly_reranks: { type: 'integer' },
  max_daily_updates: { type: 'integer' },
  max_daily_queries: { type: 'integer' },
  max_monthly_bandwidth: { type: 'integer' },
  max_writes_per_second: { type: 'integer' },
  max_query_per_second: { type: 'integer' },
  max_reads_per_request: { type: 'integer' },
  max_writes_per_request: { type: 'integer' },
  creation_time: { type: 'integer' },
  input_enrichment_enabled: { type: 'boolean' },
  throughput_vector: { type: 'throughput' },
} as const satisfies Readonly<Record<string, SpecField>>;

/** Spec "Messaging account (area C)", in the spec's order. */
export const messagingAccountFields = {
  customer_id: { type: 'string' },
  id: { type: 'uuid' },
  password: { type: 'string', secret: true },
  token: { type: 'string', secret: true },
  active: { type: 'boolean' },
  state: { type: 'enum', values: ['active', 'passive'] },
  last_plan_upgrade_time: { type: 'integer' },
  max_message_size: { type: 'integer' },
  max_requests_per_day: { type: 'integer' },
  max_requests_per_day_hard: { type: 'integer' },
  max_endpoints_per_topic: { type: 'integer' },
  max_requests_per_second: { type: 'integer' },
  max_dlq_size: { type: 'integer' },
  max_retries: { type: 'integer' },
  max_topics: { type: 'integer' },
  max_schedules: { type: 'integer' },
  max_events_size: { type: 'integer' },
  max_dlq_retention_time_milis: { type: 'integer' },
  max_delay: { type: 'integer' },
  max_parallelism: { type: 'integer' },
  max_global_parallelism: { type: 'integer' },
  max_queues: { type: 'integer' },
  prod_pack_enabled: { type: 'boolean' },
  timeout: { type: 'integer' },
  type: { type: 'enum', values: ['free', 'paid'] },
  reserved_type: { type: 'enum', values: ['paid', 'svc_enterprise_1m', 'svc_enterprise_10m'] },
  reserved_price: { type: 'number' },
  created_by: { type: 'string' },
  creation_time: { type: 'integer' },
} as const satisfies Readonly<Record<string, SpecField>>;

export type SearchIndexField = keyof typeof searchIndexFields;
export type MessagingAccountField = keyof typeof messagingAccountFields;

/** The spec's secret fields of both resources. */
export const secretFieldNames: ReadonlySet<string> = new Set(
  [...Object.entries(searchIndexFields), ...Object.entries(messagingAccountFields)]
    .filter(([, field]) => 'secret' in field)
    .map(([name]) => name),
);

/**
 * `true` when two key sets are equal, else `never`: `const x: SameKeys<keyof T, SearchIndexField> = true`
 * fails to compile when a type of the reference gains or loses a field the spec's table does not have.
 */
export type SameKeys<A extends PropertyKey, B extends PropertyKey> = [A] extends [B]
  ? [B] extends [A]
    ? true
    : never
  : never;
