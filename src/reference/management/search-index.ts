/**
 * The search index of the spec ("Search index (area C)"): its enums, its fields in the spec's order
 * and types, and how the reference builds a new one. Pure: ids, tokens and the clock come in from
 * outside, so the plugin decides them (and a fault can change them) in one place.
 */

import {
  type SameKeys,
  type SearchIndexField,
  searchIndexRegions,
  searchIndexTypes,
} from '../../protocol/management/resource-fields.ts';

export const indexTypes = searchIndexTypes;
export type IndexType = (typeof indexTypes)[number];

export const indexRegions = searchIndexRegions;
export type IndexRegion = (typeof indexRegions)[number];

/** One point of `throughput_vector`: x a timestamp as text, y a number. */
export interface ThroughputPoint {
  readonly x: string;
  readonly y: number;
}

/** The plan limits of an index; -1 means unlimited where the spec says so. */
export interface IndexLimits {
  readonly max_vector_count: number;
  readonly max_monthly_reranks: number;
  readonly max_daily_updates: number;
  readonly max_daily_queries: number;
  readonly max_monthly_bandwidth: number;
  readonly max_writes_per_second: number;
  readonly max_query_per_second: number;
  readonly max_reads_per_request: number;
  readonly max_writes_per_request: number;
}

/** The four limits the spec allows to be -1 (unlimited). */
export const unlimitedCapableFields = [
  'max_monthly_reranks',
  'max_daily_updates',
  'max_daily_queries',
  'max_monthly_bandwidth',
] as const satisfies readonly (keyof IndexLimits)[];

/** Every field of the spec's Search index, in its order and types. */
export interface SearchIndex extends IndexLimits {
  readonly customer_id: string;
  readonly id: string;
  readonly name: string;
  readonly endpoint: string;
  readonly type: IndexType;
  readonly region: IndexRegion;
  /** '' when no integration is tied to the index. */
  readonly partner_email: string;
  /** Secret. */
  readonly token: string;
  /** Secret. */
  readonly read_only_token: string;
  readonly creation_time: number;
  readonly input_enrichment_enabled: boolean;
  readonly throughput_vector: readonly ThroughputPoint[];
}

/** Compile-time: the interface has exactly the fields of the spec's table (resource-fields.ts). */
export const searchIndexMatchesSpec: SameKeys<keyof SearchIndex, SearchIndexField> = true;

/** What a create request asks for (spec: all three required). */
export interface CreateIndexInput {
  readonly name: string;
  readonly region: IndexRegion;
  readonly type: IndexType;
}

/**
 * Limits by plan. The spec's example values (2,000,000 vectors, 1000 writes and queries per second,
 * 100 reads and writes per request) for the paid plans, whose metered limits are unlimited (-1); the
 * free plan has small finite quotas everywhere, as the real service's free tier does.
 */
const paidLimits: IndexLimits = {
  max_vector_count: 2_000_000,
  max_monthly_reranks: -1,
  max_daily_updates: -1,
  max_daily_queries: -1,
  max_monthly_bandwidth: -1,
  max_writes_per_second: 1000,
  max_query_per_second: 1000,
  max_reads_per_request: 100,
  max_writes_per_request: 100,
};

const limitsByType: Readonly<Record<IndexType, IndexLimits>> = {
  free: {
    max_vector_count: 200_000,
    max_monthly_reranks: 100,
    max_daily_updates: 10_000,
    max_daily_queries: 10_000,
    max_monthly_bandwidth: 10 * 1024 ** 3,
    max_writes_per_second: 1000,
    max_query_per_second: 1000,
    max_reads_per_request: 100,
    max_writes_per_request: 100,
  },
  payg: paidLimits,
  fixed: paidLimits,
};

export function isIndexType(value: unknown): value is IndexType {
  return (indexTypes as readonly unknown[]).includes(value);
}

export function isIndexRegion(value: unknown): value is IndexRegion {
  return (indexRegions as readonly unknown[]).includes(value);
}

/** What the plugin decides for a new index: its owner, id, secrets and the time. */
export interface NewIndexParts {
  readonly customerId: string;
  readonly id: string;
  readonly token: string;
  readonly readOnlyToken: string;
  readonly nowMs: number;
}

/** Hours of throughput history a new index starts with (all zero: nothing was sent to it yet). */
const throughputHours = 6;

export function newSearchIndex(input: CreateIndexInput, parts: NewIndexParts): SearchIndex {
  const hourMs = 3600 * 1000;
  const lastHour = Math.floor(parts.nowMs / hourMs) * hourMs;
  const throughput = Array.from({ length: throughputHours }, (_, at) => ({
    x: new Date(lastHour - (throughputHours - 1 - at) * hourMs).toISOString(),
    y: 0,
  }));
  return {
    customer_id: parts.customerId,
    id: parts.id,
    name: input.name,
    endpoint: indexEndpoint(input.name, parts.id, input.region),
    type: input.type,
    region: input.region,
    partner_email: '',
    token: parts.token,
    read_only_token: parts.readOnlyToken,
    ...limitsByType[input.type],
    creation_time: Math.floor(parts.nowMs / 1000),
    input_enrichment_enabled: false,
    throughput_vector: throughput,
  };
}

/**
 * A host name in the real service's form, `<name>-<short id>-<region>-vector.<domain>`, under the
 * reserved `.invalid` top-level domain so nobody mistakes it for a reachable host. The name is cut
 * down to what a DNS label may hold, since a spec name may be any string.
 */
function indexEndpoint(name: string, id: string, region: IndexRegion): string {
  const label =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32)
      .replace(/-+$/, '') || 'index';
  const shortId = id.replace(/[^0-9a-f]/gi, '').slice(0, 8);
  return `${label}-${shortId}-${region}-vector.reference.invalid`;
}
