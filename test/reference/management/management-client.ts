/**
 * Helpers for the area C tests: a caller with the target's HTTP Basic credentials, and checks of the
 * spec's field tables (every field present, with its type) that list what is wrong.
 */
import { httpRequest } from '../../../src/http/http-client.ts';
import type { HttpMethod } from '../../../src/protocol/http-method.ts';
import type { RunningReference } from '../../../src/reference/reference-service.ts';

export interface MgmtResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body parsed as JSON, or undefined. */
  readonly json: unknown;
}

export interface MgmtOptions {
  readonly method?: HttpMethod;
  /** A JSON value to send, or a raw string body. */
  readonly body?: unknown;
  /** The Authorization header; null sends none. @default Basic with the target's credentials */
  readonly authorization?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Calls area C of a running reference: `mgmt(ref, '/v2/search', { body: {...} })`. */
export async function mgmt(ref: RunningReference, path: string, options: MgmtOptions = {}): Promise<MgmtResult> {
  const target = ref.target.management!;
  const authorization =
    options.authorization === undefined ? basic(target.username, target.password) : options.authorization;
  const body =
    options.body === undefined || typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const res = await httpRequest({
    url: `${target.url}${path}`,
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(authorization !== null && { authorization }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(body !== undefined && { body }),
  });
  const text = res.body.toString('utf8');
  return { status: res.status, headers: res.headers, text, json: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`not a JSON object: ${JSON.stringify(value)}`);
  }
  return value as JsonObject;
}

/** Creates an index and returns the answer's object (whatever its status). */
export async function createIndex(
  ref: RunningReference,
  body: JsonObject = { name: 'docs', region: 'us-central1', type: 'payg' },
): Promise<JsonObject> {
  return asObject((await mgmt(ref, '/v2/search', { body })).json);
}

export async function getAccount(ref: RunningReference): Promise<MgmtResult> {
  return mgmt(ref, ref.target.dialect === 'upstash' ? '/v2/qstash/user' : '/v2/svc/user');
}

type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'throughput';

/** The spec's Search index table: field → type. */
export const indexFieldKinds: Readonly<Record<string, FieldKind>> = {
  customer_id: 'string',
  id: 'string',
  name: 'string',
  endpoint: 'string',
  type: 'string',
  region: 'string',
  partner_email: 'string',
  token: 'string',
  read_only_token: 'string',
  max_vector_count: 'integer',
  max_monthly_reranks: 'integer',
  max_daily_updates: 'integer',
  max_daily_queries: 'integer',
  max_monthly_bandwidth: 'integer',
  max_writes_per_second: 'integer',
  max_query_per_second: 'integer',
  max_reads_per_request: 'integer',
  max_writes_per_request: 'integer',
  creation_time: 'integer',
  input_enrichment_enabled: 'boolean',
  throughput_vector: 'throughput',
};

/** The spec's Messaging account table: field → type. */
export const accountFieldKinds: Readonly<Record<string, FieldKind>> = {
  customer_id: 'string',
  id: 'string',
  password: 'string',
  token: 'string',
  active: 'boolean',
  state: 'string',
  last_plan_upgrade_time: 'integer',
  max_message_size: 'integer',
  max_requests_per_day: 'integer',
  max_requests_per_day_hard: 'integer',
  max_endpoints_per_topic: 'integer',
  max_requests_per_second: 'integer',
  max_dlq_size: 'integer',
  max_retries: 'integer',
  max_topics: 'integer',
  max_schedules: 'integer',
  max_events_size: 'integer',
  max_dlq_retention_time_milis: 'integer',
  max_delay: 'integer',
  max_parallelism: 'integer',
  max_global_parallelism: 'integer',
  max_queues: 'integer',
  prod_pack_enabled: 'boolean',
  timeout: 'integer',
  type: 'string',
  reserved_type: 'string',
  reserved_price: 'number',
  created_by: 'string',
  creation_time: 'integer',
};

function fits(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'throughput':
      return (
        Array.isArray(value) &&
        value.every(
          (item: unknown) =>
            typeof item === 'object' &&
            item !== null &&
            typeof (item as JsonObject).x === 'string' &&
            typeof (item as JsonObject).y === 'number',
        )
      );
  }
}

/** What is wrong with an object against a field table: `missing: x`, `wrong type: y`. */
export function fieldProblems(object: JsonObject, kinds: Readonly<Record<string, FieldKind>>): string[] {
  return Object.entries(kinds).flatMap(([field, kind]) => {
    if (!(field in object)) return [`missing: ${field}`];
    return fits(object[field], kind) ? [] : [`wrong type: ${field} (${JSON.stringify(object[field])})`];
  });
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
