/**
 * The socket pool's memory budget (issue 25): answers being read hold at most the budget together, plus
 * the one answer that reads on past it; the others pause and still arrive whole, and the pool counts
 * them. Its shared read buffer: every answer keeps its own bytes, whether it came in one read or many.
 * A real HTTP server on loopback sends the answers.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ExchangeResult } from '../../../../src/engines/load/exchange.ts';
import { SocketPool } from '../../../../src/engines/load/net/socket-pool.ts';
import { halfSentServer } from '../../../support/half-sent-server.ts';
import { closeServer, listenOnLoopback } from '../../../support/loopback.ts';

const answerBytes = 600 * 1024;
const budget = 1024 * 1024;
let url = '';
/** Big answers whose first half is sent, waiting for the other requests: all are being read at once. */
const server = halfSentServer(answerBytes, 10);

beforeAll(async () => {
  url = (await listenOnLoopback(server)).url;
});
afterAll(() => closeServer(server));

function sendAll(pool: SocketPool<number>, paths: readonly string[], results: Map<number, ExchangeResult>) {
  paths.forEach((path, index) => {
    expect(pool.send(`GET ${path} HTTP/1.1\r\nhost: loopback\r\n\r\n`, index)).toBe(true);
  });
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${results.size} answers in 10 s`)), 10_000);
    const poll = setInterval(() => {
      if (results.size === paths.length) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
}

describe('socket pool memory budget', () => {
  test('ten answers of 600 KB under a 1 MB budget: all arrive whole, some waited, the budget held', async () => {
    const results = new Map<number, ExchangeResult>();
    const pool = new SocketPool<number>(
      {
        origin: new URL(url),
        connections: 10,
        timeoutMs: 5_000,
        maxAnswerBytes: 10 * answerBytes,
        answerBudgetBytes: budget,
      },
      (index, result) => results.set(index, result),
    );
    try {
      const paths = Array.from({ length: 10 }, (_, index) => `/${index}`);
      await sendAll(pool, paths, results);
      for (const [index, result] of results) {
        expect(result.kind).toBe('answer');
        if (result.kind !== 'answer') continue;
        expect(result.body.length).toBe(answerBytes);
        expect(result.body).toBe(String.fromCharCode(97 + index).repeat(answerBytes));
      }
      expect(pool.memory.waits).toBeGreaterThan(0);
      // The budget, the one answer that read on past it, and a socket read (64 KB) per paused answer.
      expect(pool.memory.peak).toBeLessThanOrEqual(budget + answerBytes + 10 * 64 * 1024);
      expect(pool.inFlight).toBe(0);
    } finally {
      pool.close();
    }
  });

  test('small answers never wait', async () => {
    const results = new Map<number, ExchangeResult>();
    const pool = new SocketPool<number>(
      {
        origin: new URL(url),
        connections: 10,
        timeoutMs: 5_000,
        maxAnswerBytes: answerBytes,
        answerBudgetBytes: budget,
      },
      (index, result) => results.set(index, result),
    );
    try {
      await sendAll(
        pool,
        Array.from({ length: 10 }, () => '/small'),
        results,
      );
      expect([...results.values()].every((result) => result.kind === 'answer')).toBe(true);
      expect(pool.memory.waits).toBe(0);
    } finally {
      pool.close();
    }
  });
});

describe('socket pool read buffer', () => {
  test('answers read whole in one read each keep their own text, read through the one buffer the pool shares', async () => {
    // Each answer names its own request: a body decoded from the shared buffer after another read overwrote it would not.
    const echo = createServer((req, res) => {
      const body = `answer to ${req.url}`;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    const { url: echoUrl } = await listenOnLoopback(echo);
    const results = new Map<number, ExchangeResult>();
    const pool = new SocketPool<number>(
      { origin: new URL(echoUrl), connections: 10, timeoutMs: 5_000, maxAnswerBytes: 1024 },
      (index, result) => results.set(index, result),
    );
    try {
      for (let round = 0; round < 5; round++) {
        const paths = Array.from({ length: 10 }, (_, index) => `/${round * 10 + index}`);
        const before = results.size;
        paths.forEach((path, index) => {
          expect(pool.send(`GET ${path} HTTP/1.1\r\nhost: loopback\r\n\r\n`, round * 10 + index)).toBe(true);
        });
        await expect.poll(() => results.size - before, { timeout: 5_000, interval: 5 }).toBe(10);
      }
      expect(results.size).toBe(50);
      for (const [index, result] of results) {
        expect(result).toMatchObject({ kind: 'answer', status: 200, body: `answer to /${index}` });
      }
    } finally {
      pool.close();
      await closeServer(echo);
    }
  });

  test('answers read in pieces on two connections at once keep their own bytes (the buffer is overwritten in between)', async () => {
    // Each sends half its body, then the rest 30 ms later: the reads of the two interleave.
    const halves = createServer((req, res) => {
      const letter = req.url === '/a' ? 'a' : 'b';
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2000 });
      res.write(letter.repeat(1000));
      setTimeout(() => res.end(letter.toUpperCase().repeat(1000)), 30);
    });
    const { url: halvesUrl } = await listenOnLoopback(halves);
    const results = new Map<number, ExchangeResult>();
    const pool = new SocketPool<number>(
      { origin: new URL(halvesUrl), connections: 2, timeoutMs: 5_000, maxAnswerBytes: 4096 },
      (index, result) => results.set(index, result),
    );
    try {
      expect(pool.send('GET /a HTTP/1.1\r\nhost: loopback\r\n\r\n', 0)).toBe(true);
      expect(pool.send('GET /b HTTP/1.1\r\nhost: loopback\r\n\r\n', 1)).toBe(true);
      await expect.poll(() => results.size, { timeout: 5_000, interval: 5 }).toBe(2);
      expect(results.get(0)).toMatchObject({ kind: 'answer', body: `${'a'.repeat(1000)}${'A'.repeat(1000)}` });
      expect(results.get(1)).toMatchObject({ kind: 'answer', body: `${'b'.repeat(1000)}${'B'.repeat(1000)}` });
    } finally {
      pool.close();
      await closeServer(halves);
    }
  });
});
