/**
 * The sink on a real loopback port: inboxes matched by token, arrival order and times, answers per
 * role, signatures verified with the current or next key (and keys read again after a rotation),
 * bounded waits that say how many arrived, strays and late requests counted, and the advertised URL.
 */
import { createHash, createHmac, createSecretKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { type Sink, type SinkOptions, SinkTimeout, startSink } from '../../src/sink/sink-server.ts';
import { checkSignature, checkSignatureNow } from '../../src/sink/sink-signature.ts';

let sink: Sink | undefined;
let keys = { current: 'sig_current_key', next: 'sig_next_key' };

afterEach(async () => {
  await sink?.close();
  sink = undefined;
  keys = { current: 'sig_current_key', next: 'sig_next_key' };
});

async function start(publicUrl?: string, options: Partial<SinkOptions> = {}): Promise<Sink> {
  sink = await startSink({
    signatureHeader: 'Svc-Signature',
    keys: async () => keys,
    ...(publicUrl !== undefined && { publicUrl }),
    ...options,
  });
  return sink;
}

/** A token as the real service makes one; `ageSeconds` back-dates it, `jti` names it. */
async function sign(key: string, url: string, body: string, ageSeconds = 0, jti?: string): Promise<string> {
  const digest = createHash('sha256').update(body).digest('base64url');
  const now = Math.floor(Date.now() / 1000) - ageSeconds;
  const token = new SignJWT({ body: `${digest}=` })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('Svc')
    .setSubject(url)
    .setIssuedAt(now)
    .setExpirationTime(now + 300);
  if (jti !== undefined) token.setJti(jti);
  return token.sign(createSecretKey(Buffer.from(key)));
}

async function send(
  url: string,
  body = 'hello',
  headers: Record<string, string> = {},
  method: 'POST' | 'PUT' = 'POST',
) {
  const res = await request(url, { method, body, headers });
  await res.body.dump();
  return res.statusCode;
}

describe('the sink', () => {
  test('keeps each inbox’s requests apart by token, in arrival order, with their answers', async () => {
    const s = await start();
    const a = s.open('case a');
    const b = s.open('case b');
    a.answer('dest', { failFirst: 1 });
    expect(await send(a.url('dest', '/x?y=1'), 'first')).toBe(500);
    expect(await send(a.url('dest'), 'second', {}, 'PUT')).toBe(200);
    expect(await send(b.url('callback'), 'other')).toBe(200);
    const got = a.requests('dest');
    expect(got.map((item) => [item.method, item.body.toString(), item.answered, item.rest])).toEqual([
      ['POST', 'first', 500, '/x?y=1'],
      ['PUT', 'second', 200, ''],
    ]);
    expect((got[1]?.at ?? 0) >= (got[0]?.at ?? 0)).toBe(true);
    expect(a.requests('callback')).toEqual([]);
    expect(b.requests().map((item) => item.role)).toEqual(['callback']);
  });

  test('verifies signatures with the current key, then the next, and reads the keys again after a rotation', async () => {
    const s = await start();
    const inbox = s.open('signatures');
    const url = inbox.url('dest');
    await send(url, 'body', { 'svc-signature': await sign('sig_current_key', url, 'body') });
    await send(url, 'body', { 'svc-signature': await sign('sig_next_key', url, 'body') });
    await send(url, 'body', { 'svc-signature': await sign('sig_current_key', url, 'another body') });
    await send(url, 'body', { 'svc-signature': await sign('sig_current_key', `${url}/elsewhere`, 'body') });
    await send(url, 'body');
    keys = { current: 'sig_next_key', next: 'sig_newest_key' };
    await send(url, 'body', { 'svc-signature': await sign('sig_newest_key', url, 'body') });
    const checks = inbox.requests('dest').map((item) => item.signature);
    expect(checks[0]).toEqual({ ok: true, key: 'current' });
    expect(checks[1]).toEqual({ ok: true, key: 'next' });
    expect(checks[2]).toMatchObject({ ok: false, problem: expect.stringContaining('body claim') });
    expect(checks[3]).toMatchObject({ ok: false, problem: expect.stringContaining('sub') });
    expect(checks[4]).toEqual({ ok: false, problem: 'no signature header' });
    expect(checks[5]).toEqual({ ok: true, key: 'next' });
  });

  test('when neither key verifies, the reason is the one of the key the token was made with, or both', async () => {
    const url = 'http://127.0.0.1:1/t/dest';
    const body = Buffer.from('body');
    const expired = await sign('sig_next_key', url, 'body', 600);
    expect(await checkSignature(expired, keys, url, body)).toEqual({
      ok: false,
      problem: 'the next key\'s signature matches, but: "exp" claim timestamp check failed',
    });
    const stranger = await sign('sig_other_key', url, 'body');
    expect(await checkSignature(stranger, keys, url, body)).toEqual({
      ok: false,
      problem: 'the JWT verifies with neither key (signature verification failed)',
    });
    expect(await checkSignature('not a jwt', keys, url, body)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('neither key'),
    });
  });

  test('a token presented a second time (the same jti) is recorded, not refused; tokens without a jti are not compared', async () => {
    const s = await start();
    const inbox = s.open('replays');
    const url = inbox.url('dest');
    const token = await sign('sig_current_key', url, 'body', 0, 'jwt_once');
    await send(url, 'body', { 'svc-signature': token });
    await send(url, 'body', { 'svc-signature': token });
    const plain = await sign('sig_current_key', url, 'body');
    await send(url, 'body', { 'svc-signature': plain });
    await send(url, 'body', { 'svc-signature': plain });
    const requests = inbox.requests('dest');
    // The spec shows no scheme and RFC 7519 makes jti optional: one token on an identical re-send is legal.
    expect(requests.map((item) => item.signature)).toEqual(Array(4).fill({ ok: true, key: 'current' }));
    expect(requests.map((item) => item.replayOf)).toEqual([undefined, 'dest', undefined, undefined]);
    expect(inbox.describe(0)[1]).toContain('its token was presented before, on dest');
  });

  test('under scheme none, or without keys, no signature is judged', async () => {
    const none = await start(undefined, { scheme: 'none' });
    const inbox = none.open('unsigned');
    await send(inbox.url('dest'), 'body');
    expect(inbox.requests('dest')[0]?.signature).toEqual({
      ok: 'unchecked',
      reason: 'the target declares no signature scheme',
    });
    await none.close();
    const keyless = await start(undefined, { keys: async () => undefined });
    const other = keyless.open('keyless');
    await send(other.url('dest'), 'body', { 'svc-signature': 'x.y.z' });
    expect(other.requests('dest')[0]?.signature).toEqual({
      ok: 'unchecked',
      reason: 'the target gives no signing keys',
    });
  });

  test('keeps the headers and body it answered with; a wait ends at once on the evidence it is given', async () => {
    const s = await start();
    const inbox = s.open('evidence');
    inbox.answer('dest', { status: 201, body: 'answered ✓!', headers: { 'x-answer': 'yes' } });
    await send(inbox.url('dest'));
    expect(inbox.requests('dest')[0]).toMatchObject({
      answered: 201,
      answeredWith: { headers: { 'x-answer': 'yes' }, body: Buffer.from('answered ✓!') },
    });
    const started = Date.now();
    const waiting = inbox.waitUntil(
      () => inbox.requests('dest').length >= 5,
      10_000,
      () => 'short',
      undefined,
      () => (inbox.requests('dest').length >= 2 ? new Error('decided') : undefined),
    );
    const ended = waiting.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await send(inbox.url('dest'));
    expect(await ended).toBe('decided');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(s.lastArrivalAt()).toBeGreaterThanOrEqual(started);
  });

  test('an issuer, when asked for, must be the JWT’s', async () => {
    const url = 'http://127.0.0.1:1/t/dest';
    const signature = await sign('sig_current_key', url, 'body');
    expect(await checkSignature(signature, keys, url, Buffer.from('body'), 'Svc')).toEqual({
      ok: true,
      key: 'current',
    });
    expect(await checkSignature(signature, keys, url, Buffer.from('body'), 'Upstash')).toMatchObject({ ok: false });
  });

  test('a wait ends when enough arrived, or says how many did within its deadline', async () => {
    const s = await start();
    const inbox = s.open('waits');
    const waiting = inbox.waitFor('dest', 2, 5000);
    await send(inbox.url('dest'));
    await send(inbox.url('dest'));
    expect(await waiting).toHaveLength(2);
    const started = Date.now();
    await expect(inbox.waitFor('dest', 3, 200)).rejects.toThrow(new SinkTimeout('2 of 3 arrived within 0.2 s'));
    await expect(inbox.waitFor('never', 1, 200)).rejects.toThrow('never arrived within 0.2 s');
    expect(Date.now() - started).toBeLessThan(2000);
    const aborted = new AbortController();
    const cut = inbox.waitFor('never', 1, 60_000, aborted.signal);
    aborted.abort();
    await expect(cut).rejects.toThrow(SinkTimeout);
  });

  test('answers a role late when told to (a slow endpoint)', async () => {
    const s = await start();
    const inbox = s.open('slow');
    inbox.answer('slow', { delayMs: 300, status: 202 });
    const started = Date.now();
    expect(await send(inbox.url('slow'))).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(inbox.requests('slow')[0]?.answered).toBe(202);
  });

  test('counts requests for no inbox and for a closed one, and answers them 404', async () => {
    const s = await start();
    const inbox = s.open('closed soon');
    expect(await send(`${s.url}/unknowntoken/dest`)).toBe(404);
    expect(await send(`${s.url}/`)).toBe(404);
    inbox.close();
    expect(await send(inbox.url('dest'))).toBe(404);
    expect(s.strays().map((item) => item.kind)).toEqual(['stray', 'stray', 'late']);
    expect(inbox.requests()).toEqual([]);
  });

  test('hands out URLs under the advertised base URL and checks signatures against it', async () => {
    const s = await start('https://tunnel.example');
    const inbox = s.open('tunnel');
    expect(inbox.url('dest')).toMatch(/^https:\/\/tunnel\.example\/[A-Za-z0-9_-]+\/dest$/);
    expect(s.localUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const local = inbox.url('dest').replace('https://tunnel.example', s.localUrl);
    await send(local, 'x', { 'svc-signature': await sign('sig_current_key', inbox.url('dest'), 'x') });
    expect(inbox.requests('dest')[0]?.signature).toEqual({ ok: true, key: 'current' });
  });
});

describe('the quick HS256 path', () => {
  const url = 'http://127.0.0.1:1/t/dest';
  const body = Buffer.from('body');
  /** A token with the header and claims given, signed with `key` by hand (jose refuses to make odd ones). */
  function handMade(header: object, claims: object, key = 'sig_current_key'): string {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${part(header)}.${part(claims)}`;
    return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
  }
  const now = Math.floor(Date.now() / 1000);
  const digest = createHash('sha256').update(body).digest('base64url');
  const good = { sub: url, body: digest, iat: now, exp: now + 300, jti: 'j' };

  test('decides at once only a plain HS256 token a key signed, with claims jose accepts', () => {
    expect(checkSignatureNow(handMade({ alg: 'HS256', typ: 'JWT' }, good), keys, url, body)).toMatchObject({
      ok: true,
      key: 'current',
      claims: { jti: 'j' },
    });
    for (const token of [
      handMade({ alg: 'HS256', crit: ['x'], x: 1 }, good),
      handMade({ alg: 'none' }, good),
      handMade({ alg: 'HS256' }, { ...good, exp: now - 600 }),
      handMade({ alg: 'HS256' }, { ...good, nbf: now + 600 }),
      handMade({ alg: 'HS256' }, { ...good, exp: 'tomorrow' }),
      handMade({ alg: 'HS256' }, good, 'sig_other_key'),
      `${handMade({ alg: 'HS256' }, good)}=`,
    ]) {
      expect(checkSignatureNow(token, keys, url, body)).toBeUndefined();
    }
  });

  test('what it leaves to jose, jose refuses, with its reasons', async () => {
    expect(await checkSignature(handMade({ alg: 'HS256', crit: ['x'], x: 1 }, good), keys, url, body)).toMatchObject({
      ok: false,
    });
    expect(await checkSignature(handMade({ alg: 'HS256' }, { ...good, exp: now - 600 }), keys, url, body)).toEqual({
      ok: false,
      problem: 'the current key\'s signature matches, but: "exp" claim timestamp check failed',
    });
    expect(await checkSignature(handMade({ alg: 'HS256' }, good), keys, `${url}/x`, body)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('sub is'),
    });
  });
});
