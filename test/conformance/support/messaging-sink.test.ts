import { createHash, createSecretKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { request as send } from 'undici';
import { afterAll, describe, expect, test } from 'vitest';
import {
  closeSink,
  droughtGraceMs,
  duplicates,
  openInbox,
  signatureFailure,
  signedCases,
} from '../../../conformance/support/messaging-sink.ts';
import { createCaseContext } from '../../../src/engines/conformance/case-context.ts';
import type { SinkRequest } from '../../../src/sink/sink-server.ts';
import { Blocked, CaseSkipped, CheckFailure, means } from '../../../src/suite-kit/check-failure.ts';
import type { ConformanceCase } from '../../../src/suite-kit/conformance-case.ts';

const request = (role: string, id: string, answered: number): SinkRequest => ({
  role,
  method: 'POST',
  rest: '',
  headers: { 'svc-message-id': id },
  body: Buffer.alloc(0),
  at: 0,
  signature: { ok: true, key: 'current' },
  answered,
  answeredWith: { headers: {}, body: Buffer.from('ok') },
});

describe('duplicates', () => {
  test('a message answered 2xx and sent again is one line; retries after a 500 are not', () => {
    const lines = duplicates(
      [
        request('dest', 'msg_1', 500),
        request('dest', 'msg_1', 200),
        request('dest', 'msg_2', 200),
        request('dest', 'msg_2', 200),
        request('callback', 'msg_1', 200),
      ],
      'Svc-Message-Id',
    );
    expect(lines).toEqual(['sink: dest arrived again after a 2xx answer (the same message id)']);
  });
});

describe('signatures as verdicts', () => {
  const signed = (role: string, signature: SinkRequest['signature']): SinkRequest => ({
    ...request(role, 'msg_1', 200),
    signature,
  });

  test('the first request whose signature failed is a failure of A.signature.verifiable; unchecked ones are not', () => {
    expect(
      signatureFailure([
        signed('dest', { ok: true, key: 'current' }),
        signed('dest', { ok: 'unchecked', reason: 'the target declares no signature scheme' }),
      ]),
    ).toBeUndefined();
    const failure = signatureFailure([
      signed('dest', { ok: true, key: 'current' }),
      signed('callback', { ok: false, problem: 'sub is "x", not the URL called' }),
    ]);
    expect(failure).toBeInstanceOf(CheckFailure);
    expect(failure?.rule).toBe('A.signature.verifiable');
    expect(failure?.message).toContain('the callback request (POST): received sub is "x", not the URL called');
  });

  const ctx = createCaseContext({
    target: { name: 't', dialect: 'svc', messaging: { url: 'http://127.0.0.1:1', token: 't' } },
    caseId: 'signed',
  }).context;

  test('signedCases adds the signature rule to every case that judges, and leaves observing cases alone', () => {
    const [judging, observing, already] = signedCases([
      { id: 'a', rules: ['A.publish.delivers'], title: 't', expect: 'e', run: async () => {} },
      { id: 'b', rules: ['A.publish.headers'], title: 't', expect: 'e', run: async () => {} },
      { id: 'c', rules: ['A.signature.verifiable'], title: 't', expect: 'e', run: async () => {} },
    ] as const);
    expect(judging.rules).toEqual(['A.publish.delivers', 'A.signature.verifiable']);
    expect(observing.rules).toEqual(['A.publish.headers']);
    expect(already.rules).toEqual(['A.signature.verifiable']);
  });

  test('a case’s own failure, a skip and a case without inboxes keep their ends', async () => {
    const own = new CheckFailure('A.publish.delivers', 'x', 'y');
    const [failing, skipping, passing, blocked] = signedCases<readonly ConformanceCase[]>([
      { id: 'f', rules: ['A.publish.delivers'], title: 't', expect: 'e', run: async () => Promise.reject(own) },
      {
        id: 's',
        rules: ['A.publish.delivers'],
        title: 't',
        expect: 'e',
        run: async () => Promise.reject(new CaseSkipped('no')),
      },
      { id: 'p', rules: ['A.publish.delivers'], title: 't', expect: 'e', run: async () => {} },
      {
        id: 'b',
        rules: ['A.publish.delivers'],
        title: 't',
        expect: 'e',
        run: async () => Promise.reject(new Blocked('A.publish.delivers', 'set-up')),
      },
    ]);
    await expect(failing?.run(ctx)).rejects.toBe(own);
    await expect(skipping?.run(ctx)).rejects.toBeInstanceOf(CaseSkipped);
    await expect(passing?.run(ctx)).resolves.toBeUndefined();
    await expect(blocked?.run(ctx)).rejects.toBeInstanceOf(Blocked);
  });
});

describe('inboxes on a real sink', () => {
  afterAll(closeSink);
  const keyed = createCaseContext({
    target: {
      name: 't',
      dialect: 'svc',
      messaging: { url: 'http://127.0.0.1:1', token: 't', signingKeys: { current: 'sig_a', next: 'sig_b' } },
      sink: { waitSeconds: 10 },
    },
    caseId: 'inboxes',
  });

  test('a request signed wrongly ends a wait at once, and fails a case that was only blocked', async () => {
    let inboxUrl = '';
    let waited = 0;
    const [item] = signedCases<readonly ConformanceCase[]>([
      {
        id: 'x',
        rules: ['A.callback.on-answer'],
        title: 't',
        expect: 'e',
        async run(ctx) {
          const inbox = await openInbox(ctx, 'x');
          inboxUrl = inbox.url('dest');
          const started = Date.now();
          const waiting = means(() => inbox.arrive('A.publish.delivers', 'dest', 2));
          waiting.catch(() => {});
          await send(inboxUrl, { method: 'POST', body: 'b', headers: { 'svc-signature': 'not.a.jwt' } }).then((res) =>
            res.body.dump(),
          );
          try {
            await waiting;
          } finally {
            waited = Date.now() - started;
          }
        },
      },
    ]);
    const end = await (item as ConformanceCase).run(keyed.context).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(end).toBeInstanceOf(CheckFailure);
    expect((end as CheckFailure).rule).toBe('A.signature.verifiable');
    expect((end as CheckFailure).message).toContain('neither key');
    expect(waited).toBeLessThan(5000);
    await keyed.cleanup(1000);
  });

  test('a judge ends the wait on the first request that breaks it, and arriveAll names the first shortfall', async () => {
    const recorder = createCaseContext({
      target: { ...keyed.context.target, sink: { waitSeconds: 1 } },
      caseId: 'judges',
    });
    const inbox = await openInbox(recorder.context, 'judges');
    inbox.judge('callback', (got) => {
      if (got.method !== 'PUT') throw new CheckFailure('A.callback.config-headers', got.method, 'PUT');
    });
    const started = Date.now();
    const waiting = inbox.arriveAll([
      { rule: 'A.publish.delivers', role: 'dest' },
      { rule: 'A.callback.on-answer', role: 'callback' },
    ]);
    const ended = waiting.then(
      () => undefined,
      (error: CheckFailure) => error,
    );
    await sendSigned(inbox.url('callback'));
    expect((await ended)?.rule).toBe('A.callback.config-headers');
    expect(Date.now() - started).toBeLessThan(900);
    const short = await inbox
      .arriveAll([
        { rule: 'A.callback.on-answer', role: 'callback' },
        { rule: 'A.publish.delivers', role: 'dest', what: 'the delivery' },
      ])
      .then(
        () => undefined,
        (error: CheckFailure) => error,
      );
    // The judged callback already broke its check: the evidence, not the shortfall, decides.
    expect(short?.rule).toBe('A.callback.config-headers');
    await recorder.cleanup(1000);
  });

  test('after a wait ran out with nothing at all, later waits give up after the grace, until a request comes', async () => {
    const context = (caseId: string) =>
      createCaseContext({ target: { ...keyed.context.target, sink: { waitSeconds: 5 } }, caseId });
    const first = context('drought-a');
    const a = await openInbox(first.context, 'drought-a');
    const missed = await a.arrive('A.publish.delivers', 'dest').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missed).toBeInstanceOf(CheckFailure);
    const second = context('drought-b');
    const b = await openInbox(second.context, 'drought-b');
    const started = Date.now();
    const cut = await b.arrive('A.callback.on-answer', 'callback').then(
      () => undefined,
      (error: unknown) => error,
    );
    const waited = Date.now() - started;
    expect(cut).toBeInstanceOf(Blocked);
    expect((cut as Blocked).rule).toBe('A.publish.delivers');
    expect((cut as Blocked).message).toContain('nothing has reached the sink since case drought-a waited 5 s');
    expect(waited).toBeGreaterThanOrEqual(droughtGraceMs - 100);
    expect(waited).toBeLessThan(4900);
    // A request ends the drought: the next wait is an ordinary one again.
    const third = context('drought-c');
    const c = await openInbox(third.context, 'drought-c');
    await sendSigned(c.url('dest'));
    const later = Date.now();
    const waiting = c.arrive('A.callback.on-answer', 'callback');
    setTimeout(() => void sendSigned(c.url('callback')), droughtGraceMs + 500);
    expect(await waiting).toHaveLength(1);
    expect(Date.now() - later).toBeGreaterThanOrEqual(droughtGraceMs + 400);
    for (const recorder of [first, second, third]) await recorder.cleanup(1000);
  }, 20_000);
});

/** A request signed as the real service signs it, with the current key of the inboxes' target. */
async function sendSigned(url: string, body = '{}'): Promise<void> {
  const digest = createHash('sha256').update(body).digest('base64url');
  const token = await new SignJWT({ body: digest })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(url)
    .setIssuedAt()
    .setExpirationTime('5m')
    .setJti(`jwt_${Math.random().toString(36).slice(2)}`)
    .sign(createSecretKey(Buffer.from('sig_a')));
  const res = await send(url, { method: 'POST', body, headers: { 'svc-signature': token } });
  await res.body.dump();
}
