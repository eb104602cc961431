/**
 * The one sink start-up both engines use, on real loopback servers: the keys from the target file,
 * else from the target's GET /v2/keys (with its token and headers), else the caller's; the flags over
 * the target file's settings (URL with a path prefix, threads); the caller's default threads; a port
 * already taken is one clear SVC_CONFIG error.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import type { CountedArrival, Sink } from '../../src/sink/sink-server.ts';
import type { Target } from '../../src/target/target.ts';
import { startTargetSink } from '../../src/target-sink/start-target-sink.ts';

const classifier = { module: new URL('../../sink/fixtures/count-classifier.ts', import.meta.url).href, data: {} };
const fileKeys = { current: 'file_current_key', next: 'file_next_key' };
const servedKeys = { current: 'served_current_key', next: 'served_next_key' };

let sink: Sink | undefined;
let server: Server | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

function target(overrides: Partial<Target> = {}, messaging: Partial<NonNullable<Target['messaging']>> = {}): Target {
  return {
    name: 't',
    dialect: 'svc',
    messaging: { url: 'http://127.0.0.1:9', token: 'messaging_token', ...messaging },
    ...overrides,
  };
}

function sign(key: string, url: string, body: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const digest = createHash('sha256').update(body).digest('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: url, iat: now, exp: now + 300, body: digest })}`;
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
}

/** One signed POST to a counting inbox of the sink; the signature verdict it got. */
async function verdictOf(s: Sink, key: string, header = 'svc-signature'): Promise<CountedArrival<unknown>> {
  const inbox = s.openCounter('test', classifier);
  const arrivals: CountedArrival<unknown>[] = [];
  inbox.onArrivals((batch) => arrivals.push(...batch));
  const url = inbox.url('dest');
  const res = await request(url, { method: 'POST', body: 'b', headers: { [header]: sign(key, url, 'b') } });
  await res.body.dump();
  await inbox.flush();
  return arrivals[0] as CountedArrival<unknown>;
}

describe('startTargetSink', () => {
  test('verifies with the target file’s keys, in its dialect’s header', async () => {
    sink = await startTargetSink({
      target: target({ dialect: 'upstash' }, { signingKeys: fileKeys }),
      defaultThreads: 0,
    });
    expect(sink.threads).toBe(0);
    expect(await verdictOf(sink, fileKeys.next, 'upstash-signature')).toMatchObject({ signature: 'ok' });
  });

  test('reads the keys from GET /v2/keys with the target’s token and headers, on the threads the target file says', async () => {
    const seen: IncomingHttpHeaders[] = [];
    server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(req.url === '/v2/keys' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(servedKeys));
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(listening.address() as { port: number }).port}`;
    sink = await startTargetSink({
      target: target({ sink: { threads: 1 } }, { url, headers: { 'x-tenant': 'a' } }),
      defaultThreads: 0,
    });
    expect(sink.threads).toBe(1);
    expect(await verdictOf(sink, servedKeys.current)).toMatchObject({ signature: 'ok' });
    expect(seen[0]).toMatchObject({ authorization: 'Bearer messaging_token', 'x-tenant': 'a' });
    expect(await verdictOf(sink, 'a stranger')).toMatchObject({ signature: 'failed' });
  });

  test('a target that gives no keys leaves signatures unchecked; the caller’s keys win over both', async () => {
    sink = await startTargetSink({ target: target(), defaultThreads: 0 });
    expect(await verdictOf(sink, fileKeys.current)).toMatchObject({ signature: 'unchecked' });
    await sink.close();
    sink = await startTargetSink({
      target: target({}, { signingKeys: fileKeys }),
      keys: async () => servedKeys,
      defaultThreads: 0,
    });
    expect(await verdictOf(sink, servedKeys.current)).toMatchObject({ signature: 'ok' });
  });

  test('the flags win over the target file’s sink settings; without either, the caller’s default threads', async () => {
    sink = await startTargetSink({
      target: target({ sink: { url: 'http://file.example', threads: 2 } }),
      flags: { url: 'https://tunnel.example/h/sink', threads: 0 },
      defaultThreads: 1,
    });
    expect(sink.url).toBe('https://tunnel.example/h/sink');
    expect(sink.threads).toBe(0);
    expect(sink.open('x').url('dest')).toMatch(/^https:\/\/tunnel\.example\/h\/sink\/[A-Za-z0-9_-]+\/dest$/);
    await sink.close();
    sink = await startTargetSink({ target: target(), defaultThreads: 1 });
    expect(sink.threads).toBe(1);
  });

  test('a port already taken is one SVC_CONFIG line', async () => {
    server = createServer(() => {});
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const port = (listening.address() as { port: number }).port;
    await expect(startTargetSink({ target: target({ sink: { port } }), defaultThreads: 0 })).rejects.toMatchObject({
      code: 'SVC_CONFIG',
      message: expect.stringContaining(`could not start on 127.0.0.1:${port}`),
    });
  });
});
