/**
 * Area C (management) rules of the spec. Ids are stable: suites, expectations files and the
 * reference's fault switches refer to them. `section` is the spec heading path (` > ` between levels).
 * The spec shows no error statuses or bodies for area C, so those are OBSERVE rules.
 */
import type { Rule } from '../../src/suite-kit/suite-api.ts';

const endpoints = 'Endpoints > Area C, management ({mgmt_url})';
const index = 'Resources and their fields > Search index (area C)';
const account = 'Resources and their fields > Messaging account (area C)';
const accountStates = 'States and transitions > Messaging account (area C)';
const auth = 'Authentication';
const errors = 'Errors';

type ManagementRule = Omit<Rule, 'area' | 'level'> & { readonly level?: Rule['level'] };

const managementRules: readonly ManagementRule[] = [
  // Creating and reading search indexes
  {
    id: 'C.create.ok-200',
    section: endpoints,
    text: 'POST /v2/search with a valid body answers 200 with a search index object of the requested name, region and type.',
  },
  {
    id: 'C.create.required-fields',
    section: endpoints,
    text: 'POST /v2/search without one of the required fields name, region and type is refused (no 2xx answer, no index).',
  },
  {
    id: 'C.create.request-enums',
    section: endpoints,
    text: 'POST /v2/search with a region other than eu-west-1 or us-central1, or a type other than free, payg or fixed, is refused.',
  },
  {
    id: 'C.get.same-object',
    section: endpoints,
    // "Path parameter id (string, required): unique id of the index" and "200: Search index object": a 200
    // carries the index of the id asked; what an unknown id answers otherwise is C.observe.unknown-id-status.
    text: 'GET /v2/search/{id} with the id of a created index answers 200 with the same index object; a 200 for any id carries the index of that id, never another.',
  },

  // The search index object
  {
    id: 'C.index.fields',
    section: index,
    text: 'The search index object has every field of the table with its type; throughput_vector items have x (string) and y (number).',
  },
  { id: 'C.index.id-uuid', section: index, text: 'The index id is a UUID.' },
  { id: 'C.index.type-enum', section: index, text: 'The index type is one of free, payg and fixed.' },
  { id: 'C.index.region-enum', section: index, text: 'The index region is one of eu-west-1 and us-central1.' },
  {
    id: 'C.index.unlimited-minus-one',
    section: index,
    text: 'max_monthly_reranks, max_daily_updates, max_daily_queries and max_monthly_bandwidth write unlimited as -1: no other negative value.',
  },
  {
    id: 'C.index.partner-email-empty',
    section: index,
    text: 'partner_email is a string, the empty string when no integration is tied to the index.',
  },

  // The messaging account
  {
    id: 'C.account.ok-200',
    section: endpoints,
    text: "GET /v2/svc/user (the dialect's account path) answers 200 with the messaging account object.",
  },
  {
    id: 'C.account.fields',
    section: account,
    text: 'The messaging account object has every field of the table with its type.',
  },
  { id: 'C.account.state-enum', section: accountStates, text: 'The account state is one of active and passive.' },
  { id: 'C.account.type-enum', section: account, text: 'The account type is one of free and paid.' },
  {
    id: 'C.account.reserved-type',
    section: account,
    text: "reserved_type is one of paid, svc_enterprise_1m and svc_enterprise_10m (in the dialect's names), or the empty string.",
  },

  // Authentication and versioning
  {
    id: 'C.auth.basic',
    section: auth,
    text: 'Area C requests need HTTP Basic credentials (username:password in base64); missing or wrong ones are refused.',
  },
  { id: 'C.versioning.v2-prefix', section: 'Versioning', text: 'Area C paths carry the major version prefix /v2/.' },

  // Errors: not shown for area C
  {
    id: 'C.observe.invalid-request-status',
    level: 'OBSERVE',
    section: errors,
    text: 'The status and body of a refused create request (not shown; the real service answers 400).',
  },
  {
    id: 'C.observe.unknown-id-status',
    level: 'OBSERVE',
    section: errors,
    text: 'The status and body of GET /v2/search/{id} for an unknown id (not shown; the real service answers 404).',
  },
  {
    id: 'C.observe.unauthorized-status',
    level: 'OBSERVE',
    section: errors,
    text: 'The status and body for missing or wrong credentials (not shown; the real service answers 401).',
  },
];

export const managementRuleCatalog: readonly Rule[] = managementRules.map((rule) => ({
  area: 'management',
  level: 'MUST',
  ...rule,
}));
