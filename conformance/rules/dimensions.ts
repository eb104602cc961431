/**
 * The dimensions rules speak about (issue 20, coverage by construction): one closed vocabulary for all
 * areas. A rule's grids (conformance/rules/<area>-dimensions.ts) name dimensions of this table, a
 * case's `covers` names cells with `cover(rule, where)`; both are typed against it, and
 * test/conformance/rules/coverage.test.ts fails when a cell is left uncovered.
 *
 * To add a dimension or a value: add it here; every rule whose grid uses the dimension then has new
 * cells, which a case must cover (or a `notApplicable` entry must carve out, with its reason).
 */
import {
  type CellCover,
  type CellRegion,
  type Dimension,
  messagingAccountFields,
  searchIndexFields,
} from '../../src/suite-kit/suite-api.ts';

/** The field names of a spec table, typed (the table keeps its one home in src/protocol). */
function fieldsOf<T extends object>(table: T): (keyof T & string)[] {
  return Object.keys(table) as (keyof T & string)[];
}

export const dimensionTable = {
  endpoint: {
    title: 'Endpoint and request form (area B)',
    values: [
      'get-path',
      'head-path',
      'post-path',
      'put-path',
      'post-body',
      'post-root',
      'pipeline',
      'multi-exec',
      'monitor',
      'subscribe',
      'publish',
      'info',
    ],
  },
  'reply-shape': {
    title: 'Shape of a reply (area B)',
    values: [
      'null',
      'integer',
      'string',
      'empty-string',
      'ok-simple',
      'string-array',
      'array-with-nulls',
      'empty-array',
      'nested-2',
      'nested-3',
      'error',
    ],
  },
  container: {
    title: 'Where a reply sits: the whole answer, a /pipeline item, a /multi-exec item (area B)',
    values: ['reply', 'pipeline-item', 'multi-exec-item'],
  },
  credentials: {
    title: 'Credentials a request carries',
    values: ['none', 'wrong-header', 'wrong-query', 'read-only', 'standard-header', 'standard-query'],
  },
  'byte-class': {
    title: 'Bytes that URL, path and body handling commonly get wrong',
    values: [
      'space',
      'plus',
      'percent',
      'slash',
      'question',
      'hash',
      'ampersand',
      'equals',
      'quote',
      'backslash',
      'bmp',
      'astral',
      'invalid-utf8',
      'nul',
      'crlf',
      'empty',
      'long',
    ],
  },
  lookalike: {
    title: 'Values that look like special replies',
    values: ['OK', 'PONG', 'QUEUED', 'null', 'nil', '+OK', '-ERR x', ':1', '$-1', '*0', 'true', '123'],
  },
  'kv-outcome': {
    title:
      'What comes back for a command (area B): it ran, the store refused it at run time, it was malformed, unknown, or its token was missing',
    values: ['success', 'store-error', 'syntax-error', 'unknown-command', 'unauthorized'],
  },
  'expiry-command': {
    title: 'How a command sets or reads a time to live (area B): EXPIRE, SET’s option, EXPIREAT, TTL and their P-forms',
    values: ['expire', 'set-option', 'expire-at', 'ttl'],
  },
  'time-unit': {
    title: 'The unit the spec or the protocol gives a time value: seconds or milliseconds',
    values: ['seconds', 'milliseconds'],
  },
  'resource-id': {
    title: 'The id a path names: one the case created first (known), or one never created (unknown) (areas A and C)',
    values: ['known', 'unknown'],
  },
  'traffic-source': {
    title: 'Where the traffic another endpoint shows comes from (area B)',
    values: ['get-path', 'post-body', 'post-root', 'pipeline', 'multi-exec', 'publish', 'other-database'],
  },
  'name-overlap': {
    title: 'A neighbouring name: longer, with a separator, another case, a glob character',
    values: ['longer', 'separator', 'case', 'glob'],
  },
  'messaging-operation': {
    title: 'Operation a client sends to area A',
    values: ['publish', 'enqueue', 'rotate', 'pause', 'notify', 'notify-by-run'],
  },
  'messaging-credentials': {
    title: 'Credentials an area A request carries',
    values: [
      'none',
      'wrong-bearer',
      'bearer-alone',
      'other-scheme',
      'wrong-query',
      'standard-bearer',
      'standard-query',
    ],
  },
  'delivery-kind': {
    title: 'A request area A sends to a receiver: a delivery, a callback, a failure callback',
    values: ['delivery', 'callback', 'failure-callback'],
  },
  'callback-kind': {
    title: 'Which callback (area A)',
    values: ['callback', 'failure-callback'],
  },
  'callback-field': {
    title: 'A field of the Callback body, compared with the delivery that caused it (area A)',
    values: [
      'status',
      'header',
      'body',
      'retried',
      'maxRetries',
      'sourceMessageId',
      'url',
      'method',
      'sourceHeader',
      'sourceBody',
      'notBefore',
      'createdAt',
      'callerIP',
      'topicName',
      'endpointName',
      'scheduleId',
      'dlqId',
    ],
  },
  'callback-header': {
    title: 'A callback header: the URL, or one that configures the request (area A)',
    values: ['url', 'method', 'retries', 'delay', 'timeout', 'forward'],
  },
  'send-form': {
    title: 'How a message is sent (area A)',
    values: ['publish', 'enqueue'],
  },
  'queue-creation': {
    title: 'How a new queue comes to exist: created, or made by its first enqueue (area A)',
    values: ['create', 'first-enqueue'],
  },
  'notify-body': {
    title: 'The body of a notify (area A)',
    values: ['none', 'json', 'text', 'binary'],
  },
  'management-route': {
    title: 'Route of area C',
    values: ['create-index', 'get-index', 'get-account'],
  },
  'management-credentials': {
    title: 'Credentials an area C request carries',
    values: ['none', 'wrong-user', 'wrong-password', 'user-alone', 'not-base64', 'standard'],
  },
  'account-field': {
    title: 'A field of the Messaging account (area C)',
    values: fieldsOf(messagingAccountFields),
  },
  'index-field': {
    title: 'A field of the Search index (area C)',
    values: fieldsOf(searchIndexFields),
  },
} as const satisfies Record<string, Omit<Dimension, 'id'>>;

export type DimensionId = keyof typeof dimensionTable;
export type DimensionValue<D extends DimensionId> = (typeof dimensionTable)[D]['values'][number];

/** A typed region: each named dimension spans the listed values. */
export type Where = { readonly [D in DimensionId]?: readonly DimensionValue<D>[] };

/** Every dimension, for the catalog. */
export const dimensions: readonly Dimension[] = Object.entries(dimensionTable).map(([id, { title, values }]) => ({
  id,
  title,
  values,
}));

/** All values of a dimension, typed (for grids that span it all). */
export function allOf<D extends DimensionId>(dimension: D): readonly DimensionValue<D>[] {
  return dimensionTable[dimension].values as readonly DimensionValue<D>[];
}

/** A case's declaration that it checks `rule` over the region `where`. */
export function cover(rule: string, where: Where): CellCover {
  return { rule, where: where as CellRegion };
}

/** A typed not-applicable region with its reason. */
export function notApplicable(where: Where, reason: string): { readonly where: CellRegion; readonly reason: string } {
  return { where: where as CellRegion, reason };
}
