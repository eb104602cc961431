/**
 * Steps the management cases share: creating a search index that is deleted after the case, reading
 * the account object, and the positive a refusal is compared with (the target's credentials work).
 * Each returns the answer or the object; a case wraps in `means()` the steps that only set it up.
 */
import type { CaseContext, HttpResponse } from '../../src/suite-kit/suite-api.ts';
import { checkThat, describeAnswer, objectAnswer } from './management-checks.ts';
import { deleteAfterCase, indexName, type ManagementClient } from './management-client.ts';

export type IndexType = 'free' | 'payg' | 'fixed';
export type IndexRegion = 'eu-west-1' | 'us-central1';

/** The spec's enums of the index (spec "Search index (area C)" and "Endpoints > Area C"). */
export const indexTypes: readonly IndexType[] = ['free', 'payg', 'fixed'];
export const indexRegions: readonly IndexRegion[] = ['eu-west-1', 'us-central1'];
/** The account's enums (spec "Messaging account (area C)", "States and transitions"). */
export const accountStates: readonly string[] = ['active', 'passive'];
export const accountTypes: readonly string[] = ['free', 'paid'];

export interface IndexRequest {
  readonly name: string;
  readonly region: IndexRegion;
  readonly type: IndexType;
}

export interface CreatedIndex {
  readonly request: IndexRequest;
  readonly res: HttpResponse;
}

/**
 * `POST /v2/search` with a fresh name and this type and region; whatever the answer, an index it
 * carries is deleted after the case. The answer is the case's to judge.
 */
export async function createIndex(
  ctx: CaseContext,
  client: ManagementClient,
  type: IndexType,
  region: IndexRegion,
): Promise<CreatedIndex> {
  const request: IndexRequest = { name: indexName(ctx), region, type };
  const res = await client.createIndex(request);
  deleteAfterCase(ctx, client, res);
  return { request, res };
}

/** The index object of a create answer: status 200 and a JSON object (C.create.ok-200). */
export function createdObject(created: CreatedIndex): Record<string, unknown> {
  return objectAnswer('C.create.ok-200', created.res, 'the search index object', 'POST /v2/search');
}

/** GET of the account path: status 200 and a JSON object (C.account.ok-200); returns the object. */
export async function accountObject(client: ManagementClient): Promise<Record<string, unknown>> {
  return objectAnswer(
    'C.account.ok-200',
    await client.account(),
    'the messaging account object',
    `GET ${client.accountPath}`,
  );
}

/**
 * The positive a refusal is compared with: with the target's credentials GET of the account path
 * succeeds (2xx). A target that refuses everything proves nothing by refusing a bad request.
 */
export async function credentialsWork(client: ManagementClient): Promise<void> {
  const res = await client.account();
  checkThat(
    'C.account.ok-200',
    res.status >= 200 && res.status <= 299,
    describeAnswer(res),
    'a 2xx answer with the target’s credentials',
    `GET ${client.accountPath} first`,
  );
}
