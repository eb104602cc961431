/**
 * Spec "Resources and their fields > Messaging account (area C)", "States and transitions >
 * Messaging account" and "Endpoints > Area C": GET of the account path (the dialect's, spec
 * `/v2/svc/user`) answers 200 with the account object, every field with its type, state and type in
 * their enums, reserved_type in the dialect's enum or ''. The object holds secrets (password, token):
 * no text of these cases shows their values.
 */
import { defineCases, headerValue, means, show } from '../../src/suite-kit/suite-api.ts';
import { allOf, cover } from '../rules/dimensions.ts';
import { adminClient } from '../support/admin-client.ts';
import {
  accountFieldTable,
  checkEnum,
  checkFields,
  integerFields,
  objectAnswer,
} from '../support/management-checks.ts';
import { createManagementClient } from '../support/management-client.ts';
import { accountObject, accountStates, accountTypes } from '../support/management-steps.ts';
import { checkIntegerLiterals } from '../support/messaging-raw-json.ts';

export const cases = defineCases([
  {
    id: 'management.account.ok-200',
    rules: ['C.account.ok-200'],
    title: 'GET of the account path answers 200 with the messaging account object',
    expect: 'Creates nothing: GET /v2/svc/user (the dialect’s account path) answers 200 with a JSON object.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      const res = await client.account();
      objectAnswer('C.account.ok-200', res, 'the messaging account object', `GET ${client.accountPath}`);
      ctx.observe(`content type: ${show(headerValue(res, 'content-type') ?? null)}`);
    },
  },
  {
    id: 'management.account.fields',
    rules: ['C.account.fields'],
    covers: [
      cover('C.account.fields', { 'account-field': allOf('account-field').filter((f) => f in accountFieldTable) }),
    ],
    title: 'The messaging account object has every field with its type',
    expect:
      'Creates nothing: the account object has the 29 fields of the table, strings, a UUID id, integers, booleans and reserved_price a number.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      const res = await client.account();
      const account = await means(async () =>
        objectAnswer('C.account.ok-200', res, 'the messaging account object', `GET ${client.accountPath}`),
      );
      checkFields('C.account.fields', account, accountFieldTable, 'Messaging account', 'the account object');
      // JSON.parse reads 100.0 as 100: an integer written as a double shows only in the text.
      checkIntegerLiterals('C.account.fields', res.body, integerFields(accountFieldTable), 'the account object');
    },
  },
  {
    id: 'management.account.state-enum',
    rules: ['C.account.state-enum'],
    title: 'The account state is active or passive',
    expect: 'Creates nothing: state is "active" or "passive".',
    async run(ctx) {
      const account = await means(() => accountObject(createManagementClient(ctx)));
      checkEnum('C.account.state-enum', account, 'state', accountStates, 'the account object');
      ctx.observe(`state ${show(account.state)}, active ${show(account.active)}`);
    },
  },
  {
    id: 'management.account.type-enum',
    rules: ['C.account.type-enum'],
    title: 'The account type is free or paid',
    expect: 'Creates nothing: type is "free" or "paid".',
    async run(ctx) {
      const account = await means(() => accountObject(createManagementClient(ctx)));
      checkEnum('C.account.type-enum', account, 'type', accountTypes, 'the account object');
    },
  },
  {
    id: 'management.account.reserved-type',
    rules: ['C.account.reserved-type'],
    title: 'reserved_type is one of the dialect’s reserved plans, or the empty string',
    expect:
      'Creates nothing: reserved_type is paid, svc_enterprise_1m or svc_enterprise_10m (in the dialect’s names), or "".',
    async run(ctx) {
      const account = await means(() => accountObject(createManagementClient(ctx)));
      checkEnum('C.account.reserved-type', account, 'reserved_type', [...ctx.dialect.reservedTypes, ''], 'the account');
      ctx.observe(`reserved_type ${show(account.reserved_type)}, type ${show(account.type)}`);
    },
  },
  {
    id: 'management.account.no-reserved-plan',
    rules: ['C.account.reserved-type'],
    needs: ['admin'],
    title: 'Without a reserved plan, reserved_type is the empty string',
    expect:
      'Creates nothing; through the admin hook the account’s reserved plan is removed for the case (restored after): reserved_type is then "" (not null, not absent).',
    async run(ctx) {
      const admin = adminClient(ctx);
      const client = createManagementClient(ctx);
      const before = await admin.account();
      const previous = typeof before.reserved_type === 'string' ? before.reserved_type : '';
      let restored = false;
      const restore = async () => {
        if (restored) return;
        restored = true;
        await admin.setAccount({ reserved_type: previous });
      };
      ctx.onCleanup(restore);
      await admin.setAccount({ reserved_type: '' });
      try {
        const account = await means(() => accountObject(client));
        checkEnum('C.account.reserved-type', account, 'reserved_type', [...ctx.dialect.reservedTypes, ''], 'no plan');
        if (account.reserved_type !== '') {
          ctx.observe(`the admin hook's change did not show: reserved_type ${show(account.reserved_type)}`);
        }
      } finally {
        await restore();
      }
    },
  },
]);
