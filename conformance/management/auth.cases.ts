/**
 * Spec "Authentication", area C: HTTP Basic, `Authorization: Basic base64(username:password)`. The
 * target's credentials work; missing, wrong and malformed ones are refused (no 2xx, nothing created).
 * The spec shows no status or body for a refusal ("Errors": area C not shown): they are recorded.
 * No text of these cases holds the password.
 */
import {
  Blocked,
  type CaseContext,
  defineCases,
  type HttpResponse,
  headerValue,
  means,
} from '../../src/suite-kit/suite-api.ts';
import { cover } from '../rules/dimensions.ts';
import { checkRefused, checkThat, describeAnswer, groupedAnswers } from '../support/management-checks.ts';
import {
  createManagementClient,
  deleteAfterCase,
  indexName,
  type ManagementAuth,
  type ManagementClient,
  wrongPassword,
  wrongUsername,
} from '../support/management-client.ts';
import { createdObject, createIndex, credentialsWork } from '../support/management-steps.ts';

/** `status 401 (application/json) {...}, WWW-Authenticate "Basic …"`: how a refusal is recorded. */
function refusalAnswer(res: HttpResponse): string {
  const challenge = headerValue(res, 'www-authenticate');
  return `${describeAnswer(res, 100)}${challenge === undefined ? ', no WWW-Authenticate' : `, WWW-Authenticate ${JSON.stringify(challenge.slice(0, 60))}`}`;
}

/** An index that exists, to read with refused credentials: created with the target's (deleted after). */
async function existingIndexId(ctx: CaseContext, client: ManagementClient): Promise<string> {
  const index = await means(async () => createdObject(await createIndex(ctx, client, 'free', 'eu-west-1')));
  if (typeof index.id !== 'string') throw new Blocked('C.index.fields', 'the created index has no id to read');
  return index.id;
}

/**
 * Sends each request given (GET of the account path, a valid POST /v2/search, GET /v2/search/{id} of
 * an index that exists) with its credentials; each must be refused. An index a target creates anyway
 * is deleted after the case.
 */
async function checkAllRefused(
  ctx: CaseContext,
  client: ManagementClient,
  attempts: readonly (readonly [string, ManagementAuth, 'account' | 'create' | 'read'])[],
): Promise<void> {
  const answers: [string, string][] = [];
  const readId = attempts.some(([, , request]) => request === 'read') ? await existingIndexId(ctx, client) : '';
  for (const [what, auth, request] of attempts) {
    const res =
      request === 'account'
        ? await client.account(auth)
        : request === 'read'
          ? await client.getIndex(readId, auth)
          : await client.createIndex({ name: indexName(ctx), region: 'eu-west-1', type: 'free' }, auth);
    deleteAfterCase(ctx, client, res);
    const route = { account: `GET ${client.accountPath}`, create: 'POST /v2/search', read: 'GET /v2/search/{id}' };
    const label = `${route[request]} ${what}`;
    checkRefused('C.auth.basic', res, label);
    answers.push([label, refusalAnswer(res)]);
  }
  ctx.observe(`refused: ${groupedAnswers(answers)}`);
}

export const cases = defineCases([
  {
    id: 'management.auth.basic',
    rules: ['C.auth.basic'],
    covers: [cover('C.auth.basic', { 'management-route': ['get-account'], 'management-credentials': ['standard'] })],
    title: 'HTTP Basic with the target’s credentials authenticates',
    expect: 'Creates nothing: GET of the account path with Authorization: Basic base64(username:password) answers 2xx.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      const res = await client.account();
      checkThat(
        'C.auth.basic',
        res.status >= 200 && res.status <= 299,
        describeAnswer(res),
        'a 2xx answer (the credentials accepted)',
        `GET ${client.accountPath} with the target’s Basic credentials`,
      );
      // RFC 7617: the scheme name is case-insensitive; the spec writes "Basic".
      const management = ctx.target.management;
      if (management) {
        const lower = `basic ${Buffer.from(`${management.username}:${management.password}`).toString('base64')}`;
        const scheme = await client.account({ authorization: lower });
        ctx.observe(`lower-case "basic" scheme: status ${scheme.status}`);
      }
    },
  },
  {
    id: 'management.auth.missing',
    rules: ['C.auth.basic', 'C.observe.unauthorized-status'],
    covers: [cover('C.auth.basic', { 'management-credentials': ['none'] })],
    title: 'A request without credentials is refused',
    expect:
      'Creates no index: without an Authorization header GET of the account path and a valid POST /v2/search are refused (no 2xx, no index); the answers are recorded. An index a target creates anyway is deleted after.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      await means(() => credentialsWork(client));
      await checkAllRefused(ctx, client, [
        ['without credentials', 'none', 'account'],
        ['without credentials', 'none', 'create'],
        ['without credentials', 'none', 'read'],
      ]);
      // Not Basic at all: the API key as a Bearer token. Whether it must be refused is not shown.
      const management = ctx.target.management;
      if (management) {
        const bearer = await client.account({ authorization: `Bearer ${management.password}` });
        ctx.observe(`the API key as a Bearer token: ${describeAnswer(bearer, 60)}`);
      }
    },
  },
  {
    id: 'management.auth.wrong',
    rules: ['C.auth.basic', 'C.observe.unauthorized-status'],
    covers: [
      cover('C.auth.basic', { 'management-credentials': ['wrong-password', 'wrong-user', 'user-alone', 'not-base64'] }),
    ],
    title: 'Wrong or malformed Basic credentials are refused',
    expect:
      'Creates no index: a wrong password (GET of the account path and a valid POST /v2/search), a wrong user name, a value without a password and a value that is not base64 are refused (no 2xx, no index); the answers are recorded.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      await means(() => credentialsWork(client));
      const management = ctx.target.management;
      if (!management) return ctx.skip('the target has no management area.');
      const userOnly = `Basic ${Buffer.from(management.username, 'utf8').toString('base64')}`;
      await checkAllRefused(ctx, client, [
        ['with a wrong password', { username: management.username, password: wrongPassword }, 'account'],
        ['with a wrong password', { username: management.username, password: wrongPassword }, 'create'],
        ['with a wrong user name', { username: wrongUsername, password: management.password }, 'account'],
        ['with the user name alone', { authorization: userOnly }, 'account'],
        ['with a value that is not base64', { authorization: 'Basic %%%not-base64%%%' }, 'account'],
        ['with a wrong user name', { username: wrongUsername, password: management.password }, 'create'],
        ['with the user name alone', { authorization: userOnly }, 'create'],
        ['with a value that is not base64', { authorization: 'Basic %%%not-base64%%%' }, 'create'],
        ['with a wrong password', { username: management.username, password: wrongPassword }, 'read'],
        ['with a wrong user name', { username: wrongUsername, password: management.password }, 'read'],
        ['with the user name alone', { authorization: userOnly }, 'read'],
        ['with a value that is not base64', { authorization: 'Basic %%%not-base64%%%' }, 'read'],
      ]);
    },
  },
]);
