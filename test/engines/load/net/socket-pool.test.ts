/**
 * The socket pool's memory budget (issue 25): answers being read hold at most the budget together, plus
 * the one answer that reads on past it; the others pause and still arrive whole, and the pool counts
 * them. A real HTTP server on loopback sends the answers.
 */
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
