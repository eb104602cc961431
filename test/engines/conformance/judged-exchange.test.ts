/**
 * The curl line of a failing case is the exchange its failing check judged, not the last one the case
 * sent (issue 35, item 7): a failure takes the exchange whose answer was read last when it is built,
 * a blocked step keeps its failure's, and the CLI's report shows it for a fault whose failing case sends
 * four requests and fails on the second.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ExchangeLog, logExchanges } from '../../../src/http/exchange-log.ts';
import { httpRequest } from '../../../src/http/http-client.ts';
import { Blocked, CheckFailure, exchangeJudgedBy, judgingAs, means } from '../../../src/suite-kit/check-failure.ts';
import { closeServer, listenOnLoopback } from '../../support/loopback.ts';
import { runCli } from '../../support/run-cli.ts';

let server: Server;
let url = '';
let dir = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    res.statusCode = req.url === '/wrong' ? 500 : 200;
    res.end('{}');
  });
  ({ url } = await listenOnLoopback(server));
  dir = await mkdtemp(join(tmpdir(), 'svc-judged-'));
});
afterAll(async () => {
  await closeServer(server);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const path = (error: unknown) => {
  const exchange = exchangeJudgedBy(error);
  return exchange && new URL(exchange.url).pathname;
};

/** What a check does: read the answer it judges, and throw when it is wrong. */
function checkOk(res: { readonly status: number }): void {
  if (res.status !== 200) throw new CheckFailure('B.x', `status ${res.status}`, 'status 200');
}

describe('the exchange a failure judged', () => {
  test('is the answer its check read, though later requests were sent, also with checks running side by side', async () => {
    const thrown = await logExchanges(new ExchangeLog(), async () => {
      const [wrong, right] = await Promise.all([
        httpRequest({ url: `${url}/wrong` }),
        httpRequest({ url: `${url}/right` }),
      ]);
      await httpRequest({ url: `${url}/later` });
      const results = await Promise.allSettled([
        (async () => checkOk(right))(),
        (async () => checkOk(wrong))(),
        (async () => checkOk(right))(),
      ]);
      return results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    });
    expect(thrown.map(path)).toEqual(['/wrong']);
  });

  test('a step that blocks keeps its failure exchange; a summing failure takes the one it names', async () => {
    const [blocked, summed] = await logExchanges(new ExchangeLog(), async () => {
      const step = means(async () => checkOk(await httpRequest({ url: `${url}/wrong` })));
      const error = await step.catch((caught: unknown) => caught);
      const first = new CheckFailure('B.x', 'a', 'b');
      (await httpRequest({ url: `${url}/right` })).status;
      return [error, judgingAs(first, new CheckFailure('B.x', '1/2 cells failed', 'none'))];
    });
    expect(blocked).toBeInstanceOf(Blocked);
    expect(path(blocked)).toBe('/wrong');
    expect(path(summed)).toBe('/wrong');
  });

  test('outside a log a failure judged nothing', () => {
    expect(exchangeJudgedBy(new CheckFailure('B.x', 'a', 'b'))).toBeUndefined();
    expect(exchangeJudgedBy(new Error('x'))).toBeUndefined();
  });
});

describe('the report of a failing case that sent several requests', () => {
  test('query-token-unchecked: kv.auth.invalid-401 fails on its _token request, and its curl line is that request', async () => {
    const reportDir = join(dir, 'report');
    const run = await runCli(
      [
        'conformance',
        '--area',
        'kv',
        '--fault',
        'query-token-unchecked',
        '--rules',
        'B.auth.invalid-401',
        '--report-dir',
        reportDir,
      ],
      { reportDir, timeoutMs: 90_000 },
    );
    const report = run.report as
      | {
          targets: {
            cases: {
              id: string;
              verdict: { kind: string; reason?: string };
              exchange?: { curl: string; answer: string };
            }[];
          }[];
        }
      | undefined;
    const found = report?.targets[0]?.cases.find((item) => item.id === 'kv.auth.invalid-401');
    expect(found?.verdict.kind, run.stdout.slice(-2000)).toBe('fail');
    expect(found?.verdict.reason).toMatch(/^_token: received status 200/);
    // The case sends a header request, the _token one and a /pipeline one before it checks them in turn.
    expect(found?.exchange?.curl).toMatch(/_token=/);
    expect(found?.exchange?.curl).not.toMatch(/\/pipeline/);
    expect(found?.exchange?.answer).toMatch(/^200 application\/json/);
  }, 120_000);
});
