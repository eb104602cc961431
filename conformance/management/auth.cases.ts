/**
 * Spec "Authentication", area C: HTTP Basic, `Authorization: Basic base64(username:password)`. The
 * target's credentials work; missing, wrong and malformed ones are refused (no 2xx, nothing created).
 * The spec shows no status or body for a refusal ("Errors": area C not shown): they are recorded.
 * No text of these cases holds the password.
 */
import { means } from '../../src/engines/conformance/check-failure.ts';
import type { CaseContext } from '../../src/engines/conformance/conformance-case.ts';
import { defineCases } from '../../src/engines/conformance/conformance-case.ts';
import { type HttpResponse, headerValue } from '../../src/http/http-client.ts';
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
import { credentialsWork } from '../support/management-steps.ts';

/** `status 401 (application/json) {...}, WWW-Authenticate "Basic …"`: how a refusal is recorded. */
function refusalAnswer(res: HttpResponse): string {
  const challenge = headerValue(res, 'www-authenticate');
  return `${describeAnswer(res, 100)}${challenge === undefined ? ', no WWW-Authenticate' : `, WWW-Authenticate ${JSON.stringify(challenge.slice(0, 60))}`}`;
}

/**
 * Sends GET of the account path and a valid POST /v2/search with these credentials (and each further
 * request given); each must be refused. An index a target creates anyway is deleted after the case.
 */
async function checkAllRefused(
  ctx: CaseContext,
  client: ManagementClient,
  attempts: readonly (readonly [string, ManagementAuth, 'account' | 'create'])[],
): Promise<void> {
  const answers: [string, string][] = [];
  for (const [what, auth, request] of attempts) {
    const res =
      request === 'account'
        ? await client.account(auth)
        : await client.createIndex({ name: indexName(ctx), region: 'eu-west-1', type: 'free' }, auth);
    deleteAfterCase(ctx, client, res);
    const label = `${request === 'account' ? `GET ${client.accountPath}` : 'POST /v2/search'} ${what}`;
    checkRefused('C.auth.basic', res, label);
    answers.push([label, refusalAnswer(res)]);
  }
  ctx.observe(`refused: ${groupedAnswers(answers)}`);
}

export const cases = defineCases([
  {
    id: 'management.auth.basic',
    rules: ['C.auth.basic'],
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
    title: 'A request without credentials is refused',
    expect:
      'Creates no index: without an Authorization header GET of the account path and a valid POST /v2/search are refused (no 2xx, no index); the answers are recorded. An index a target creates anyway is deleted after.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      await means(() => credentialsWork(client));
      await checkAllRefused(ctx, client, [
        ['without credentials', 'none', 'account'],
        ['without credentials', 'none', 'create'],
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
      ]);
    },
  },
]);
