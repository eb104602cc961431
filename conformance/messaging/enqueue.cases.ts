/**
 * Spec "Endpoints > Area A": the callback headers are "also accepted on enqueue, same header semantics
 * as direct publish". All twelve are sent on enqueue, each checked for its effect: for each kind
 * (callback, failure callback) one message carries the URL header and its Method, Retries, Delay,
 * Timeout and Forward headers, and its URL answers after 3 s, so the 1 s timeout ends the first
 * request and the one retry follows. The same message is published at the same time: a header that
 * fails on both is blamed on its own rule, one that fails on enqueue only on A.callback.on-enqueue.
 * Enqueueing and the queue are the adapter's (not in the spec).
 */
import {
  type CaseContext,
  CaseSkipped,
  CheckFailure,
  defineCases,
  means,
  type SinkRequest,
  show,
} from '../../src/suite-kit/suite-api.ts';
import { allOf, cover } from '../rules/dimensions.ts';
import { sleep } from '../support/bounded.ts';
import { messagingAdapter } from '../support/messaging-adapter.ts';
import { aboutOneSecondMs } from '../support/messaging-checks.ts';
import { createMessagingClient, type MessagingClient } from '../support/messaging-client.ts';
import { type CaseInbox, openInbox, signedCases } from '../support/messaging-sink.ts';
import { publishTo, uniqueId } from '../support/messaging-steps.ts';

type Kind = 'Callback' | 'Failure-Callback';
type Via = 'publish' | 'enqueue';

/** What one message gives: its delivery attempts and the requests at its (failure) callback URL. */
interface Outcome {
  readonly attempts: readonly SinkRequest[];
  readonly requests: readonly SinkRequest[];
}

/** Where a check's failure goes: the rule it is blamed on, and the header and way it was sent. */
interface Blame {
  readonly rule: string;
  readonly header: string;
  readonly via: Via;
}

/** One of the twelve headers, named without the dialect's prefix and the kind, and its check. */
interface HeaderRow {
  readonly suffix: string;
  readonly value: (role: string, inbox: CaseInbox) => string;
  /** The header's own rule (what a publish breaks), by kind. */
  readonly rule: Readonly<Record<Kind, string>>;
  /** Throws a CheckFailure on the blamed rule when the header had no effect. */
  check(outcome: Outcome, blame: Blame): void;
}

const method = 'PUT';
const forwardValue = 'forwarded';

const fail = (blame: Blame, received: string, expected: string): never => {
  throw new CheckFailure(blame.rule, received, expected, `${blame.header} on ${blame.via}`);
};

const configRules = {
  Callback: 'A.callback.config-headers',
  'Failure-Callback': 'A.failure-callback.config-headers',
} as const;

const rows: readonly HeaderRow[] = [
  {
    suffix: '',
    value: (role, inbox) => inbox.url(role),
    rule: { Callback: 'A.callback.on-answer', 'Failure-Callback': 'A.failure-callback.after-exhaustion' },
    check: ({ requests }, blame) => {
      if (requests.length === 0) fail(blame, 'no request at its URL', 'a request');
    },
  },
  {
    suffix: '-Method',
    value: () => method,
    rule: configRules,
    check: ({ requests }, blame) => {
      const methods = requests.map((request) => request.method);
      if (!methods.every((m) => m === method)) fail(blame, `methods ${methods.join(', ')}`, method);
    },
  },
  {
    suffix: '-Retries',
    value: () => '1',
    rule: configRules,
    check: ({ requests }, blame) => {
      if (requests.length !== 2) fail(blame, `${requests.length} requests`, '2 (the first, then one retry)');
    },
  },
  {
    suffix: '-Delay',
    value: () => '1s',
    rule: configRules,
    check: ({ attempts, requests }, blame) => {
      const after = (requests[0]?.at ?? 0) - (attempts.at(-1)?.at ?? 0);
      if (after < aboutOneSecondMs)
        fail(blame, `the first request ${after} ms after the delivery attempt`, 'at least 1 s after it');
    },
  },
  {
    suffix: '-Timeout',
    value: () => '1s',
    rule: configRules,
    check: ({ requests }, blame) => {
      // The URL answers after 3 s: only the timeout makes the first request fail and come again. The
      // retry comes after the timeout and then the service's retry backoff (about 12 s for a first
      // retry with the real one), so only the lower bound is the timeout's.
      if (requests.length < 2) fail(blame, 'the slow request was not ended and tried again', 'a retry after 1 s');
      const apart = (requests[1]?.at ?? 0) - (requests[0]?.at ?? 0);
      if (apart < aboutOneSecondMs)
        fail(blame, `the retry ${apart} ms after the first`, 'at least 1 s after it (the timeout)');
    },
  },
  {
    suffix: '-Forward-X-Svc-Harness',
    value: () => forwardValue,
    rule: { Callback: 'A.callback.forward-headers', 'Failure-Callback': 'A.failure-callback.forward-headers' },
    check: ({ requests }, blame) => {
      const values = requests.map((request) => request.headers['x-svc-harness'] ?? null);
      if (!values.every((value) => value === forwardValue)) {
        fail(blame, `X-Svc-Harness ${show(values)}`, `X-Svc-Harness ${show(forwardValue)} on every request`);
      }
    },
  },
];

/** The six headers of `kind`, with the URL of `via`'s role; a failure callback needs a failing message. */
function headersFor(client: MessagingClient, inbox: CaseInbox, kind: Kind, via: Via): Record<string, string> {
  const headers: Record<string, string> = kind === 'Failure-Callback' ? { [client.h('Retries')]: '0' } : {};
  for (const row of rows) headers[client.h(`${kind}${row.suffix}`)] = row.value(`${via}-${kind}`, inbox);
  return headers;
}

/** Publishes and enqueues the same message with all six headers of `kind`; answers both outcomes. */
async function sendBoth(ctx: CaseContext, kind: Kind): Promise<Record<Via, Outcome>> {
  const client = createMessagingClient(ctx);
  const adapter = await messagingAdapter(ctx);
  const inbox = await openInbox(ctx, `enqueue.${kind.toLowerCase()}`);
  const queue = uniqueId(ctx, 'queue').slice(-60);
  ctx.onCleanup(async () => {
    await adapter.deleteQueue?.(queue);
  });
  const vias = ['publish', 'enqueue'] as const;
  for (const via of vias) {
    // The destination answers 200 for callbacks; always 500 (no retries) for the failure callback.
    if (kind === 'Failure-Callback') inbox.answer(`${via}-dest`, { status: 500 });
    inbox.answer(`${via}-${kind}`, { delayMs: 3000 });
  }
  const body = `sent with the ${kind} headers`;
  await publishTo(client, inbox.url('publish-dest'), headersFor(client, inbox, kind, 'publish'), body);
  await means(() =>
    adapter.enqueue(queue, inbox.url('enqueue-dest'), headersFor(client, inbox, kind, 'enqueue'), body),
  );
  // Both deliveries, then all four (failure-)callback requests, each under one deadline.
  await means(() =>
    inbox.arriveAll(
      vias.map((via) => ({ rule: 'A.publish.delivers', role: `${via}-dest`, what: `the ${via}ed message` })),
    ),
  );
  // Waited for, not judged: a shortfall is judged row by row below, on the rule that explains it. A
  // failure callback follows the destination's retries (0 asked): a target whose own retries did not
  // end within the wait skips the case, saying so.
  const afterRetries = (via: Via) =>
    kind === 'Failure-Callback' ? { afterRetries: { role: `${via}-dest`, asked: 0 } } : {};
  await inbox
    .arriveAll(
      vias.map((via) => ({ rule: 'A.callback.on-enqueue', role: `${via}-${kind}`, count: 2, ...afterRetries(via) })),
    )
    .catch((error: unknown) => {
      if (error instanceof CaseSkipped) throw error;
    });
  // A third request would come one timeout after the second: wait that long before counting.
  await sleep(1000);
  await inbox.settle();
  const outcome = (via: Via): Outcome => ({
    attempts: inbox.requests(`${via}-dest`),
    requests: inbox.requests(`${via}-${kind}`),
  });
  return { publish: outcome('publish'), enqueue: outcome('enqueue') };
}

/** The coverage matrix's name of a row's header: its suffix's first word, `url` for the URL header. */
const headerCell = (row: HeaderRow) => (row.suffix.split('-')[1] ?? 'url').toLowerCase();

/** The cells a kind's case checks: every header on enqueue, the configuration headers on publish too. */
function coversOf(kind: Kind) {
  const headers = allOf('callback-header').filter((header) => rows.some((row) => headerCell(row) === header));
  const kindCell = kind === 'Callback' ? 'callback' : 'failure-callback';
  return [
    cover('A.callback.on-enqueue', { 'callback-kind': [kindCell], 'callback-header': headers }),
    cover(configRules[kind], {
      'callback-header': headers.filter((header) =>
        rows.some((row) => headerCell(row) === header && row.rule[kind] === configRules[kind]),
      ),
    }),
    cover('A.signature.verifiable', { 'delivery-kind': ['delivery', kindCell], 'send-form': ['publish', 'enqueue'] }),
  ];
}

const kindCase = (kind: Kind) => ({
  id: `messaging.enqueue.${kind.toLowerCase()}-headers`,
  concurrent: true,
  rules: ['A.callback.on-enqueue', ...new Set(rows.map((row) => row.rule[kind]))],
  covers: coversOf(kind),
  needs: ['messaging.adapter' as const],
  title: `The six ${kind} headers on enqueue have their publish semantics`,
  expect: `The same message published and enqueued (its queue deleted afterwards) with ${kind}, ${kind}-Method PUT, -Retries 1, -Delay 1s, -Timeout 1s and -Forward-X-Svc-Harness, the URL answering after 3 s${kind === 'Failure-Callback' ? ', and a destination that always fails with retries 0' : ''}: for each, exactly two PUT requests at that URL, the first a second or more after the delivery, the second a second or more after the first (the timeout, then the retry backoff), both with X-Svc-Harness.`,
  async run(ctx: CaseContext) {
    const client = createMessagingClient(ctx);
    const outcomes = await sendBoth(ctx, kind);
    for (const row of rows) {
      const header = client.h(`${kind}${row.suffix}`);
      row.check(outcomes.publish, { rule: row.rule[kind], header, via: 'publish' });
      row.check(outcomes.enqueue, { rule: 'A.callback.on-enqueue', header, via: 'enqueue' });
    }
  },
});

export const cases = defineCases(signedCases([kindCase('Callback'), kindCase('Failure-Callback')]));
