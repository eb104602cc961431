/**
 * Spec "Endpoints > Area C": POST /v2/search (name, region and type required, region and type in
 * their enums) answers 200 with the index object, GET /v2/search/{id} the same object. The spec shows
 * no error status or body for area C ("Errors"): a refused request is checked only for being refused
 * (no 2xx, no index), and what the target answers is recorded. Every index a case creates, or a
 * target creates where it should have refused, is deleted after the case.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { defineCases, means, show } from '../../src/suite-kit/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import {
  checkEnum,
  checkFields,
  checkIndexIfOk,
  checkRefused,
  checkThat,
  describeAnswer,
  differences,
  groupedAnswers,
  indexFieldTable,
  integerFields,
  objectAnswer,
} from '../support/management-checks.ts';
import { createManagementClient, deleteAfterCase, indexName } from '../support/management-client.ts';
import { createdObject, createIndex, credentialsWork, indexRegions, indexTypes } from '../support/management-steps.ts';
import { checkIntegerLiterals } from '../support/messaging-raw-json.ts';

export const cases = defineCases([
  {
    id: 'management.search.create-and-read',
    rules: ['C.create.ok-200', 'C.index.type-enum', 'C.index.region-enum', 'C.get.same-object', 'C.index.fields'],
    covers: [cover('C.get.same-object', { 'resource-id': ['known'] })],
    title: 'POST /v2/search creates an index as asked; GET /v2/search/{id} answers the same object',
    expect:
      'Creates one index (type fixed, region us-central1, deleted after): 200 with an index object of the requested name, region and type; GET /v2/search/{id} answers 200 with the same object.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      const created = await createIndex(ctx, client, 'fixed', 'us-central1');
      const { request } = created;
      const context = 'POST /v2/search';
      const index = createdObject(created);
      checkThat(
        'C.create.ok-200',
        index.name === request.name,
        `name ${show(index.name)}`,
        `name ${JSON.stringify(request.name)} (as asked)`,
        context,
      );
      // A value outside the enum is the enum rule's; an enum value other than the one asked, this one's.
      checkEnum('C.index.type-enum', index, 'type', indexTypes, context);
      checkThat('C.create.ok-200', index.type === request.type, `type ${show(index.type)}`, 'type "fixed"', context);
      checkEnum('C.index.region-enum', index, 'region', indexRegions, context);
      checkThat(
        'C.create.ok-200',
        index.region === request.region,
        `region ${show(index.region)}`,
        'region "us-central1"',
        context,
      );

      // Reading it back needs its id (its form is C.index.id-uuid's business; being a string, C.index.fields').
      const id = await means(async () => {
        checkThat(
          'C.index.fields',
          typeof index.id === 'string' && index.id !== '',
          `id ${show(index.id)}`,
          'a string id',
        );
        return index.id as string;
      });
      const readRes = await client.getIndex(id);
      const read = objectAnswer('C.get.same-object', readRes, 'the index object', 'GET /v2/search/{id}');
      // The read-back is a Search index object too: every field with its type, integers as written
      // (throughput_vector's points may differ below, but not its presence or its items' types).
      checkFields('C.index.fields', read, indexFieldTable, 'Search index', 'GET /v2/search/{id}');
      checkIntegerLiterals('C.index.fields', readRes.body, integerFields(indexFieldTable), 'GET /v2/search/{id}');
      // throughput_vector is "throughput over time": two reads may see different points.
      const changed = differences(index, read, ['throughput_vector']);
      checkThat(
        'C.get.same-object',
        changed.length === 0,
        changed.join('; '),
        'the object POST /v2/search answered (throughput_vector aside), field for field',
        'GET /v2/search/{id}',
      );
      if (!isDeepStrictEqual(index.throughput_vector, read.throughput_vector)) {
        ctx.observe('throughput_vector of the GET answer differs from the create answer (throughput over time)');
      }
    },
  },
  {
    id: 'management.search.required-fields',
    rules: ['C.create.required-fields', 'C.observe.invalid-request-status'],
    title: 'POST /v2/search without name, region or type is refused',
    expect:
      'Creates no index: a body without name, one without region, one without type, an empty object and a body that is not JSON are each refused (no 2xx, no index); the answers are recorded. An index a target creates anyway is deleted after.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      await means(() => credentialsWork(client));
      const name = indexName(ctx);
      const valid = { name, region: 'eu-west-1', type: 'free' };
      const bodies: readonly (readonly [string, string | object])[] = [
        ['without name', { region: valid.region, type: valid.type }],
        ['without region', { name, type: valid.type }],
        ['without type', { name, region: valid.region }],
        ['an empty object', {}],
        ['a body that is not JSON', `name=${name}&region=eu-west-1&type=free`],
      ];
      const answers: [string, string][] = [];
      for (const [what, body] of bodies) {
        const res = await client.createIndex(body);
        deleteAfterCase(ctx, client, res);
        checkRefused('C.create.required-fields', res, `POST /v2/search ${what}`);
        answers.push([what, describeAnswer(res, 100)]);
      }
      ctx.observe(`POST /v2/search refused: ${groupedAnswers(answers)}`);
    },
  },
  {
    id: 'management.search.request-enums',
    rules: ['C.create.request-enums', 'C.observe.invalid-request-status'],
    title: 'POST /v2/search with a region or type outside its enum is refused',
    expect:
      'Creates no index: region us-east-1 or us-central-1, type paid or FREE (the other fields valid) are each refused (no 2xx, no index); the answers are recorded. An index a target creates anyway is deleted after.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      await means(() => credentialsWork(client));
      const name = indexName(ctx);
      // Near misses: area A's region, a respelling, the account's plan type, another case.
      const bodies: readonly (readonly [string, object])[] = [
        ['region "us-east-1"', { name, region: 'us-east-1', type: 'free' }],
        ['region "us-central-1"', { name, region: 'us-central-1', type: 'free' }],
        ['type "paid"', { name, region: 'eu-west-1', type: 'paid' }],
        ['type "FREE"', { name, region: 'eu-west-1', type: 'FREE' }],
      ];
      const answers: [string, string][] = [];
      for (const [what, body] of bodies) {
        const res = await client.createIndex(body);
        deleteAfterCase(ctx, client, res);
        checkRefused('C.create.request-enums', res, `POST /v2/search with ${what}`);
        answers.push([what, describeAnswer(res, 100)]);
      }
      ctx.observe(`POST /v2/search refused: ${groupedAnswers(answers)}`);
    },
  },
  {
    id: 'management.search.unknown-id',
    rules: ['C.observe.unknown-id-status', 'C.index.fields', 'C.get.same-object'],
    covers: [cover('C.get.same-object', { 'resource-id': ['unknown'] })],
    title: 'GET /v2/search/{id} of an id no index has (recorded); a 200 carries an index of that id',
    expect:
      'Creates one index first (deleted after), so another id exists: GET /v2/search/{id} with a random UUID is answered; its status and body are recorded (the spec shows none; the real service answers 404). Whatever the status, a 200 must carry a search index object ("200: Search index object") of the id asked ("unique id of the index"): an error body, or the index just created, under 200 fails.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      await means(() => createIndex(ctx, client, 'free', 'eu-west-1'));
      const asked = randomUUID();
      const res = await client.getIndex(asked);
      const context = 'GET /v2/search/{unknown id}';
      ctx.observe(`${context}: ${describeAnswer(res)}`);
      checkIndexIfOk(res, context);
      if (res.status === 200) {
        const index = objectAnswer('C.get.same-object', res, 'the index object', context);
        checkThat(
          'C.get.same-object',
          index.id === asked,
          `id ${show(index.id)}`,
          `id ${asked}, the one asked`,
          context,
        );
      }
    },
  },
]);
