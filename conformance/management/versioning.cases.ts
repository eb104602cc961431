/**
 * Spec "Versioning": area C carries the major version in the path prefix /v2/. The account path
 * (the dialect's, under /v2/) answers 200; a target that answers it only without the prefix breaks
 * the rule. Whether the unversioned paths answer as well is recorded.
 */
import { randomUUID } from 'node:crypto';
import { Blocked, defineCases } from '../../src/suite-kit/suite-api.ts';
import { checkThat, describeAnswer } from '../support/management-checks.ts';
import { createManagementClient } from '../support/management-client.ts';

/** `/v2/svc/user` → `/svc/user`. */
const unversioned = (path: string) => path.replace(/^\/v2(?=\/)/, '');

export const cases = defineCases([
  {
    id: 'management.versioning.v2-prefix',
    rules: ['C.versioning.v2-prefix'],
    title: 'Area C paths carry the /v2/ prefix',
    expect:
      'Creates nothing: GET of the account path under /v2/ answers 200, not only the same path without /v2; the unversioned paths’ answers are recorded.',
    async run(ctx) {
      const client = createManagementClient(ctx);
      const path = client.accountPath;
      const bare = unversioned(path);
      const versioned = await client.account();
      const plain = await client.call(bare);
      const served = (status: number) => status >= 200 && status <= 299;
      if (!served(versioned.status) && !served(plain.status)) {
        // Neither answers: the account path is broken, not the prefix (C.account.ok-200's failure).
        throw new Blocked(
          'C.account.ok-200',
          `neither GET ${path} (${describeAnswer(versioned, 60)}) nor GET ${bare} (status ${plain.status}) answers 2xx`,
        );
      }
      checkThat(
        'C.versioning.v2-prefix',
        served(versioned.status),
        `GET ${path}: ${describeAnswer(versioned, 80)}, while GET ${bare} answers status ${plain.status}`,
        `GET ${path} answering 2xx (the /v2/ prefix)`,
      );
      const search = await client.call(`/search/${randomUUID()}`);
      ctx.observe(`without /v2: GET ${bare} status ${plain.status}, GET /search/{id} status ${search.status}`);
    },
  },
]);
