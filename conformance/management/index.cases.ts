/**
 * Spec "Resources and their fields > Search index (area C)" and "Limits": the index object a create
 * answers has every field with its type, a UUID id, the type and region enums, -1 for the unlimited
 * limits, and partner_email '' when no integration is tied to it. One index (payg, so its metered
 * limits may be unlimited) is created and checked field by field, then deleted.
 */
import { defineCases, means, show } from '../../src/suite-kit/suite-api.ts';
import { allOf, cover } from '../rules/dimensions.ts';
import {
  checkEnum,
  checkFields,
  checkThat,
  indexFieldTable,
  integerFields,
  isUuid,
} from '../support/management-checks.ts';
import { createManagementClient } from '../support/management-client.ts';
import { createdObject, createIndex, indexRegions, indexTypes } from '../support/management-steps.ts';
import { checkIntegerLiterals } from '../support/messaging-raw-json.ts';

/** The four limits the spec says are -1 when unlimited. */
const unlimitedCapable = [
  'max_monthly_reranks',
  'max_daily_updates',
  'max_daily_queries',
  'max_monthly_bandwidth',
] as const;

export const cases = defineCases([
  {
    id: 'management.index.object',
    covers: [cover('C.index.fields', { 'index-field': allOf('index-field').filter((f) => f in indexFieldTable) })],
    rules: [
      'C.index.fields',
      'C.index.id-uuid',
      'C.index.type-enum',
      'C.index.region-enum',
      'C.index.unlimited-minus-one',
      'C.index.partner-email-empty',
    ],
    title: 'The search index object: every field with its type, UUID id, enums, -1 for unlimited, partner_email ""',
    expect:
      'Creates one index (type payg, region eu-west-1, no partner_email, deleted after): its object has every field of the table with its type, a UUID id, type and region in their enums, each of the four unlimited-capable limits an integer, -1 the only negative one, and partner_email "".',
    async run(ctx) {
      const client = createManagementClient(ctx);
      const created = await createIndex(ctx, client, 'payg', 'eu-west-1');
      const index = await means(async () => createdObject(created));
      const context = 'the created index';

      checkFields('C.index.fields', index, indexFieldTable, 'Search index', context);
      // JSON.parse reads 100.0 as 100: an integer written as a double shows only in the text.
      checkIntegerLiterals('C.index.fields', created.res.body, integerFields(indexFieldTable), context);
      checkThat('C.index.id-uuid', isUuid(index.id), `id ${show(index.id)}`, 'a UUID (8-4-4-4-12 hex digits)', context);
      checkEnum('C.index.type-enum', index, 'type', indexTypes, context);
      checkEnum('C.index.region-enum', index, 'region', indexRegions, context);

      // -1 means unlimited; any other value is a limit (the spec says nothing of 0), so an integer
      // below -1 is the one thing that breaks the rule.
      const limits = unlimitedCapable.map((field) => [field, index[field]] as const);
      const wrong = limits.filter(([, value]) => !(Number.isInteger(value) && (value as number) >= -1));
      checkThat(
        'C.index.unlimited-minus-one',
        wrong.length === 0,
        wrong.map(([field, value]) => `${field} ${show(value)}`).join('; '),
        'each of max_monthly_reranks, max_daily_updates, max_daily_queries, max_monthly_bandwidth an integer, -1 (unlimited) the only negative value',
        `${context} (type ${show(index.type)})`,
      );
      ctx.observe(`limits of a payg index: ${limits.map(([field, value]) => `${field} ${show(value)}`).join(', ')}`);

      // No partner_email was given, so none is tied to the index.
      checkThat(
        'C.index.partner-email-empty',
        index.partner_email === '',
        `partner_email ${show(index.partner_email)}`,
        'partner_email "" (no integration tied to the index)',
        context,
      );
    },
  },
]);
