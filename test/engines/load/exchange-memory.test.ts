/**
 * The undici path of the load engine (`exchange`, the node-undici client) reads its answers within an
 * answer budget, as the socket pool does (issue 25): past it, one answer reads on and the others' sockets
 * pause, and every answer still arrives whole. A real HTTP server on loopback holds each answer half sent
 * until all ten are being read at once.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ExchangeResult, exchange } from '../../../src/engines/load/exchange.ts';
import { AnswerMemory } from '../../../src/http/answer-memory.ts';
import { halfSentServer } from '../../support/half-sent-server.ts';
import { closeServer, listenOnLoopback } from '../../support/loopback.ts';

const answerBytes = 600 * 1024;
const budget = 1024 * 1024;
let url = '';
const server = halfSentServer(answerBytes, 10);

beforeAll(async () => {
  url = (await listenOnLoopback(server)).url;
});
afterAll(() => closeServer(server));

describe('the undici exchange within an answer budget', () => {
  test('ten answers of 600 KB under a 1 MB budget: all arrive whole, some waited, the budget held', async () => {
    const agent = new Agent({ connections: 10, pipelining: 1 });
    const memory = new AnswerMemory(budget);
    const origin = new URL(url).origin;
    try {
      const results = await Promise.all(
        Array.from(
          { length: 10 },
          (_, index) =>
            new Promise<ExchangeResult>((resolve) =>
              exchange(
                agent,
                { origin, path: `/${index}`, method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 },
                10 * answerBytes,
                memory,
                resolve,
              ),
            ),
        ),
      );
      for (const [index, result] of results.entries()) {
        expect(result.kind, JSON.stringify(result).slice(0, 300)).toBe('answer');
        if (result.kind !== 'answer') continue;
        expect(result.body).toBe(String.fromCharCode(97 + index).repeat(answerBytes));
      }
      expect(memory.waits).toBeGreaterThan(0);
      // The budget, the one answer that read on past it, and a socket read (64 KB) per paused answer.
      expect(memory.peak).toBeLessThanOrEqual(budget + answerBytes + 10 * 64 * 1024);
    } finally {
      await agent.destroy();
    }
  });
});
