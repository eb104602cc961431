/**
 * Area C fault switches. Each breaks exactly one rule of conformance/rules/management-rules.ts, so a
 * management suite can prove it catches that rule; only `--fault NAME` turns one on.
 */
import { defineFaults } from '../fault-registry.ts';

export const managementFaults = defineFaults([
  // Creating and reading search indexes
  {
    name: 'create-status-201',
    area: 'management',
    rule: 'C.create.ok-200',
    description: 'Answers a successful POST /v2/search with status 201.',
  },
  {
    name: 'index-missing-field-accepted',
    area: 'management',
    rule: 'C.create.required-fields',
    description: 'Creates an index when name, region or type is missing, filling in a default.',
  },
  {
    name: 'index-type-any-value',
    area: 'management',
    rule: 'C.create.request-enums',
    description: 'Accepts any value of type in POST /v2/search and echoes it in the index.',
  },
  {
    name: 'index-region-any-value',
    area: 'management',
    rule: 'C.create.request-enums',
    description: 'Accepts any value of region in POST /v2/search and echoes it in the index.',
  },
  {
    name: 'unknown-index-200',
    area: 'management',
    rule: 'C.index.fields',
    description: 'Answers GET /v2/search/{id} of an unknown id with status 200 and its {error} body (not an index).',
  },
  {
    name: 'unknown-id-other-index',
    area: 'management',
    rule: 'C.get.same-object',
    description: 'Answers GET /v2/search/{id} of an unknown id with 200 and the index created last (another id).',
  },
  {
    name: 'get-index-differs',
    area: 'management',
    rule: 'C.get.same-object',
    description: 'GET /v2/search/{id} answers the index with fresh random tokens instead of its own.',
  },

  // The search index object
  {
    name: 'index-omits-field',
    area: 'management',
    rule: 'C.index.fields',
    description: 'Leaves creation_time out of the index object.',
  },
  {
    name: 'index-field-wrong-type',
    area: 'management',
    rule: 'C.index.fields',
    description: 'Answers max_vector_count as a decimal string instead of an integer.',
  },
  {
    name: 'index-integers-as-doubles',
    area: 'management',
    rule: 'C.index.fields',
    description: 'Writes the integer fields of the index object as doubles (max_vector_count 1000000.0).',
  },
  {
    name: 'index-id-not-uuid',
    area: 'management',
    rule: 'C.index.id-uuid',
    description: 'Gives new indexes a 24-digit hex id instead of a UUID.',
  },
  {
    name: 'index-type-capitalized',
    area: 'management',
    rule: 'C.index.type-enum',
    description: 'Answers the index type capitalized (Payg) instead of the enum value.',
  },
  {
    name: 'index-region-respelled',
    area: 'management',
    rule: 'C.index.region-enum',
    description: 'Answers the index region in another spelling (us-central-1, eu-west1).',
  },
  {
    name: 'index-unlimited-as-minus-two',
    area: 'management',
    rule: 'C.index.unlimited-minus-one',
    description: 'Writes unlimited index limits as -2 instead of -1.',
  },
  {
    name: 'partner-email-null',
    area: 'management',
    rule: 'C.index.partner-email-empty',
    description: 'Answers partner_email null instead of the empty string when there is none.',
  },

  // The messaging account
  {
    name: 'account-status-201',
    area: 'management',
    rule: 'C.account.ok-200',
    description: 'Answers the account path with status 201.',
  },
  {
    name: 'account-lacks-limit',
    area: 'management',
    rule: 'C.account.fields',
    description: 'Leaves max_queues out of the account object.',
  },
  {
    name: 'account-field-wrong-type',
    area: 'management',
    rule: 'C.account.fields',
    description: 'Answers the account max_message_size as a decimal string instead of an integer.',
  },
  {
    name: 'account-integers-as-doubles',
    area: 'management',
    rule: 'C.account.fields',
    description: 'Writes the integer fields of the account object as doubles (max_queues 10.0).',
  },
  {
    name: 'account-state-unknown',
    area: 'management',
    rule: 'C.account.state-enum',
    description: 'Answers the account state enabled instead of active.',
  },
  {
    name: 'account-type-unknown',
    area: 'management',
    rule: 'C.account.type-enum',
    description: 'Answers the account type pay_as_you_go instead of paid.',
  },
  {
    name: 'reserved-type-null',
    area: 'management',
    rule: 'C.account.reserved-type',
    description: 'Answers reserved_type null instead of the empty string when the account has no reserved plan.',
  },

  // Authentication and versioning
  {
    name: 'management-no-auth',
    area: 'management',
    rule: 'C.auth.basic',
    description: 'Accepts area C requests with wrong or no HTTP Basic credentials.',
  },
  {
    name: 'management-unversioned-paths',
    area: 'management',
    rule: 'C.versioning.v2-prefix',
    description: 'Serves area C at /search and the account path without the /v2 prefix (and not under /v2/).',
  },
] as const);

export type ManagementFaultName = (typeof managementFaults)[number]['name'];
