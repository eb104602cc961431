/**
 * Reading the JSON body of `POST /v2/search`: name (non-empty string), region and type (the spec's
 * enums), all required. Every problem is a ManagementInputError naming the field, answered 400.
 * The fault switches that loosen the checks are passed in as plain flags.
 */
import {
  type CreateIndexInput,
  type IndexRegion,
  type IndexType,
  indexRegions,
  indexTypes,
  isIndexRegion,
  isIndexType,
} from './search-index.ts';

/** A request the spec refuses; the plugin answers 400 with its message. */
export class ManagementInputError extends Error {}

/** How loose the checks are: each flag is a fault switch (all false for a faithful service). */
export interface CreateIndexLeniency {
  /** Missing fields get a default instead of a refusal. */
  readonly fillMissing: boolean;
  /** Any present type is accepted; the index answers it as given. */
  readonly anyType: boolean;
  /** Any present region is accepted; the index answers it as given. */
  readonly anyRegion: boolean;
}

export interface CreateIndexRequest {
  readonly input: CreateIndexInput;
  /** Values accepted outside the enums (only with a leniency on), answered in place of the index's own. */
  readonly asGiven: Readonly<Partial<Record<'type' | 'region', unknown>>>;
}

const defaults = { name: 'index', region: 'eu-west-1', type: 'free' } as const;

export function readCreateIndex(body: unknown, leniency: CreateIndexLeniency): CreateIndexRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ManagementInputError('the body must be a JSON object with name, region and type');
  }
  const fields = body as Record<string, unknown>;
  const missing = (field: keyof typeof defaults) => fields[field] === undefined || fields[field] === null;
  const asGiven: Partial<Record<'type' | 'region', unknown>> = {};

  let name: string;
  if (missing('name') && leniency.fillMissing) name = defaults.name;
  else if (typeof fields.name === 'string' && fields.name !== '') name = fields.name;
  else throw new ManagementInputError('name is required and must be a non-empty string');

  let region: IndexRegion;
  if (missing('region') && leniency.fillMissing) region = defaults.region;
  else if (isIndexRegion(fields.region)) region = fields.region;
  else if (!missing('region') && leniency.anyRegion) {
    region = defaults.region;
    asGiven.region = fields.region;
  } else throw new ManagementInputError(`region is required and must be one of ${indexRegions.join(', ')}`);

  let type: IndexType;
  if (missing('type') && leniency.fillMissing) type = defaults.type;
  else if (isIndexType(fields.type)) type = fields.type;
  else if (!missing('type') && leniency.anyType) {
    type = defaults.type;
    asGiven.type = fields.type;
  } else throw new ManagementInputError(`type is required and must be one of ${indexTypes.join(', ')}`);

  return { input: { name, region, type }, asGiven };
}
