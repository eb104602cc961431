/** /monitor, /subscribe, /psubscribe and /publish, as server-sent events over real HTTP. */
import { createConnection, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import type { RunningReference } from '../../../src/reference/reference-service.ts';
import {
  admin,
  call,
  nextMatching,
  openStream as open,
  startTestRedis,
  startTestReference,
  uniqueKey,
  useTestReference,
} from '../../support/reference-fixture.ts';

const env = useTestReference();

/** A subscriber on a raw socket that reads nothing until resumed; counts the bytes it reads then. */
async function stalledSubscriber(ref: RunningReference, channel: string) {
  const { hostname, port } = new URL(ref.target.kv!.url);
  const socket: Socket = createConnection({ host: hostname, port: Number(port) });
  // Paused before anything arrives: the service's events queue up in its socket and its memory.
  socket.pause();
  const state = { socket, received: 0, closed: false };
  socket.on('data', (chunk: Buffer) => {
    state.received += chunk.length;
  });
  socket.on('error', () => undefined);
  socket.once('close', () => {
    state.closed = true;
  });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    `POST /subscribe/${channel} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ref.target.kv!.token}\r\n` +
      'accept: text/event-stream\r\ncontent-length: 0\r\n\r\n',
  );
  return state;
}

async function numsubOf(ref: RunningReference, channel: string): Promise<number> {
  return Number(((await call(ref, `/pubsub/numsub/${channel}`)).json as { result: [string, number] }).result[1]);
}

/** Polls `test` every 20 ms until it holds or `ms` pass. */
async function eventually(test: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await test()) return true;
    await sleep(20);
  }
  return test();
}

/**
 * The bytes of live heap objects and ArrayBuffers, after full collections (node runs the tests
 * without --expose-gc); twice, since V8 frees dead ArrayBuffers' memory on a thread of its own.
 */
async function liveBytes(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 2; i++) {
    gc();
    await sleep(50);
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

describe('/monitor', () => {
  it('starts with "OK", then one Redis MONITOR line per command with the client shown as 0.0.0.0:0', async () => {
    const stream = await open(env.ref, '/monitor');
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(await stream.next()).toBe('"OK"');
      const key = uniqueKey();
      await call(env.ref, `/set/${key}/${encodeURIComponent('say "hi"\n')}`);
      const line = await nextMatching(stream, (data) => data.includes(key));
      expect(line).toMatch(/^\d+\.\d{6} \[0 0\.0\.0\.0:0\] "set" "/);
      expect(line).toContain(`"${key}" "say \\"hi\\"\\n"`);
    } finally {
      stream.close();
    }
  });

  it('shows only area B’s database: not the commands of areas A and C, nor the account’s secrets they carry', async () => {
    const stream = await open(env.ref, '/monitor');
    try {
      expect(await stream.next()).toBe('"OK"');
      // Rewrites the messaging account (its password and token) in Redis while the monitor reads.
      expect((await admin(env.ref, 'PUT', '/account', { max_queues: 999 })).status).toBe(200);
      const marker = uniqueKey('marker');
      await call(env.ref, `/set/${marker}/1`);
      const seen: string[] = [];
      await nextMatching(stream, (data) => {
        seen.push(data);
        return data.includes(marker);
      });
      expect(seen.filter((line) => line.includes('svc:ref:'))).toEqual([]);
      expect(seen.every((line) => /^\d+\.\d{6} \[0 /.test(line))).toBe(true);
    } finally {
      stream.close();
    }
  });

  it('refuses the Read Only token, which may not run MONITOR', async () => {
    const res = await call(env.ref, '/monitor', { method: 'POST', token: env.ref.target.kv!.readOnlyToken! });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: expect.stringMatching(/^NOPERM /) });
  });
});

describe('/subscribe and /publish', () => {
  it('sends subscribe,<channel>,1 then every message in order, commas kept', async () => {
    const channel = uniqueKey('ch');
    const stream = await open(env.ref, `/subscribe/${encodeURIComponent(channel)}`);
    try {
      expect(await stream.next()).toBe(`subscribe,${channel},1`);
      const messages = ['one', 'two, with commas, here', 'three'];
      for (const message of messages) {
        const res = await call(env.ref, `/publish/${encodeURIComponent(channel)}/${encodeURIComponent(message)}`, {
          method: 'POST',
        });
        expect(res.json).toEqual({ result: 1 });
      }
      for (const message of messages) expect(await stream.next()).toBe(`message,${channel},${message}`);
    } finally {
      stream.close();
    }
  });

  it('publishes the POST body and answers the number of receivers', async () => {
    const res = await call(env.ref, `/publish/${uniqueKey('nobody')}`, { body: 'hello' });
    expect(res.json).toEqual({ result: 0 });
  });

  it('keeps a newline inside a message', async () => {
    const channel = uniqueKey('ch');
    const stream = await open(env.ref, `/subscribe/${channel}`);
    try {
      await stream.next();
      await call(env.ref, `/publish/${channel}`, { body: 'line1\nline2' });
      expect(await stream.next()).toBe(`message,${channel},line1\nline2`);
    } finally {
      stream.close();
    }
  });

  it('subscribes to the exact bytes of a channel that is not UTF-8', async () => {
    const channel = `%FF*${uniqueKey('ch')}`;
    const stream = await open(env.ref, `/subscribe/${channel}`);
    try {
      expect(await stream.next()).toMatch(/^subscribe,\uFFFD\*ch:.+,1$/);
      // Another byte in the same place: not this channel, so nothing arrives for it.
      await call(env.ref, `/publish/%FE*${channel.slice(4)}`, { body: 'not for you' });
      await call(env.ref, `/publish/${channel}`, { body: 'hi' });
      expect(await stream.next()).toMatch(/^message,\uFFFD\*ch:.+,hi$/);
    } finally {
      stream.close();
    }
    const pattern = await call(env.ref, '/psubscribe/%FF*', { method: 'POST' });
    expect(pattern.status).toBe(400);
    expect(pattern.json).toEqual({ error: expect.stringMatching(/^ERR /) });
  });

  it('sends psubscribe,<pattern>,1 then pmessage,<pattern>,<channel>,<message>', async () => {
    const prefix = uniqueKey('p');
    const stream = await open(env.ref, `/psubscribe/${encodeURIComponent(`${prefix}.*`)}`);
    try {
      expect(await stream.next()).toBe(`psubscribe,${prefix}.*,1`);
      await call(env.ref, `/publish/${prefix}.a/m1`);
      expect(await stream.next()).toBe(`pmessage,${prefix}.*,${prefix}.a,m1`);
    } finally {
      stream.close();
    }
  });

  it('subscribes an ACL token’s stream as that user, so Redis enforces its channels', async () => {
    const user = uniqueKey('user').replace(':', '-');
    await call(env.ref, '/', { body: ['ACL', 'SETUSER', user, 'on', '>pw', 'resetchannels', '&news.*', '+subscribe'] });
    const token = ((await call(env.ref, `/acl/resttoken/${user}/pw`)).json as { result: string }).result;
    const allowed = await open(env.ref, '/subscribe/news.today', token);
    try {
      expect(await allowed.next()).toBe('subscribe,news.today,1');
    } finally {
      allowed.close();
    }
    const denied = await call(env.ref, '/subscribe/secret', { method: 'POST', token });
    expect(denied.status).toBe(400);
    expect(denied.json).toEqual({ error: expect.stringMatching(/^NOPERM /) });
  });

  it('ends open streams when Redis goes away, and answers 500 at once for new ones', async () => {
    const ownRedis = await startTestRedis();
    const own = await startTestReference(ownRedis);
    try {
      const subscribed = await open(own, `/subscribe/${uniqueKey('ch')}`);
      await subscribed.next();
      const monitor = await open(own, '/monitor');
      await monitor.next();
      await ownRedis.stop();
      // A stream that outlived its Redis connection would stay open with nothing to say.
      await expect(subscribed.next(3_000)).rejects.toThrow(/ended|closed/);
      await expect(monitor.next(3_000)).rejects.toThrow(/ended|closed/);
      const started = Date.now();
      for (const path of ['/subscribe/x', '/monitor']) {
        const res = await call(own, path, { method: 'POST' });
        expect(res.status, path).toBe(500);
        expect(res.json).toEqual({ error: expect.stringMatching(/^ERR backing store unavailable/) });
      }
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await own.stop();
      await ownRedis.stop();
    }
  });

  it('drops a client that stops reading once its unsent events pass the buffer limit', async () => {
    const own = await startTestReference(env.redis, { streamBufferBytes: 1024 * 1024 });
    const channel = uniqueKey('ch');
    const { hostname, port } = new URL(own.target.kv!.url);
    const stalled = createConnection({ host: hostname, port: Number(port) });
    try {
      await new Promise<void>((resolve, reject) => stalled.once('connect', resolve).once('error', reject));
      stalled.write(
        `POST /subscribe/${channel} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${own.target.kv!.token}\r\n` +
          'accept: text/event-stream\r\ncontent-length: 0\r\n\r\n',
      );
      // The client never reads: what the socket buffers cannot take stays in the service's memory.
      stalled.pause();
      const numsub = async () =>
        ((await call(own, `/pubsub/numsub/${channel}`)).json as { result: [string, number] }).result[1];
      for (let i = 0; i < 50 && (await numsub()) === 0; i++) await sleep(20);
      expect(await numsub()).toBe(1);
      const message = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 32 && (await numsub()) > 0; i++) await call(own, `/publish/${channel}`, { body: message });
      expect(await numsub()).toBe(0);
    } finally {
      stalled.destroy();
      await own.stop();
    }
  });

  it('resets a dropped slow reader at once: it learns without reading the backlog, and no stream is left', async () => {
    const ownRedis = await startTestRedis();
    // A limit the operating system's socket buffers fill up to first (their queue reaches megabytes).
    const own = await startTestReference(ownRedis, { streamBufferBytes: 4 * 1024 * 1024 });
    const channel = uniqueKey('ch');
    const client = await stalledSubscriber(own, channel);
    try {
      expect(await eventually(async () => (await numsubOf(own, channel)) === 1, 3_000)).toBe(true);
      const message = 'x'.repeat(1024 * 1024);
      let published = 0;
      for (let i = 0; i < 40 && (await numsubOf(own, channel)) > 0; i++) {
        await call(own, `/publish/${channel}`, { body: message });
        published += message.length;
      }
      // Dropped: Redis counts no subscriber, and no stream of the reference holds a Redis connection.
      expect(await numsubOf(own, channel)).toBe(0);
      const redis = createClient({ url: ownRedis.url });
      await redis.connect();
      try {
        const streams = async () => String(await redis.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub'])).trim();
        expect(await eventually(async () => (await streams()) === '', 3_000)).toBe(true);
      } finally {
        redis.destroy();
      }
      // The reader reads again: the connection ends before it has read even one message. A close
      // without a reset would first deliver the megabytes the operating system still held for it.
      client.socket.resume();
      expect(await eventually(() => client.closed, 3_000)).toBe(true);
      expect(published).toBeGreaterThan(4 * 1024 * 1024);
      expect(client.received).toBeLessThan(message.length);
    } finally {
      client.socket.destroy();
      await own.stop();
      await ownRedis.stop();
    }
  });

  it('holds a message its slow subscribers all wait for once, not once per subscriber', async () => {
    const own = await startTestReference(env.redis);
    const channel = uniqueKey('ch');
    const clients = await Promise.all(Array.from({ length: 10 }, () => stalledSubscriber(own, channel)));
    try {
      expect(await eventually(async () => (await numsubOf(own, channel)) === 10, 3_000)).toBe(true);
      const before = await liveBytes();
      // 16 messages of 1 MiB for each of the 10: under the 32 MiB limit, so all of it stays queued for them.
      for (let i = 0; i < 16; i++) {
        const message = `${i}:${'x'.repeat(1024 * 1024)}`;
        expect((await call(own, `/publish/${channel}`, { body: message })).json).toEqual({ result: 10 });
      }
      // Every subscriber has its events queued (the last publish reached the tenth subscriber too).
      await sleep(500);
      const held = (await liveBytes()) - before;
      // The operating system takes a few MiB of each; each copy in the service's memory would be ~120 MiB.
      expect(held).toBeLessThan(40 * 1024 * 1024);
      expect(await numsubOf(own, channel)).toBe(10);
    } finally {
      for (const client of clients) client.socket.destroy();
      await own.stop();
    }
  });

  it('frees the Redis connection of a client that leaves before its stream starts', async () => {
    const ownRedis = await startTestRedis();
    const own = await startTestReference(ownRedis);
    const channel = uniqueKey('ch');
    const { hostname, port } = new URL(own.target.kv!.url);
    const pid = Number(
      /process_id:(\d+)/.exec(((await call(own, '/info/server')).json as { result: string }).result)?.[1],
    );
    try {
      // A paused Redis holds the stream in its start-up, while the client gives up.
      process.kill(pid, 'SIGSTOP');
      try {
        const leaving = createConnection({ host: hostname, port: Number(port) });
        await new Promise<void>((resolve, reject) => leaving.once('connect', resolve).once('error', reject));
        leaving.write(
          `POST /subscribe/${channel} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${own.target.kv!.token}\r\n` +
            'content-length: 0\r\n\r\n',
        );
        await sleep(300);
        leaving.destroy();
        await sleep(100);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await sleep(500);
      const numsub = (await call(own, `/pubsub/numsub/${channel}`)).json as { result: [string, number] };
      expect(numsub.result[1]).toBe(0);
    } finally {
      await own.stop();
      await ownRedis.stop();
    }
  });

  it('ends open streams when the service stops', async () => {
    const own = await startTestReference(env.redis);
    const stream = await open(own, `/subscribe/${uniqueKey('ch')}`);
    await stream.next();
    await own.stop();
    await expect(stream.next(3_000)).rejects.toThrow(/ended|closed/);
  });
});
